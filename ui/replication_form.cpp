#include "ui/replication_form.h"

#include "core/scenario/enum_names.h"
#include "core/scenario/replica_nodes.h"
#include "core/scenario/scenario.h"
#include "ui/combo_choice.h"
#include "ui/document_strings.h"
#include "ui/field_edit.h"
#include "ui/field_problems.h"
#include "ui/qt_text.h"
#include "ui/scenario_document.h"
#include "ui/scenario_fields.h"

#include <QComboBox>
#include <QFormLayout>
#include <QListWidget>
#include <QSignalBlocker>

#include <algorithm>

namespace coh::ui {

namespace {

constexpr const char* kPointer = "/serving/replication";
constexpr const char* kNodesPointer = "/serving/replication/nodes";
const QString kFixed = QStringLiteral("fixed");
constexpr int kMaxVisibleRows = 6; // a longer list scrolls inside the form

} // namespace

ReplicationForm::ReplicationForm(ScenarioDocument* document, ScenarioFields* fields, QFormLayout* form, QWidget* page)
    : QObject(page)
    , m_document(document)
    , m_factor(fields->value("/serving/replication/factor", tr("replication factor"), QStringLiteral("1"), page))
    , m_placement(new QComboBox(page))
    , m_nodes(new QListWidget(page))
{
    const core::ReplicationSpec d;
    m_factor->setRemovesEmptyParent(true); // "replication": {} says nothing
    m_factor->setToolTip(tr("Copies of each sequence's KV on distinct nodes, the decode copy included (1: the "
                            "decode copy only); the section needs it"));
    form->addRow(tr("Replication factor"), m_factor);

    m_placement->setObjectName(QStringLiteral("/serving/replication/placement"));
    m_placement->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_placement->setMinimumContentsLength(8);
    m_placement->addItem(tr("(default: %1)").arg(toQString(core::toString(d.placement))), QString());
    for (const auto& name : core::enumNames<core::ReplicaPlacement>())
        m_placement->addItem(toQString(name), toQString(name));
    m_placement->setToolTip(tr("spread: each replica on the node farthest from the copies placed so far; nearest: "
                               "the nodes closest to the decode node; fixed: the nodes checked below, in order"));
    fields->watch(m_placement, "/serving/replication/placement");
    fields->watch(m_placement, kPointer); // what the section as a whole gets wrong (a protocol-less decode)
    form->addRow(tr("Replica placement"), m_placement);
    connect(m_placement, &QComboBox::activated, this, &ReplicationForm::setPlacement);

    m_nodes->setObjectName(QString::fromLatin1(kNodesPointer));
    m_nodes->setToolTip(tr("fixed: the nodes that hold the replicas, tried in the order they were checked (nodes "
                           "with HBM, DRAM or CXL memory)"));
    form->addRow(tr("Replica nodes"), m_nodes);
    connect(m_nodes, &QListWidget::itemChanged, this, &ReplicationForm::setNodes);
    refresh();
}

void ReplicationForm::refresh()
{
    const QString current = documentString(*m_document, "/serving/replication/placement");
    showChoice(m_placement, current);

    const QStringList listed = documentStrings(*m_document, kNodesPointer);
    QStringList offered;
    if (const auto topology = m_document->value("/topology"))
        for (const std::string& id : core::replicaCandidateIds(nlohmann::json(*topology)))
            offered << toQString(id);
    // A listed node that cannot hold KV (or is gone) stays visible, checked, so its problem can be unchecked away.
    for (const QString& id : listed)
        if (!offered.contains(id))
            offered << id;
    QStringList shown;
    for (int i = 0; i < m_nodes->count(); ++i)
        shown << m_nodes->item(i)->text();
    const QSignalBlocker blocker(m_nodes);
    if (shown != offered) {
        if (m_inItemChange) {
            // The item whose change this is may not be deleted under its own signal: rebuild once it returns.
            QMetaObject::invokeMethod(this, &ReplicationForm::refresh, Qt::QueuedConnection);
            return;
        }
        m_nodes->clear();
        for (const QString& id : offered) {
            auto* item = new QListWidgetItem(id, m_nodes);
            item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsUserCheckable);
        }
    }
    for (int i = 0; i < m_nodes->count(); ++i)
        m_nodes->item(i)->setCheckState(listed.contains(m_nodes->item(i)->text()) ? Qt::Checked : Qt::Unchecked);
    const int rows = std::clamp(m_nodes->count(), 1, kMaxVisibleRows);
    const int rowHeight = m_nodes->count() > 0 ? m_nodes->sizeHintForRow(0) : m_nodes->fontMetrics().height();
    m_nodes->setFixedHeight(rows * rowHeight + 2 * m_nodes->frameWidth());
    // The nodes belong to the fixed placement; a list the file gives elsewhere stays editable so it can be cleared.
    m_nodes->setEnabled(current == kFixed || !listed.isEmpty());
}

void ReplicationForm::showProblems(const std::vector<core::InputProblem>& problems)
{
    markField(m_nodes, problemsUnder(problems, kNodesPointer));
}

void ReplicationForm::setPlacement()
{
    const QString chosen = m_placement->currentData().toString();
    const auto v = m_document->value(kPointer);
    nlohmann::ordered_json next = v && v->is_object() ? *v : nlohmann::ordered_json::object();
    if (chosen.isEmpty())
        next.erase("placement");
    else
        next["placement"] = toStdString(chosen);
    // The nodes belong to the fixed placement alone: core refuses them with another.
    if (chosen != kFixed)
        next.erase("nodes");
    m_document->setSection(kPointer, std::move(next), tr("Edit replica placement"));
}

void ReplicationForm::setNodes(QListWidgetItem* changed)
{
    // Checking appends (the order says which nodes are tried first); unchecking removes.
    QStringList nodes = documentStrings(*m_document, kNodesPointer);
    const QString id = changed->text();
    nodes.removeAll(id);
    if (changed->checkState() == Qt::Checked)
        nodes << id;
    const auto v = m_document->value(kPointer);
    nlohmann::ordered_json next = v && v->is_object() ? *v : nlohmann::ordered_json::object();
    if (nodes.isEmpty()) {
        next.erase("nodes");
    } else {
        nlohmann::ordered_json list = nlohmann::ordered_json::array();
        for (const QString& node : nodes)
            list.push_back(toStdString(node));
        next["nodes"] = std::move(list);
    }
    m_inItemChange = true;
    m_document->setSection(kPointer, std::move(next), tr("Edit replica nodes"));
    m_inItemChange = false;
}

} // namespace coh::ui
