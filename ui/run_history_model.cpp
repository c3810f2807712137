#include "ui/run_history_model.h"

#include "core/serving/replayed_routes.h"
#include "ui/backend_description.h"
#include "ui/qt_text.h"

#include <QDateTime>
#include <QLocale>

#include <algorithm>

namespace coh::ui {

RunHistoryModel::RunHistoryModel(QObject* parent)
    : QAbstractTableModel(parent)
{
}

void RunHistoryModel::setDatabasePath(const QString& path)
{
    m_path = path;
    refresh();
}

void RunHistoryModel::setError(const QString& error)
{
    if (error == m_error)
        return;
    m_error = error;
    emit errorChanged(m_error);
}

void RunHistoryModel::refresh()
{
    std::vector<core::RunInfo> runs;
    QString error;
    if (!m_path.isEmpty()) {
        try {
            core::RunStore store(toStdString(m_path));
            runs = store.listRuns();
        } catch (const std::exception& e) {
            error = toQString(e.what());
        }
    }
    beginResetModel();
    m_runs = std::move(runs);
    m_details.clear();
    endResetModel();
    setError(error);
}

QString RunHistoryModel::runDetails(const core::RunInfo& run) const
{
    // A real run's mapping and measurements are in its stored summary: read once, when first pointed at.
    if (const auto it = m_details.find(run.id); it != m_details.end())
        return it->second;
    core::BackendSummary backend;
    backend.name = run.backend;
    std::vector<std::int64_t> models;    // simulated runs that model this real one (compare-real's)
    std::vector<core::CostVariant> kept; // what compare-real kept with the run (cost_variant.h)
    core::ReplayedRoutesSummary routes;  // a model that routed as its real run (compare-real --real-routes)
    if ((backend.real() || run.modelsRun != 0) && run.hasSummary) {
        try {
            core::RunStore store(toStdString(m_path));
            // A real run's measurements; a model's calibrated profile.
            if (const auto summary = store.runSummary(run.id)) {
                backend = summary->backend;
                routes = summary->replayedRoutes;
            }
            if (backend.real())
                models = store.modelsOf(run.id);
            kept = store.costVariants(run.id);
        } catch (const std::exception& e) {
            return toQString(e.what());
        }
    }
    // A real run and the simulated run that models it compare as the simulator's error: say which runs pair up.
    QString pairs;
    if (run.modelsRun != 0)
        pairs =
            tr("<p>It models real run #%1: select both and Compare for the simulator's error.</p>").arg(run.modelsRun);
    if (routes.on)
        pairs += tr("<p>It routed as the real run did: %1. Its error is that of its costs, not of the "
                    "routes a load-aware router took on other times.</p>")
                     .arg(toQString(core::describeReplayedRoutes(routes)).toHtmlEscaped());
    for (const std::int64_t model : models)
        pairs += tr("<p>Run #%1 models it: select both and Compare for the simulator's error.</p>").arg(model);
    // Compare shows these beside the error (docs/real-backend.md#kept-with-the-runs).
    if (const double moved = core::movedCostSensitivity(kept); moved > 0)
        pairs += tr("<p>Kept with it: the simulator with its costs moved up to %1% either way, which Compare shows as "
                    "the range of its error.</p>")
                     .arg(QLocale().toString(100 * moved, 'g', 3));
    if (core::ownCostsOf(kept))
        pairs += tr("<p>Kept with it: the simulator on this run's own costs, which Compare shows beside the "
                    "simulator's error.</p>");
    return m_details[run.id] = backendDescription(backend) + pairs;
}

int RunHistoryModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_runs.size());
}

int RunHistoryModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

const core::RunInfo* RunHistoryModel::runInfo(int row) const
{
    return row >= 0 && row < rowCount() ? &m_runs[static_cast<std::size_t>(row)] : nullptr;
}

qint64 RunHistoryModel::runId(int row) const
{
    const auto* info = runInfo(row);
    return info ? info->id : 0;
}

int RunHistoryModel::rowOfRun(qint64 id) const
{
    for (std::size_t i = 0; i < m_runs.size(); ++i)
        if (m_runs[i].id == id)
            return static_cast<int>(i);
    return -1;
}

