#include "ui/instances_editor.h"

#include "core/scenario/enum_names.h"
#include "core/scenario/scenario.h"
#include "ui/field_problems.h"
#include "ui/qt_text.h"
#include "ui/scenario_document.h"
#include "ui/scenario_fields.h"

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QPushButton>
#include <QSignalBlocker>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>
#include <functional>

namespace coh::ui {

namespace {

using nlohmann::ordered_json;

const char* kPointer = "/serving/instances";

QString nodesText(const ordered_json& instance)
{
    QStringList nodes;
    if (const auto it = instance.find("nodes"); it != instance.end() && it->is_array())
        for (const auto& n : *it)
            nodes << (n.is_string() ? toQString(n.get<std::string>()) : toQString(n.dump()));
    return nodes.join(QStringLiteral(", "));
}

QString fieldText(const ordered_json& instance, const char* key)
{
    const auto it = instance.find(key);
    return it == instance.end() ? QString() : ScenarioFields::valueText(*it);
}

} // namespace

InstancesEditor::InstancesEditor(ScenarioDocument* document, QWidget* parent)
    : QWidget(parent)
    , m_document(document)
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_explicit = new QCheckBox(tr("Explicit instances"), this);
    m_explicit->setToolTip(tr("Off: one prefill instance per node with role prefill, one decode instance per node "
                              "with role decode (both: one of each). On: list them yourself, e.g. a "
                              "tensor-parallel group of several nodes, or limits of their own."));
    connect(m_explicit, &QCheckBox::toggled, this, &InstancesEditor::setExplicit);
    layout->addWidget(m_explicit);

    m_table = new QTableWidget(0, ColumnCount, this);
    m_table->setObjectName(QString::fromLatin1(kPointer)); // where a problem of an instance leads
    m_table->setHorizontalHeaderLabels({tr("Id"), tr("Role"), tr("Nodes"), tr("Max batch"), tr("Max batch tokens")});
    m_table->horizontalHeaderItem(Nodes)->setToolTip(tr("Node ids, comma separated: several nodes form a "
                                                        "tensor-parallel group (compute and memory add up)"));
    m_table->horizontalHeaderItem(MaxBatchTokens)->setToolTip(tr("Prefill only; empty: the serving section's"));
    m_table->horizontalHeaderItem(MaxBatchSize)->setToolTip(tr("Empty: the serving section's limit for the role"));
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setSectionResizeMode(Nodes, QHeaderView::Stretch);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setMinimumHeight(120);
    // Committing rebuilds the table (the document refreshes every view), so it runs after the edit's signal has
    // returned, never under the item or combo box that sent it.
    connect(m_table, &QTableWidget::itemChanged, this, [this] {
        if (!m_refreshing)
            QMetaObject::invokeMethod(this, &InstancesEditor::commitTable, Qt::QueuedConnection);
    });
    connect(m_table, &QTableWidget::itemSelectionChanged, this, &InstancesEditor::updateButtons);
    layout->addWidget(m_table);

    auto* buttons = new QHBoxLayout;
    m_add = new QPushButton(tr("Add"), this);
    m_remove = new QPushButton(tr("Remove"), this);
    connect(m_add, &QPushButton::clicked, this, &InstancesEditor::addInstance);
    connect(m_remove, &QPushButton::clicked, this, &InstancesEditor::removeSelected);
    buttons->addWidget(m_add);
    buttons->addWidget(m_remove);
    buttons->addStretch(1);
    layout->addLayout(buttons);
    refresh();
}

ordered_json InstancesEditor::derivedInstances(const ordered_json& scenario)
{
    // Core derives them (the same call validation makes); only the ids and roles it reads come from the JSON,
    // so a topology with problems elsewhere still gives the list.
    std::vector<core::Node> nodes;
    const auto json = scenario.value("/topology/nodes"_json_pointer, ordered_json::array());
    for (const auto& n : json) {
        if (!n.is_object() || !n.contains("id") || !n["id"].is_string())
            continue;
        core::Node node;
        node.id = n["id"].get<std::string>();
        const auto role = n.find("role");
        if (role != n.end() && role->is_string())
            node.role = core::enumFromString<core::NodeRole>(role->get<std::string>()).value_or(core::NodeRole::None);
        nodes.push_back(std::move(node));
    }
    ordered_json instances = ordered_json::array();
    for (const core::InstanceSpec& instance : core::instancesFromNodeRoles(nodes))
        instances.push_back({{"id", instance.id}, {"role", core::toString(instance.role)}, {"nodes", instance.nodes}});
    return instances;
}

void InstancesEditor::refresh()
{
    m_refreshing = true;
    const auto value = m_document->value(kPointer);
    const bool on = value.has_value();
    {
        const QSignalBlocker blocker(m_explicit);
        m_explicit->setChecked(on);
    }
    m_table->setRowCount(0);
    if (on && value->is_array()) {
        m_table->setRowCount(static_cast<int>(value->size()));
        for (int r = 0; r < static_cast<int>(value->size()); ++r) {
            const ordered_json& instance = (*value)[static_cast<std::size_t>(r)];
            const ordered_json object = instance.is_object() ? instance : ordered_json::object();
            m_table->setItem(r, Id, new QTableWidgetItem(toQString(object.value("id", std::string()))));
            auto* role = new QComboBox(m_table);
            role->addItems({QStringLiteral("prefill"), QStringLiteral("decode")});
            role->setCurrentText(toQString(object.value("role", std::string("decode"))));
            connect(role, &QComboBox::activated, this,
                    [this] { QMetaObject::invokeMethod(this, &InstancesEditor::commitTable, Qt::QueuedConnection); });
            m_table->setCellWidget(r, Role, role);
            m_table->setItem(r, Nodes, new QTableWidgetItem(nodesText(object)));
            m_table->setItem(r, MaxBatchSize, new QTableWidgetItem(fieldText(object, "max_batch_size")));
            m_table->setItem(r, MaxBatchTokens, new QTableWidgetItem(fieldText(object, "max_batch_tokens")));
        }
    }
    m_table->setEnabled(on);
    m_refreshing = false;
    updateButtons();
}

