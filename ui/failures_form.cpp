#include "ui/failures_form.h"

#include "core/scenario/enum_names.h"
#include "core/scenario/scenario.h"
#include "ui/field_edit.h"
#include "ui/field_problems.h"
#include "ui/form_layout.h"
#include "ui/instances_editor.h"
#include "ui/qt_text.h"
#include "ui/scenario_document.h"
#include "ui/scenario_fields.h"

#include <QApplication>
#include <QComboBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalBlocker>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>
#include <functional>

namespace coh::ui {

namespace {

using nlohmann::ordered_json;

constexpr const char* kPointer = "/failures";
constexpr const char* kEventsPointer = "/failures/events";
constexpr const char* kDetectionPointer = "/failures/detection";
constexpr const char* kHeartbeatPointer = "/failures/detection/heartbeat";
constexpr const char* kTimeoutPointer = "/failures/detection/timeout";
constexpr const char* kRecoveryPointer = "/failures/recovery";
constexpr const char* kAt = "at";
constexpr const char* kMtbf = "mtbf";
// What a new failure starts as (the example docs/scenario-format.md gives); the user then edits it.
constexpr const char* kNewTime = "20 s";
constexpr const char* kNewRepair = "60 s";
constexpr int kMaxVisibleRows = 6; // beyond this the table scrolls inside the form
// The keys a row shows; any other key of an event (a note) is kept as it is.
constexpr const char* kShownKeys[] = {"node", "link", "at", "mtbf", "repair"};

QString ms(core::SimTime t)
{
    return QStringLiteral("%1 ms").arg(double(t) * 1e-6);
}

std::string eventPointer(int row)
{
    return std::string(kEventsPointer) + '/' + std::to_string(row);
}

QString textOf(const ordered_json& event, const char* key)
{
    const auto it = event.find(key);
    if (it == event.end())
        return {};
    return it->is_string() ? toQString(it->get<std::string>()) : ScenarioFields::valueText(*it);
}

// A choice of the first column: the key it writes ("node" or "link") and the id, as the combo box's item data.
QString choiceData(const char* key, const QString& id)
{
    return QLatin1String(key) + QLatin1Char(':') + id;
}

bool isNever(const QString& text)
{
    return text.isEmpty() || text.compare(FailuresForm::tr("never"), Qt::CaseInsensitive) == 0 ||
           text.compare(QLatin1String("never"), Qt::CaseInsensitive) == 0;
}

// A chooser of a row, sized to its words so four columns fit the narrowest dock.
QComboBox* cellCombo(QWidget* parent, const std::string& pointer)
{
    auto* combo = new QComboBox(parent);
    combo->setObjectName(toQString(pointer)); // where a problem with it leads (ScenarioPanel::showField)
    combo->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    combo->setMinimumContentsLength(4);
    return combo;
}

} // namespace

FailuresForm::FailuresForm(ScenarioDocument* document, ScenarioFields* fields, QWidget* parent)
    : QWidget(parent)
    , m_document(document)
    , m_shownEvents(nullptr)
{
    setObjectName(QString::fromLatin1(kPointer)); // where a problem of the section as a whole leads
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);

    m_empty = new QLabel(tr("Nothing fails. Add a failure to take a node that runs a serving instance, or a link, "
                            "down during the run."),
                         this);
    m_empty->setWordWrap(true);
    layout->addWidget(m_empty);

    m_table = new QTableWidget(0, ColumnCount, this);
    m_table->setObjectName(QString::fromLatin1(kEventsPointer));
    m_table->setHorizontalHeaderLabels({tr("Fails"), tr("Kind"), tr("Time"), tr("Repair")});
    m_table->horizontalHeaderItem(Node)->setToolTip(
        tr("What fails: a node that runs a serving instance (its instances stop, and the requests they hold are "
           "lost), or a link below the nodes (no request is lost: its messages wait, then go around it once the "
           "monitor declares it down, or over it once it is back)."));
    m_table->horizontalHeaderItem(Kind)->setToolTip(
        tr("at: it fails once, at the time given; mtbf: it fails at random, the time being the mean time between "
           "failures (it needs a repair time to come back and fail again)"));
    m_table->horizontalHeaderItem(Time)->setToolTip(
        tr("at: when it fails (\"20 s\"); mtbf: the mean time between its failures (\"600 s\")"));
    m_table->horizontalHeaderItem(Repair)->setToolTip(
        tr("How long it stays down (\"30 s\"): a node then serves again, its memory empty; a link carries "
           "traffic again. never: it does not come back"));
    m_table->verticalHeader()->hide();
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    QHeaderView* header = m_table->horizontalHeader();
    header->setMinimumSectionSize(40);
    for (int column : {Node, Time, Repair})
        header->setSectionResizeMode(column, QHeaderView::Stretch);
    header->setSectionResizeMode(Kind, QHeaderView::ResizeToContents);
    connect(m_table, &QTableWidget::itemChanged, this, &FailuresForm::commitLater);
    connect(m_table, &QTableWidget::itemSelectionChanged, this, &FailuresForm::updateButtons);
    layout->addWidget(m_table);