QVariant RunHistoryModel::data(const QModelIndex& index, int role) const
{
    const core::RunInfo* run = index.isValid() ? runInfo(index.row()) : nullptr;
    if (!run)
        return {};
    if (role == RunIdRole)
        return QVariant::fromValue<qint64>(run->id);
    if (role == Qt::ToolTipRole && index.column() == Status && !run->error.empty())
        return toQString(run->error);
    if (role == DetailsRole)
        return runDetails(*run);
    if (role == Qt::ToolTipRole && index.column() == Name) // whole, where the column elides it
        return data(index, Qt::DisplayRole);
    // A real run's details run to dozens of lines, past a 700-pixel screen (where a tooltip is not shown at all):
    // the tooltip points to them.
    if (role == Qt::ToolTipRole && index.column() == Backend)
        return run->backend == "simulated" || run->backend.empty()
                   ? runDetails(*run)
                   : tr("<b>%1</b>: its mapping, copies, K/V rows and own costs are below the list when it is "
                        "selected")
                         .arg(toQString(run->backend).toHtmlEscaped());
    if (role == Qt::TextAlignmentRole)
        return index.column() < Seed || index.column() == Status || index.column() == Created
                   ? QVariant(Qt::AlignLeft | Qt::AlignVCenter)
                   : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    // EditRole keeps numbers whole so the proxy sorts them numerically; DisplayRole rounds the milliseconds.
    // Runs without a summary (running, failed, cancelled) show blanks, not zeros.
    if (role == Qt::DisplayRole && run->hasSummary) {
        switch (index.column()) {
        case TtftP50:
        case TtftP99:
        case TpotP50:
        case TpotP99:
            return QLocale().toString(data(index, Qt::EditRole).toDouble(), 'f', 2);
        case Throughput:
            return QLocale().toString(run->throughputTokensPerSec, 'f', 1);
        case Messages:
            return QLocale().toString(static_cast<qulonglong>(run->messages));
        case Flows:
            return QLocale().toString(static_cast<qulonglong>(run->flows));
        default:
            break;
        }
    }
    if (role != Qt::DisplayRole && role != Qt::EditRole)
        return {};
    const bool s = run->hasSummary;
    switch (static_cast<Column>(index.column())) {
    case Id:
        return QVariant::fromValue<qint64>(run->id);
    case Name:
        return toQString(run->name);
    case Scenario:
        return toQString(run->scenarioName);
    case DecodeProtocol:
        return toQString(run->decodeProtocol);
    case PrefillProtocol:
        return toQString(run->prefillProtocol);
    case TierProtocols:
        return toQString(run->tierProtocols);
    case Backend:
        return toQString(run->backend);
    case Seed:
        return QVariant::fromValue<qulonglong>(run->seed);
    case Status:
        return toQString(core::toString(run->status));
    case Created: {
        const QDateTime utc = QDateTime::fromString(toQString(run->createdAt), Qt::ISODate);
        return utc.isValid() ? utc.toLocalTime().toString(QStringLiteral("yyyy-MM-dd HH:mm:ss"))
                             : toQString(run->createdAt);
    }
    case Requests:
        return s ? QVariant::fromValue<qulonglong>(run->requests) : QVariant();
    case TtftP50:
        return s ? QVariant(run->ttftP50Ms) : QVariant();
    case TtftP99:
        return s ? QVariant(run->ttftP99Ms) : QVariant();
    case TpotP50:
        return s ? QVariant(run->tpotP50Ms) : QVariant();
    case TpotP99:
        return s ? QVariant(run->tpotP99Ms) : QVariant();
    case Throughput:
        return s ? QVariant(run->throughputTokensPerSec) : QVariant();
    case Messages:
        return s ? QVariant::fromValue<qulonglong>(run->messages) : QVariant();
    case Flows:
        return s ? QVariant::fromValue<qulonglong>(run->flows) : QVariant();
    case ColumnCount:
        break;
    }
    return {};
}

