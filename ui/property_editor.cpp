#include "ui/property_editor.h"

#include "ui/field_problems.h"
#include "ui/memory_tier_table.h"
#include "ui/scenario_document.h"
#include "ui/set_json_value_command.h"
#include "ui/topology_defaults.h"

#include <QComboBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QLabel>
#include <QLineEdit>
#include <QStackedWidget>
#include <QTimer>
#include <QUndoStack>
#include <QVBoxLayout>

namespace coh::ui {

using nlohmann::ordered_json;

namespace {

constexpr int kTypingMergeId = 0x54595045; // "TYPE": keystrokes in one field merge
const QString kNoRole = QStringLiteral("(none)");

QLabel* problemLabel(QWidget* parent)
{
    auto* label = new QLabel(parent);
    label->setWordWrap(true);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    label->setStyleSheet(QStringLiteral("color: #d32f2f;"));
    return label;
}

} // namespace

PropertyEditor::PropertyEditor(ScenarioDocument* document, QWidget* parent)
    : QWidget(parent)
    , m_document(document)
    , m_pages(new QStackedWidget(this))
    , m_validateTimer(new QTimer(this))
{
    setObjectName(QStringLiteral("propertyEditor"));
    auto* hint = new QLabel(tr("Select one node or link to edit its properties."), m_pages);
    hint->setAlignment(Qt::AlignCenter);
    hint->setWordWrap(true);
    m_pages->addWidget(hint);
    m_pages->addWidget(buildNodePage());
    m_pages->addWidget(buildLinkPage());
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_pages);

    // Validation reads the model catalog: coalesce a burst of changes (a macro, an undo) into one run.
    m_validateTimer->setSingleShot(true);
    m_validateTimer->setInterval(0);
    connect(m_validateTimer, &QTimer::timeout, this, &PropertyEditor::validateNow);
    connect(m_document, &ScenarioDocument::changed, this, &PropertyEditor::onDocumentChanged);
}

QLineEdit* PropertyEditor::addField(std::vector<Field>& fields, const std::string& key, const QString& objectName)
{
    auto* edit = new QLineEdit(this);
    edit->setObjectName(objectName);
    fields.push_back({edit, key});
    connect(edit, &QLineEdit::textEdited, this, [this, edit, key] { commitField(edit, key); });
    connect(edit, &QLineEdit::editingFinished, this, &PropertyEditor::sealTyping);
    return edit;
}

QComboBox* PropertyEditor::addChoice(const QString& objectName, const QStringList& items)
{
    auto* combo = new QComboBox(this);
    combo->setObjectName(objectName);
    combo->addItems(items);
    return combo;
}

QWidget* PropertyEditor::buildNodePage()
{
    auto* page = new QWidget(m_pages);
    auto* form = new QFormLayout;
    m_nodeIdEdit = new QLineEdit(page);
    m_nodeIdEdit->setObjectName(QStringLiteral("nodeId"));
    connect(m_nodeIdEdit, &QLineEdit::editingFinished, this, &PropertyEditor::commitNodeId);
    m_kind = addChoice(QStringLiteral("nodeKind"), nodeKindNames());
    m_role = addChoice(QStringLiteral("nodeRole"), QStringList{kNoRole} + nodeRoleNames());
    m_role->setToolTip(tr("prefill/decode/both: the node serves (needs compute and an hbm tier); host: a CPU "
                          "socket; memory: a memory pool; (none): switches and plain devices"));
    connect(m_kind, &QComboBox::currentTextChanged, this, [this](const QString& t) { commitChoice("/kind", t); });
    connect(m_role, &QComboBox::currentTextChanged, this, [this](const QString& t) { commitChoice("/role", t); });
    form->addRow(tr("Id"), m_nodeIdEdit);
    form->addRow(tr("Kind"), m_kind);
    form->addRow(tr("Role"), m_role);

    auto* compute = new QGroupBox(tr("Compute"), page);
    auto* computeForm = new QFormLayout(compute);
    QLineEdit* flops = addField(m_nodeFields, "/compute/peak_flops", QStringLiteral("peakFlops"));
    flops->setPlaceholderText(tr("e.g. 989 TFLOP/s (empty: no compute)"));
    QLineEdit* bandwidth = addField(m_nodeFields, "/compute/memory_bandwidth", QStringLiteral("memoryBandwidth"));
    bandwidth->setPlaceholderText(tr("default: the hbm tier's bandwidth"));
    computeForm->addRow(tr("Peak FLOP/s"), flops);
    computeForm->addRow(tr("Memory bandwidth"), bandwidth);

    auto* memory = new QGroupBox(tr("Memory tiers"), page);
    auto* memoryLayout = new QVBoxLayout(memory);
    m_tiers = new MemoryTierTable(m_document, memory);
    memoryLayout->addWidget(m_tiers);

    m_nodeProblems = problemLabel(page);
    m_nodeProblems->setObjectName(QStringLiteral("nodeProblems"));
    auto* layout = new QVBoxLayout(page);
    layout->addLayout(form);
    layout->addWidget(compute);
    layout->addWidget(memory);
    layout->addWidget(m_nodeProblems);
    layout->addStretch();
    return page;
}