    auto* buttons = new QHBoxLayout;
    m_add = new QPushButton(tr("Add failure"), this);
    m_add->setToolTip(tr("A node that runs a serving instance (a decode node first) fails at %1 and is repaired %2 "
                         "later; edit the row to change them")
                          .arg(QLatin1String(kNewTime), QLatin1String(kNewRepair)));
    m_remove = new QPushButton(tr("Remove"), this);
    m_remove->setToolTip(tr("Removes the selected failures; removing the last removes the whole section"));
    connect(m_add, &QPushButton::clicked, this, &FailuresForm::addEvent);
    connect(m_remove, &QPushButton::clicked, this, &FailuresForm::removeSelected);
    buttons->addWidget(m_add);
    buttons->addWidget(m_remove);
    buttons->addStretch(1);
    layout->addLayout(buttons);

    const core::FailuresSpec d;
    auto* form = newFormLayout();
    form->setContentsMargins(0, 0, 0, 0);
    m_heartbeat = fields->value(kHeartbeatPointer, tr("failure heartbeat"), ms(d.heartbeat), this);
    m_heartbeat->setRemovesEmptyParent(true); // "detection": {} says nothing
    m_heartbeat->setToolTip(tr("How often the monitor hears from every node"));
    form->addRow(tr("Heartbeat"), m_heartbeat);
    m_timeout = fields->value(kTimeoutPointer, tr("failure timeout"), ms(d.timeout), this);
    m_timeout->setRemovesEmptyParent(true);
    m_timeout->setToolTip(tr("How long without a heartbeat before the monitor declares a node dead and its requests "
                             "are recovered (at least the heartbeat)"));
    form->addRow(tr("Timeout"), m_timeout);
    QStringList recoveries;
    for (const auto& name : core::enumNames<core::FailureRecovery>())
        recoveries << toQString(name);
    m_recovery = fields->choice(kRecoveryPointer, tr("failure recovery"), recoveries,
                                toQString(core::toString(d.recovery)), this);
    m_recovery->setToolTip(tr("What becomes of the requests a failure takes: replica: decode again from the most "
                              "complete surviving copy (else recompute); recompute: prefill the prompt and the "
                              "tokens so far again, loading the prefix a surviving copy holds; fail: give them up"));
    form->addRow(tr("Recovery"), m_recovery);
    layout->addLayout(form);
    refresh();
}

QComboBox* FailuresForm::nodeCombo(int row) const
{
    return qobject_cast<QComboBox*>(m_table->cellWidget(row, Node));
}

QComboBox* FailuresForm::kindCombo(int row) const
{
    return qobject_cast<QComboBox*>(m_table->cellWidget(row, Kind));
}

QComboBox* FailuresForm::repairCombo(int row) const
{
    return qobject_cast<QComboBox*>(m_table->cellWidget(row, Repair));
}

QStringList FailuresForm::instanceNodes(const ordered_json& scenario, const QString& role)
{
    // The listed instances when there are any, else those core derives from the node roles.
    const auto listed = scenario.value("/serving/instances"_json_pointer, ordered_json());
    const ordered_json instances = listed.is_array() ? listed : InstancesEditor::derivedInstances(scenario);
    QStringList nodes;
    for (const auto& instance : instances) {
        const auto it = instance.is_object() ? instance.find("nodes") : instance.end();
        if (it == instance.end() || !it->is_array() ||
            (!role.isEmpty() && instance.value("role", std::string()) != toStdString(role)))
            continue;
        for (const auto& node : *it)
            if (node.is_string() && !nodes.contains(toQString(node.get<std::string>())))
                nodes << toQString(node.get<std::string>());
    }
    return nodes;
}