QVariant RunHistoryModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation == Qt::Horizontal && role == Qt::ToolTipRole)
        return headerToolTip(section);
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (static_cast<Column>(section)) {
    case Id:
        return tr("Id");
    case Name:
        return tr("Name");
    case Scenario:
        return tr("Scenario");
    case DecodeProtocol:
        return tr("Decode protocol");
    case PrefillProtocol:
        return tr("Prefill protocol");
    case TierProtocols:
        return tr("Tier protocols");
    case Backend:
        return tr("Backend");
    case Seed:
        return tr("Seed");
    case Status:
        return tr("Status");
    case Created:
        return tr("Created");
    case Requests:
        return tr("Requests");
    case TtftP50:
        return tr("TTFT p50 (ms)");
    case TtftP99:
        return tr("TTFT p99 (ms)");
    case TpotP50:
        return tr("TPOT p50 (ms)");
    case TpotP99:
        return tr("TPOT p99 (ms)");
    case Throughput:
        return tr("Throughput (tok/s)");
    case Messages:
        return tr("Messages");
    case Flows:
        return tr("Flows");
    case ColumnCount:
        break;
    }
    return {};
}

QString RunHistoryModel::headerToolTip(int section)
{
    switch (section) {
    case DecodeProtocol:
        return tr("The protocol of each sequence's KV blocks from prefill's write through the last decode step "
                  "(\"direct\": the plain prefill → decode copy)");
    case PrefillProtocol:
        return tr("The protocol of the blocks prefill instances share (the prefix pool's)");
    case TierProtocols:
        return tr("The protocol of the KV kept in each memory tier that names one");
    case Backend:
        return tr("What executed the run (\"simulated\": the discrete-event simulator; \"real-cpu\" and "
                  "\"real-cuda\": real copies and attention on this machine's CPU or GPU). Point at a run's backend "
                  "for what each node ran on and measured");
    case Messages:
        return tr("Protocol messages, one per KV block (the sum of the Replay legend)");
    case Flows:
        return tr("Network transfers that crossed a link: one flow carries a message for a group of blocks");
    default:
        return {};
    }
}

Qt::ItemFlags RunHistoryModel::flags(const QModelIndex& index) const
{
    Qt::ItemFlags f = QAbstractTableModel::flags(index);
    if (index.isValid() && index.column() == Name)
        f |= Qt::ItemIsEditable;
    return f;
}

bool RunHistoryModel::setData(const QModelIndex& index, const QVariant& value, int role)
{
    if (!index.isValid() || index.column() != Name || role != Qt::EditRole || index.row() >= rowCount())
        return false;
    const QString name = value.toString().trimmed();
    auto& run = m_runs[static_cast<std::size_t>(index.row())];
    if (name.isEmpty() || name == toQString(run.name))
        return false;
    // As cohsim's --name and `runs rename`: a tab or newline pasted in would break the CLI's listing of it.
    if (std::any_of(name.begin(), name.end(), [](QChar c) { return c.category() == QChar::Other_Control; })) {
        setError(tr("A run's name may not hold a control character (a tab, a newline): \u201c%1\u201d keeps its name.")
                     .arg(toQString(run.name)));
        return false;
    }
    try {
        core::RunStore store(toStdString(m_path));
        if (!store.renameRun(run.id, toStdString(name)))
            return false;
    } catch (const std::exception& e) {
        setError(toQString(e.what()));
        return false;
    }
    run.name = toStdString(name);
    emit dataChanged(index, index, {Qt::DisplayRole, Qt::EditRole});
    return true;
}

bool RunHistoryModel::deleteRun(qint64 id, QString* error)
{
    const int row = rowOfRun(id);
    if (row < 0)
        return false;
    try {
        core::RunStore store(toStdString(m_path));
        // A running run's worker still writes to it: deleting it would lose the run and fail the worker.
        if (const auto info = store.runInfo(id); info && info->status == core::RunStatus::Running) {
            if (error)
                *error =
                    tr("Run #%1 is still running: cancel it (Run > Cancel) or let it finish, then delete it.").arg(id);
            return false;
        }
        if (!store.deleteRun(id))
            return false;
    } catch (const std::exception& e) {
        if (error)
            *error = toQString(e.what());
        return false;
    }
    beginRemoveRows({}, row, row);
    m_runs.erase(m_runs.begin() + row);
    endRemoveRows();
    return true;
}

} // namespace coh::ui
