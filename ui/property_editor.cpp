#include "ui/property_editor.h"

#include "core/scenario/enum_names.h"
#include "core/scenario/node_kinds.h"
#include "ui/field_edit.h"
#include "ui/field_problems.h"
#include "ui/form_layout.h"
#include "ui/memory_tier_table.h"
#include "ui/scenario_document.h"
#include "ui/topology_defaults.h"

#include <QComboBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QLabel>
#include <QLineEdit>
#include <QScrollArea>
#include <QStackedWidget>
#include <QTimer>
#include <QUndoStack>
#include <QVBoxLayout>

namespace coh::ui {

using nlohmann::ordered_json;

namespace {

const QString kNoRole = QStringLiteral("(none)");

QLabel* problemLabel(QWidget* parent)
{
    auto* label = new QLabel(parent);
    label->setWordWrap(true);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    setTone(label, Tone::Error);
    return label;
}

QString stringAt(const std::optional<ordered_json>& value)
{
    return value && value->is_string() ? toQString(value->get<std::string>()) : QString();
}

} // namespace

PropertyEditor::PropertyEditor(ScenarioDocument* document, QWidget* parent)
    : QWidget(parent)
    , m_document(document)
    , m_pages(new QStackedWidget)
    , m_validateTimer(new QTimer(this))
{
    setObjectName(QStringLiteral("propertyEditor"));
    auto* hint = new QLabel(tr("Select one node or link to edit its properties."), m_pages);
    hint->setAlignment(Qt::AlignCenter);
    hint->setWordWrap(true);
    m_pages->addWidget(hint);
    m_pages->addWidget(buildNodePage());
    m_pages->addWidget(buildLinkPage());
    // A node's page is taller than the tab at 1024x700: it scrolls rather than squeezing its fields.
    auto* scroll = new QScrollArea(this);
    scroll->setObjectName(QStringLiteral("propertyScroll"));
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    scroll->setWidget(m_pages);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(scroll);

    // Validation reads the model catalog: coalesce a burst of changes (a macro, an undo) into one run.
    m_validateTimer->setSingleShot(true);
    m_validateTimer->setInterval(0);
    connect(m_validateTimer, &QTimer::timeout, this, &PropertyEditor::validateNow);
    connect(m_document, &ScenarioDocument::changed, this, &PropertyEditor::onDocumentChanged);
}

FieldEdit* PropertyEditor::addField(std::vector<Field>& fields, const std::string& key, const QString& objectName,
                                    const QString& what)
{
    auto* edit = new FieldEdit(m_document, FieldEdit::Kind::Value, what, this);
    edit->setObjectName(objectName);
    fields.push_back({edit, key});
    return edit;
}

QComboBox* PropertyEditor::addChoice(const QString& objectName, const QStringList& items)
{
    auto* combo = new QComboBox(this);
    combo->setObjectName(objectName);
    combo->addItems(items);
    combo->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    combo->setMinimumContentsLength(6);
    return combo;
}

QWidget* PropertyEditor::buildNodePage()
{
    auto* page = new QWidget(m_pages);
    auto* form = newFormLayout();
    m_nodeIdEdit = new QLineEdit(page);
    m_nodeIdEdit->setObjectName(QStringLiteral("nodeId"));
    connect(m_nodeIdEdit, &QLineEdit::editingFinished, this, &PropertyEditor::commitNodeId);
    m_kind = addChoice(QStringLiteral("nodeKind"), nodeKindNames());
    m_role = addChoice(QStringLiteral("nodeRole"), QStringList{kNoRole} + nodeRoleNames());
    setFieldHelp(m_role, tr("prefill/decode/both: the node serves (needs compute and an hbm tier); host: a CPU "
                            "socket; memory: a memory pool; (none): switches and plain devices"));
    connect(m_kind, &QComboBox::currentTextChanged, this, &PropertyEditor::commitKind);
    connect(m_role, &QComboBox::currentTextChanged, this,
            [this](const QString& t) { commitChoice("/role", t, tr("node role")); });
    form->addRow(tr("Id"), m_nodeIdEdit);
    form->addRow(tr("Kind"), m_kind);
    form->addRow(tr("Role"), m_role);

    m_compute = new QGroupBox(tr("Compute"), page);
    auto* computeForm = newFormLayout(m_compute);
    FieldEdit* flops = addField(m_nodeFields, "/compute/peak_flops", QStringLiteral("peakFlops"), tr("peak FLOP/s"));
    flops->setPlaceholderText(tr("e.g. 989 TFLOP/s"));
    FieldEdit* bandwidth =
        addField(m_nodeFields, "/compute/memory_bandwidth", QStringLiteral("memoryBandwidth"), tr("memory bandwidth"));
    bandwidth->setPlaceholderText(tr("default: the hbm tier's"));
    // "compute": {} is an error (peak_flops is required): clearing its last field removes compute.
    flops->setRemovesEmptyParent(true);
    bandwidth->setRemovesEmptyParent(true);
    computeForm->addRow(tr("Peak FLOP/s"), flops);
    computeForm->addRow(tr("Memory bandwidth"), bandwidth);

    m_memory = new QGroupBox(tr("Memory tiers"), page);
    auto* memoryLayout = new QVBoxLayout(m_memory);
    m_tiers = new MemoryTierTable(m_document, m_memory);
    memoryLayout->addWidget(m_tiers);

    m_nodeProblems = problemLabel(page);
    m_nodeProblems->setObjectName(QStringLiteral("nodeProblems"));
    auto* layout = new QVBoxLayout(page);
    layout->addLayout(form);
    layout->addWidget(m_compute);
    layout->addWidget(m_memory);
    layout->addWidget(m_nodeProblems);
    layout->addStretch();
    return page;
}

QWidget* PropertyEditor::buildLinkPage()
{
    auto* page = new QWidget(m_pages);
    auto* form = newFormLayout();
    m_linkIdEdit = new QLineEdit(page);
    m_linkIdEdit->setObjectName(QStringLiteral("linkId"));
    connect(m_linkIdEdit, &QLineEdit::editingFinished, this, &PropertyEditor::commitLinkId);
    m_linkA = addChoice(QStringLiteral("linkA"), {});
    m_linkB = addChoice(QStringLiteral("linkB"), {});
    m_linkKind = addChoice(QStringLiteral("linkKind"), linkKindNames());
    connect(m_linkA, &QComboBox::currentTextChanged, this,
            [this](const QString& t) { commitChoice("/a", t, tr("link end A")); });
    connect(m_linkB, &QComboBox::currentTextChanged, this,
            [this](const QString& t) { commitChoice("/b", t, tr("link end B")); });
    connect(m_linkKind, &QComboBox::currentTextChanged, this,
            [this](const QString& t) { commitChoice("/kind", t, tr("link kind")); });
    FieldEdit* latency = addField(m_linkFields, "/latency", QStringLiteral("linkLatency"), tr("link latency"));
    latency->setPlaceholderText(tr("one way, per hop, e.g. 0.7 us"));
    FieldEdit* bandwidth = addField(m_linkFields, "/bandwidth", QStringLiteral("linkBandwidth"), tr("link bandwidth"));
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
    const bool shown = item && item->is_object();
    const bool node = shown && !m_nodeId.isEmpty();
    const bool link = shown && !node;
    auto text = [&](const std::string& key) { return stringAt(m_document->value(pointer + key)); };
    auto setCombo = [](QComboBox* combo, const QString& value) {
        if (combo->findText(value) < 0)
            combo->addItem(value);
        combo->setCurrentText(value);
    };
    // Fields follow the selection (an empty pointer edits nothing), so a refused text never outlives its item.
    for (const Field& field : m_nodeFields)
        field.edit->setPointer(node ? pointer + field.key : std::string());
    for (const Field& field : m_linkFields)
        field.edit->setPointer(link ? pointer + field.key : std::string());
    for (const std::vector<Field>* fields : {&m_nodeFields, &m_linkFields})
        for (const Field& field : *fields)
            field.edit->refresh();
    m_pages->setCurrentIndex(node ? 1 : link ? 2 : 0);
    if (node) {
        m_nodeIdEdit->setText(m_nodeId);
        const QString kind = text("/kind");
        setCombo(m_kind, kind);
        const QString role = text("/role");
        setCombo(m_role, role.isEmpty() ? kNoRole : role);
        // Only the parts the kind has; one the file gives anyway (refused by validation) stays, to be cleared.
        const auto known = core::enumFromString<core::NodeKind>(toStdString(kind));
        const auto showPart = [&](QWidget* box, core::NodePart part) {
            box->setVisible(!known || core::nodeKindHas(*known, part) || item->contains(core::nodePartKey(part)));
        };
        showPart(m_compute, core::NodePart::Compute);
        showPart(m_memory, core::NodePart::Memory);
        m_tiers->setNodePointer(pointer);
    } else if (link) {
        m_linkIdEdit->setText(m_linkId);
        const QStringList nodes = m_document->nodeIds();
        for (QComboBox* end : {m_linkA, m_linkB}) {
            const QString current = text(end == m_linkA ? "/a" : "/b");
            end->clear();
            end->addItems(nodes);
            setCombo(end, current); // a node that does not exist stays shown (and red) until the end is fixed
        }
        setCombo(m_linkKind, text("/kind"));
    }
    m_refreshing = false;
}

void PropertyEditor::commitChoice(const std::string& key, const QString& text, const QString& what)
{
    const std::string pointer = currentPointer();
    if (m_refreshing || pointer.empty() || text.isEmpty())
        return;
    if (text == kNoRole)
        m_document->removeValue(pointer + key, tr("Clear %1").arg(what));
    else
        m_document->setValue(pointer + key, toStdString(text), tr("Edit %1").arg(what));
}

void PropertyEditor::commitKind(const QString& kind)
{
    const std::string pointer = currentPointer();
    if (m_refreshing || pointer.empty() || kind.isEmpty())
        return;
    const auto known = core::enumFromString<core::NodeKind>(toStdString(kind));
    QUndoStack* undo = m_document->undoStack();
    // One step: the kind, and the parts the new kind does not have (values it also has stay as they are).
    undo->beginMacro(tr("Edit node kind"));
    m_document->setValue(pointer + "/kind", toStdString(kind), tr("Edit node kind"));
    for (core::NodePart part : core::nodeParts())
        if (known && !core::nodeKindHas(*known, part))
            m_document->removeValue(pointer + "/" + core::nodePartKey(part), tr("Edit node kind"));
    undo->endMacro();
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
    const std::vector<core::InputProblem>& problems = m_document->validate().problems;
    const bool node = !m_nodeId.isEmpty();
    markField(node ? m_nodeIdEdit : m_linkIdEdit, problemsAt(problems, pointer + "/id"));
    for (const auto& [combo, key] :
         node
             ? std::vector<std::pair<QComboBox*, const char*>>{{m_kind, "/kind"}, {m_role, "/role"}}
             : std::vector<std::pair<QComboBox*, const char*>>{{m_linkA, "/a"}, {m_linkB, "/b"}, {m_linkKind, "/kind"}})
        markField(combo, problemsAt(problems, pointer + key));
    for (const Field& field : node ? m_nodeFields : m_linkFields)
        field.edit->showProblems(problemsAt(problems, pointer + field.key));
    if (node)
        m_tiers->showProblems(problems);
    (node ? m_nodeProblems : m_linkProblems)->setText(problemsUnder(problems, pointer).join(QLatin1Char('\n')));
}

} // namespace coh::ui