QStringList FailuresForm::linkIds(const ordered_json& scenario)
{
    QStringList ids;
    const auto links = scenario.value("/topology/links"_json_pointer, ordered_json());
    if (!links.is_array())
        return ids;
    for (const auto& link : links) {
        if (!link.is_object())
            continue;
        // core names a link without an id "a-b".
        const QString id = link.contains("id") && link["id"].is_string()
                               ? toQString(link["id"].get<std::string>())
                               : toQString(link.value("a", std::string())) + QLatin1Char('-') +
                                     toQString(link.value("b", std::string()));
        if (!ids.contains(id))
            ids << id;
    }
    return ids;
}

void FailuresForm::refresh()
{
    const auto value = m_document->value(kEventsPointer);
    const ordered_json events = value && value->is_array() ? *value : ordered_json::array();
    QStringList offered;
    for (const QString& id : instanceNodes(m_document->json()))
        offered << choiceData("node", id);
    for (const QString& id : linkIds(m_document->json()))
        offered << choiceData("link", id);
    if (events != m_shownEvents || offered != m_shownChoices || m_table->rowCount() != int(events.size()))
        rebuild(events, offered);
    const bool any = !events.empty();
    m_table->setVisible(any);
    m_empty->setVisible(!any);
    m_add->setEnabled(!offered.isEmpty());
    // Without failures the detection and the recovery govern nothing; one the file gives anyway stays editable so it
    // can be cleared. A refused text left in a field that is switched off belonged to the failures just removed.
    for (FieldEdit* edit : {m_heartbeat, m_timeout}) {
        const bool enabled = any || m_document->value(edit->pointer()).has_value();
        if (!enabled && edit->isRefused())
            edit->revert();
        edit->setEnabled(enabled);
    }
    m_recovery->setEnabled(any || m_document->value(kRecoveryPointer).has_value());
    updateButtons();
}

void FailuresForm::rebuild(const ordered_json& events, const QStringList& offered)
{
    m_refreshing = true;
    m_shownEvents = events;
    m_shownChoices = offered;
    m_table->setRowCount(0);
    m_table->setRowCount(int(events.size()));
    for (int r = 0; r < int(events.size()); ++r) {
        const ordered_json& given = events[std::size_t(r)];
        const ordered_json event = given.is_object() ? given : ordered_json::object();
        const std::string row = eventPointer(r);

        // The nodes that run an instance, then the links; an entry naming something else stays, so its problem reads.
        const bool link = event.contains("link") && !event.contains("node");
        QComboBox* node = cellCombo(m_table, row + (link ? "/link" : "/node"));
        for (const QString& data : offered) {
            const bool isLink = data.startsWith(QLatin1String("link:"));
            if (isLink && node->count() > 0 &&
                !node->itemData(node->count() - 1).toString().startsWith(QLatin1String("link:")))
                node->insertSeparator(node->count()); // between the nodes and the links
            node->addItem(data.mid(5), data);
            node->setItemData(node->count() - 1,
                              isLink ? tr("A link: its messages wait, then go around it or over it once it is back")
                                     : tr("A node that runs a serving instance: its instances stop"),
                              Qt::ToolTipRole);
        }
        const QString chosen = textOf(event, link ? "link" : "node");
        const QString data = choiceData(link ? "link" : "node", chosen);
        if (node->findData(data) < 0)
            node->addItem(chosen, data);
        {
            const QSignalBlocker blocker(node);
            node->setCurrentIndex(node->findData(data));
        }
        node->setToolTip(chosen); // a link's id may be wider than the narrowest dock gives the column
        connect(node, &QComboBox::activated, this, &FailuresForm::commitLater);
        m_table->setCellWidget(r, Node, node);

        // Both keys given (a problem): shown as "at", the one the row keeps.
        const bool mtbf = event.contains(kMtbf) && !event.contains(kAt);
        QComboBox* kind = cellCombo(m_table, row + (mtbf ? "/mtbf" : "/at"));
        kind->setSizeAdjustPolicy(QComboBox::AdjustToContents); // two short words: its column is as wide as they need
        kind->addItem(QString::fromLatin1(kAt), QString::fromLatin1(kAt));
        kind->setItemData(0, tr("One failure, at the time given"), Qt::ToolTipRole);
        kind->addItem(QString::fromLatin1(kMtbf), QString::fromLatin1(kMtbf));
        kind->setItemData(1, tr("Failures at random, the time being the mean time between them"), Qt::ToolTipRole);
        kind->setCurrentIndex(mtbf ? 1 : 0);
        connect(kind, &QComboBox::activated, this, &FailuresForm::commitLater);
        m_table->setCellWidget(r, Kind, kind);

        m_table->setItem(r, Time, new QTableWidgetItem(textOf(event, mtbf ? kMtbf : kAt)));

        QComboBox* repair = cellCombo(m_table, row + "/repair");
        repair->setEditable(true);
        repair->setInsertPolicy(QComboBox::NoInsert);
        repair->addItem(tr("never"), QString());
        for (const char* suggestion : {"30 s", "60 s", "300 s"})
            repair->addItem(QLatin1String(suggestion), QLatin1String(suggestion));
        const QString repairText = textOf(event, "repair");
        repair->setCurrentText(repairText.isEmpty() ? tr("never") : repairText);
        repair->lineEdit()->setCursorPosition(0);
        connect(repair, &QComboBox::activated, this, &FailuresForm::commitLater);
        connect(repair->lineEdit(), &QLineEdit::editingFinished, this, &FailuresForm::commitLater);
        m_table->setCellWidget(r, Repair, repair);
    }
    m_table->resizeRowsToContents();
    // As tall as its rows (up to kMaxVisibleRows): a list of two failures is not a half-empty box.
    int height = m_table->horizontalHeader()->sizeHint().height() + 2 * m_table->frameWidth();
    for (int r = 0; r < std::min(m_table->rowCount(), kMaxVisibleRows); ++r)
        height += m_table->rowHeight(r);
    m_table->setFixedHeight(height);
    m_refreshing = false;
}