QWidget* PropertyEditor::buildLinkPage()
{
    auto* page = new QWidget(m_pages);
    auto* form = new QFormLayout;
    m_linkIdEdit = new QLineEdit(page);
    m_linkIdEdit->setObjectName(QStringLiteral("linkId"));
    connect(m_linkIdEdit, &QLineEdit::editingFinished, this, &PropertyEditor::commitLinkId);
    m_linkA = addChoice(QStringLiteral("linkA"), {});
    m_linkB = addChoice(QStringLiteral("linkB"), {});
    m_linkKind = addChoice(QStringLiteral("linkKind"), linkKindNames());
    connect(m_linkA, &QComboBox::currentTextChanged, this, [this](const QString& t) { commitChoice("/a", t); });
    connect(m_linkB, &QComboBox::currentTextChanged, this, [this](const QString& t) { commitChoice("/b", t); });
    connect(m_linkKind, &QComboBox::currentTextChanged, this, [this](const QString& t) { commitChoice("/kind", t); });
    QLineEdit* latency = addField(m_linkFields, "/latency", QStringLiteral("linkLatency"));
    latency->setPlaceholderText(tr("one way, per hop, e.g. 0.7 us"));
    QLineEdit* bandwidth = addField(m_linkFields, "/bandwidth", QStringLiteral("linkBandwidth"));
    bandwidth->setPlaceholderText(tr("per direction, e.g. 450 GB/s"));
    form->addRow(tr("Id"), m_linkIdEdit);
    form->addRow(tr("End A"), m_linkA);
    form->addRow(tr("End B"), m_linkB);
    form->addRow(tr("Kind"), m_linkKind);
    form->addRow(tr("Latency"), latency);
    form->addRow(tr("Bandwidth"), bandwidth);
    m_linkProblems = problemLabel(page);
    m_linkProblems->setObjectName(QStringLiteral("linkProblems"));
    auto* layout = new QVBoxLayout(page);
    layout->addLayout(form);
    layout->addWidget(m_linkProblems);
    layout->addStretch();
    return page;
}

void PropertyEditor::showItems(const QStringList& nodeIds, const QStringList& linkIds)
{
    const bool oneNode = nodeIds.size() == 1 && linkIds.isEmpty();
    const bool oneLink = linkIds.size() == 1 && nodeIds.isEmpty();
    m_nodeId = oneNode ? nodeIds.first() : QString();
    m_linkId = oneLink ? linkIds.first() : QString();
    m_activeEdit = nullptr;
    refresh();
    validateNow();
}

std::string PropertyEditor::currentPointer() const
{
    return !m_nodeId.isEmpty() ? m_document->nodePointer(m_nodeId) : m_document->linkPointer(m_linkId);
}

void PropertyEditor::onDocumentChanged()
{
    // A rename by undo (or a delete) makes the shown item vanish: show the hint instead of stale fields.
    if ((!m_nodeId.isEmpty() && m_document->nodePointer(m_nodeId).empty()) ||
        (!m_linkId.isEmpty() && m_document->linkPointer(m_linkId).empty())) {
        m_nodeId.clear();
        m_linkId.clear();
    }
    refresh();
    m_validateTimer->start();
}

void PropertyEditor::refresh()
{
    m_refreshing = true;
    const std::string pointer = currentPointer();
    const std::optional<ordered_json> item = pointer.empty() ? std::nullopt : m_document->value(pointer);
    auto text = [&](const std::string& key) { return textFromValue(m_document->value(pointer + key)); };
    auto setCombo = [](QComboBox* combo, const QString& value) {
        if (combo->findText(value) < 0)
            combo->addItem(value);
        combo->setCurrentText(value);
    };
    if (!item || !item->is_object()) {
        m_pages->setCurrentIndex(0);
    } else if (!m_nodeId.isEmpty()) {
        m_pages->setCurrentIndex(1);
        m_nodeIdEdit->setText(m_nodeId);
        setCombo(m_kind, text("/kind"));
        const QString role = text("/role");
        setCombo(m_role, role.isEmpty() ? kNoRole : role);
        for (const Field& field : m_nodeFields)
            if (field.edit != m_activeEdit)
                field.edit->setText(text(field.key));
        m_tiers->setNodePointer(pointer);
    } else {
        m_pages->setCurrentIndex(2);
        m_linkIdEdit->setText(m_linkId);
        const QStringList nodes = m_document->nodeIds();
        for (QComboBox* end : {m_linkA, m_linkB}) {
            const QString current = text(end == m_linkA ? "/a" : "/b");
            end->clear();
            end->addItems(nodes);
            setCombo(end, current);
        }
        setCombo(m_linkKind, text("/kind"));
        for (const Field& field : m_linkFields)
            if (field.edit != m_activeEdit)
                field.edit->setText(text(field.key));
    }
    m_refreshing = false;
}