void InstancesEditor::updateButtons()
{
    const bool on = m_explicit->isChecked();
    m_add->setEnabled(on);
    m_remove->setEnabled(on && !m_table->selectionModel()->selectedRows().isEmpty());
}

void InstancesEditor::setExplicit(bool on)
{
    if (on)
        m_document->setValue(kPointer, derivedInstances(m_document->json()), tr("List serving instances"));
    else
        m_document->removeValue(kPointer, tr("Derive serving instances from node roles"));
}

void InstancesEditor::addInstance()
{
    auto array = m_document->value(kPointer).value_or(ordered_json::array());
    if (!array.is_array())
        array = ordered_json::array();
    // A decode instance on no node yet: Problems asks for its nodes until the user names them.
    array.push_back(
        {{"id", "decode" + std::to_string(array.size())}, {"role", "decode"}, {"nodes", ordered_json::array()}});
    m_document->setValue(kPointer, std::move(array), tr("Add serving instance"));
}

void InstancesEditor::removeSelected()
{
    auto array = m_document->value(kPointer).value_or(ordered_json::array());
    if (!array.is_array())
        return;
    QList<int> rows;
    for (const QModelIndex& index : m_table->selectionModel()->selectedRows())
        rows << index.row();
    std::sort(rows.begin(), rows.end(), std::greater<>());
    for (int r : rows)
        if (r < static_cast<int>(array.size()))
            array.erase(array.begin() + r);
    m_document->setValue(kPointer, std::move(array), tr("Remove serving instance"));
}

void InstancesEditor::commitTable()
{
    auto before = m_document->value(kPointer).value_or(ordered_json::array());
    ordered_json array = ordered_json::array();
    for (int r = 0; r < m_table->rowCount(); ++r) {
        // Keys the table does not show (a hand-written note, say) stay as they were.
        ordered_json instance =
            before.is_array() && r < static_cast<int>(before.size()) && before[static_cast<std::size_t>(r)].is_object()
                ? before[static_cast<std::size_t>(r)]
                : ordered_json::object();
        const auto text = [&](int column) {
            const QTableWidgetItem* item = m_table->item(r, column);
            return item ? item->text().trimmed() : QString();
        };
        if (text(Id).isEmpty())
            instance.erase("id");
        else
            instance["id"] = toStdString(text(Id));
        if (const auto* role = qobject_cast<QComboBox*>(m_table->cellWidget(r, Role)))
            instance["role"] = toStdString(role->currentText());
        ordered_json nodes = ordered_json::array();
        for (const QString& n : text(Nodes).split(QLatin1Char(','), Qt::SkipEmptyParts))
            if (!n.trimmed().isEmpty())
                nodes.push_back(toStdString(n.trimmed()));
        instance["nodes"] = std::move(nodes);
        for (const auto& [column, key] :
             {std::pair{MaxBatchSize, "max_batch_size"}, {MaxBatchTokens, "max_batch_tokens"}}) {
            if (text(column).isEmpty())
                instance.erase(key);
            else
                instance[key] = ScenarioFields::parseValue(text(column));
        }
        array.push_back(std::move(instance));
    }
    if (array != before)
        m_document->setValue(kPointer, std::move(array), tr("Edit serving instances"));
}

void InstancesEditor::showProblems(const std::vector<core::InputProblem>& problems)
{
    markField(m_explicit, problemsAt(problems, kPointer));
    const QSignalBlocker blocker(m_table); // colouring a cell is no edit
    // The application's palette: on a palette change this runs before a top-level window has heard of it.
    const QPalette palette = QApplication::palette(m_table);
    const QColor error = toneColor(Tone::Error, palette, palette.color(QPalette::Base));
    for (int r = 0; r < m_table->rowCount(); ++r) {
        const std::string row = std::string(kPointer) + "/" + std::to_string(r);
        if (QWidget* role = m_table->cellWidget(r, Role))
            markField(role, problemsAt(problems, row + "/role"));
        for (const auto& [column, key] :
             {std::pair{Id, "id"}, std::pair{Nodes, "nodes"}, std::pair{MaxBatchSize, "max_batch_size"},
              std::pair{MaxBatchTokens, "max_batch_tokens"}}) {
            QTableWidgetItem* item = m_table->item(r, column);
            if (!item)
                continue;
            // The id cell also answers for the instance as a whole; the nodes cell for each node it lists.
            QStringList found =
                column == Nodes ? problemsUnder(problems, row + "/" + key) : problemsAt(problems, row + "/" + key);
            if (column == Id)
                found = problemsAt(problems, row) + found;
            item->setForeground(found.isEmpty() ? QBrush() : QBrush(error));
            item->setToolTip(found.join(QLatin1Char('\n')));
        }
    }
}

} // namespace coh::ui