void FailuresForm::updateButtons()
{
    m_remove->setEnabled(m_table->rowCount() > 0 && !m_table->selectionModel()->selectedRows().isEmpty());
}

void FailuresForm::commitLater()
{
    // Committing rebuilds the table (the document refreshes every view), so it runs after the edit's signal has
    // returned, never under the item or combo box that sent it.
    if (!m_refreshing)
        QMetaObject::invokeMethod(this, &FailuresForm::commitTable, Qt::QueuedConnection);
}

void FailuresForm::addEvent()
{
    // The first node that does not fail yet, decode nodes first (what failures are usually about, and the only ones
    // core takes beside a prefix pool), else the first: the user then picks the node they mean.
    QStringList offered = instanceNodes(m_document->json(), QStringLiteral("decode"));
    for (const QString& id : instanceNodes(m_document->json()))
        if (!offered.contains(id))
            offered << id;
    // Without instance nodes only a link can fail.
    const char* key = offered.isEmpty() ? "link" : "node";
    if (offered.isEmpty())
        offered = linkIds(m_document->json());
    if (offered.isEmpty())
        return;
    auto events = m_document->value(kEventsPointer).value_or(ordered_json::array());
    if (!events.is_array())
        events = ordered_json::array();
    QStringList failing;
    for (const auto& event : events)
        if (event.is_object())
            failing << textOf(event, key);
    QString chosen = offered.front();
    for (const QString& id : offered)
        if (!failing.contains(id)) {
            chosen = id;
            break;
        }
    events.push_back({{key, toStdString(chosen)}, {kAt, kNewTime}, {"repair", kNewRepair}});
    const auto v = m_document->value(kPointer);
    ordered_json next = v && v->is_object() ? *v : ordered_json::object();
    next["events"] = std::move(events);
    m_document->setSection(kPointer, std::move(next), tr("Add failure"));
}

void FailuresForm::removeSelected()
{
    auto events = m_document->value(kEventsPointer).value_or(ordered_json::array());
    if (!events.is_array())
        return;
    QList<int> rows;
    for (const QModelIndex& index : m_table->selectionModel()->selectedRows())
        rows << index.row();
    if (rows.isEmpty())
        return;
    std::sort(rows.begin(), rows.end(), std::greater<>());
    for (int r : rows)
        if (r < int(events.size()))
            events.erase(events.begin() + r);
    const auto v = m_document->value(kPointer);
    ordered_json next = v && v->is_object() ? *v : ordered_json::object();
    // No failures: detection and recovery govern nothing, the whole section goes.
    if (events.empty())
        next = ordered_json::object();
    else
        next["events"] = std::move(events);
    m_document->setSection(kPointer, std::move(next), rows.size() > 1 ? tr("Remove failures") : tr("Remove failure"));
}