void PropertyEditor::commitField(QLineEdit* edit, const std::string& key)
{
    const std::string pointer = currentPointer();
    if (pointer.empty())
        return;
    m_activeEdit = edit;
    const std::optional<ordered_json> value = valueFromText(edit->text());
    if (value) {
        m_document->setValue(pointer + key, *value, tr("Edit %1").arg(edit->objectName()), kTypingMergeId);
    } else {
        // "compute": {} is an error (peak_flops is required): clearing its last field removes compute, in the
        // same undo step, so one undo brings the field back rather than the empty object.
        m_document->undoStack()->beginMacro(tr("Clear %1").arg(edit->objectName()));
        m_document->removeValue(pointer + key, tr("Clear %1").arg(edit->objectName()));
        if (key.rfind("/compute/", 0) == 0 && m_document->value(pointer + "/compute") == ordered_json::object())
            m_document->removeValue(pointer + "/compute", tr("Remove compute"));
        m_document->undoStack()->endMacro();
    }
}

void PropertyEditor::sealTyping()
{
    m_activeEdit = nullptr;
    QUndoStack* undo = m_document->undoStack();
    if (undo->index() > 0)
        if (auto* command =
                dynamic_cast<SetJsonValueCommand*>(const_cast<QUndoCommand*>(undo->command(undo->index() - 1))))
            command->seal(); // the next edit of this field is its own undo step
}

void PropertyEditor::commitChoice(const std::string& key, const QString& text)
{
    const std::string pointer = currentPointer();
    if (m_refreshing || pointer.empty() || text.isEmpty())
        return;
    if (text == kNoRole)
        m_document->removeValue(pointer + key, tr("Clear role"));
    else
        m_document->setValue(pointer + key, toStdString(text), tr("Set %1").arg(toQString(key.substr(1))));
}

void PropertyEditor::commitNodeId()
{
    const QString newId = m_nodeIdEdit->text().trimmed();
    if (m_nodeId.isEmpty() || newId == m_nodeId)
        return;
    const QString oldId = m_nodeId;
    m_nodeId = newId; // followed by the refresh the rename triggers
    if (!m_document->renameNode(oldId, newId)) {
        m_nodeId = oldId;
        markField(m_nodeIdEdit, {newId.isEmpty() ? tr("A node needs an id.")
                                                 : tr("The id '%1' is already taken by another node.").arg(newId)});
    }
}

void PropertyEditor::commitLinkId()
{
    const QString newId = m_linkIdEdit->text().trimmed();
    if (m_linkId.isEmpty() || newId == m_linkId)
        return;
    if (newId.isEmpty() || m_document->linkIds().contains(newId)) {
        markField(m_linkIdEdit, {newId.isEmpty() ? tr("A link id may not be empty (remove it to get \"a-b\").")
                                                 : tr("The id '%1' is already taken by another link.").arg(newId)});
        return;
    }
    const std::string pointer = currentPointer();
    m_linkId = newId;
    m_document->setValue(pointer + "/id", toStdString(newId), tr("Rename link"));
}

void PropertyEditor::validateNow()
{
    m_validateTimer->stop();
    const std::string pointer = currentPointer();
    if (pointer.empty())
        return;
    const QStringList lines = m_document->validate().error.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    if (!m_nodeId.isEmpty()) {
        markField(m_nodeIdEdit, problemsAt(lines, pointer + "/id"));
        markField(m_kind, problemsAt(lines, pointer + "/kind"));
        markField(m_role, problemsAt(lines, pointer + "/role"));
        for (const Field& field : m_nodeFields)
            markField(field.edit, problemsAt(lines, pointer + field.key));
        m_tiers->showProblems(lines);
        m_nodeProblems->setText(problemsUnder(lines, pointer).join(QLatin1Char('\n')));
    } else {
        markField(m_linkIdEdit, problemsAt(lines, pointer + "/id"));
        markField(m_linkA, problemsAt(lines, pointer + "/a"));
        markField(m_linkB, problemsAt(lines, pointer + "/b"));
        markField(m_linkKind, problemsAt(lines, pointer + "/kind"));
        for (const Field& field : m_linkFields)
            markField(field.edit, problemsAt(lines, pointer + field.key));
        m_linkProblems->setText(problemsUnder(lines, pointer).join(QLatin1Char('\n')));
    }
}

} // namespace coh::ui