void FailuresForm::commitTable()
{
    const auto before = m_document->value(kEventsPointer);
    ordered_json events = ordered_json::array();
    for (int r = 0; r < m_table->rowCount(); ++r) {
        const bool had =
            before && before->is_array() && r < int(before->size()) && (*before)[std::size_t(r)].is_object();
        const ordered_json old = had ? (*before)[std::size_t(r)] : ordered_json::object();
        // The keys in the order the docs write them: node, at or mtbf, repair, then any others as they were.
        ordered_json event = ordered_json::object();
        const QString chosen = nodeCombo(r) ? nodeCombo(r)->currentData().toString() : QString();
        if (chosen.size() > 5) // "node:..." or "link:..."
            event[chosen.startsWith(QLatin1String("link:")) ? "link" : "node"] = toStdString(chosen.mid(5));
        else if (old.contains("node"))
            event["node"] = old["node"];
        else if (old.contains("link"))
            event["link"] = old["link"];
        const QString kind = kindCombo(r) ? kindCombo(r)->currentData().toString() : QString::fromLatin1(kAt);
        const QTableWidgetItem* time = m_table->item(r, Time);
        if (time && !time->text().trimmed().isEmpty())
            event[toStdString(kind)] = ScenarioFields::parseValue(time->text().trimmed());
        const QString repair = repairCombo(r) ? repairCombo(r)->currentText().trimmed() : QString();
        if (!isNever(repair))
            event["repair"] = ScenarioFields::parseValue(repair);
        for (auto it = old.begin(); it != old.end(); ++it)
            if (std::none_of(std::begin(kShownKeys), std::end(kShownKeys),
                             [&](const char* key) { return it.key() == key; }))
                event[it.key()] = *it;
        events.push_back(std::move(event));
    }
    if (before && *before == events)
        return;
    const auto v = m_document->value(kPointer);
    ordered_json next = v && v->is_object() ? *v : ordered_json::object();
    if (events.empty())
        next = ordered_json::object();
    else
        next["events"] = std::move(events);
    m_document->setSection(kPointer, std::move(next), tr("Edit failures"));
}

void FailuresForm::showProblems(const std::vector<core::InputProblem>& problems)
{
    // Each cell answers for its own value; the table (or, without events, the line saying so) for the rest of the
    // section: the section or an event as a whole, an unknown key. The detection times and the recovery are marked
    // by ScenarioFields.
    const QPalette palette = QApplication::palette(m_table);
    const QColor error = toneColor(Tone::Error, palette, palette.color(QPalette::Base));
    std::vector<std::string> cells = {kHeartbeatPointer, kTimeoutPointer, kRecoveryPointer};
    for (int r = 0; r < m_table->rowCount(); ++r) {
        const std::string row = eventPointer(r);
        for (const char* key : kShownKeys)
            cells.push_back(row + '/' + key);
        if (QComboBox* node = nodeCombo(r))
            markField(node, problemsAt(problems, row + "/node") + problemsAt(problems, row + "/link"));
        if (QComboBox* repair = repairCombo(r))
            markField(repair, problemsAt(problems, row + "/repair"));
        // The kind answers for a row with both keys or neither; the time for the value it holds.
        const QStringList time = problemsAt(problems, row + "/at") + problemsAt(problems, row + "/mtbf");
        if (QComboBox* kind = kindCombo(r))
            markField(kind, time);
        if (QTableWidgetItem* item = m_table->item(r, Time)) {
            const QSignalBlocker blocker(m_table); // colouring a cell is no edit
            item->setForeground(time.isEmpty() ? QBrush() : QBrush(error));
            item->setToolTip(time.join(QLatin1Char('\n')));
        }
    }
    std::vector<core::InputProblem> section;
    for (const core::InputProblem& problem : problems)
        if (std::find(cells.begin(), cells.end(), problem.field) == cells.end() &&
            problem.field.rfind(kDetectionPointer + std::string("/"), 0) != 0)
            section.push_back(problem);
    const QStringList rest = problemsUnder(section, kPointer);
    markField(m_table, rest);
    markField(m_empty, rest);
}

} // namespace coh::ui
