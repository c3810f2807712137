#include "core/store/run_store.h"

#include "core/scenario/input_error.h"
#include "core/store/process_probe.h"
#include "core/store/run_serialization.h"
#include "core/store/schema.h"

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Statement.h>
#include <SQLiteCpp/Transaction.h>
#include <fmt/chrono.h>
#include <fmt/format.h>
#include <sqlite3.h>

#include <chrono>
#include <ctime>
#include <stdexcept>

namespace coh::core {

namespace {

constexpr int kBusyTimeoutMs = 5000;

constexpr const char* kRunInfoColumns =
    "id, name, scenario_name, seed, version, backend, status, error, created_at, finished_at, pid, host, "
    "summary_json IS NOT NULL, requests, ttft_p50_ms, ttft_p99_ms, tpot_p50_ms, tpot_p99_ms, throughput_tok_s, "
    "goodput_req_s, events, wall_s, messages_total";

std::string utcNow()
{
    return fmt::format("{:%Y-%m-%dT%H:%M:%SZ}", fmt::gmtime(std::time(nullptr)));
}

std::string textOrEmpty(const SQLite::Column& c)
{
    return c.isNull() ? std::string{} : c.getString();
}

RunInfo readRunInfo(SQLite::Statement& q)
{
    RunInfo info;
    info.id = q.getColumn(0).getInt64();
    info.name = q.getColumn(1).getString();
    info.scenarioName = q.getColumn(2).getString();
    info.seed = static_cast<std::uint64_t>(q.getColumn(3).getInt64());
    info.version = q.getColumn(4).getString();
    info.backend = q.getColumn(5).getString();
    // The CHECK constraint admits only known statuses; Interrupted is the honest reading of anything else.
    info.status = parseRunStatus(q.getColumn(6).getString()).value_or(RunStatus::Interrupted);
    info.error = textOrEmpty(q.getColumn(7));
    info.createdAt = q.getColumn(8).getString();
    info.finishedAt = textOrEmpty(q.getColumn(9));
    info.pid = q.getColumn(10).getInt64();
    info.host = textOrEmpty(q.getColumn(11));
    info.hasSummary = q.getColumn(12).getInt() != 0;
    info.requests = static_cast<std::uint64_t>(q.getColumn(13).getInt64());
    info.ttftP50Ms = q.getColumn(14).getDouble();
    info.ttftP99Ms = q.getColumn(15).getDouble();
    info.tpotP50Ms = q.getColumn(16).getDouble();
    info.tpotP99Ms = q.getColumn(17).getDouble();
    info.throughputTokensPerSec = q.getColumn(18).getDouble();
    info.goodputRequestsPerSec = q.getColumn(19).getDouble();
    info.events = static_cast<std::uint64_t>(q.getColumn(20).getInt64());
    info.wallSeconds = q.getColumn(21).getDouble();
    info.messagesTotal = static_cast<std::uint64_t>(q.getColumn(22).getInt64());
    return info;
}

std::string nameFromScenarioJson(const std::string& scenarioJson)
{
    const auto j = nlohmann::ordered_json::parse(scenarioJson, nullptr, /*allow_exceptions=*/false);
    if (j.is_object()) {
        const auto it = j.find("name");
        if (it != j.end() && it->is_string())
            return it->get<std::string>();
    }
    return {};
}

nlohmann::ordered_json parseStoredJson(const std::string& path, const std::string& text, const char* column)
{
    auto j = nlohmann::ordered_json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded())
        throw InputError(path, column, "the stored JSON is not valid (the database is corrupt)",
                         "delete this run, or move the database away");
    return j;
}

} // namespace

const char* toString(RunStatus status)
{
    switch (status) {
    case RunStatus::Running:
        return "running";
    case RunStatus::Completed:
        return "completed";
    case RunStatus::Failed:
        return "failed";
    case RunStatus::Cancelled:
        return "cancelled";
    case RunStatus::Interrupted:
        return "interrupted";
    }
    return "?";
}

std::optional<RunStatus> parseRunStatus(std::string_view text)
{
    for (auto s :
         {RunStatus::Running, RunStatus::Completed, RunStatus::Failed, RunStatus::Cancelled, RunStatus::Interrupted}) {
        if (text == toString(s))
            return s;
    }
    return std::nullopt;
}

RunStore::RunStore(const std::string& path)
    : m_path(path)
{
    try {
        m_db = std::make_unique<SQLite::Database>(path, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    } catch (const SQLite::Exception& e) {
        throw InputError(path, "", fmt::format("cannot open the run database: {}", e.what()),
                         "check that its folder exists and is writable, or pass --db with another path");
    }
    try {
        configureConnection();
        migrateRunDatabase(*m_db, m_path);
        markInterruptedRuns();
    } catch (const SQLite::Exception& e) {
        // SQLite opens lazily: a file of garbage bytes only fails at the first statement.
        const int code = e.getErrorCode() & 0xFF;
        if (code == SQLITE_NOTADB || code == SQLITE_CORRUPT)
            throw InputError(path, "", "the file is not a Coherence Studio run database (or is corrupt)",
                             "move it away or pass --db with another path");
        throw InputError(path, "", fmt::format("cannot use the run database: {}", e.what()),
                         "check that the file and its folder are writable, or pass --db with another path");
    }
}

RunStore::~RunStore() = default;

void RunStore::configureConnection()
{
    m_db->setBusyTimeout(kBusyTimeoutMs);
    m_db->exec("PRAGMA foreign_keys = ON");
    // WAL: readers (the GUI's run list) never block the writer finishing a run. With WAL, synchronous=NORMAL
    // cannot corrupt the file; at worst a power cut loses the last committed transaction.
    m_db->execAndGet("PRAGMA journal_mode = WAL");
    m_db->exec("PRAGMA synchronous = NORMAL");
}

void RunStore::markInterruptedRuns()
{
    SQLite::Statement running(*m_db, "SELECT id, pid, host, process_start FROM runs WHERE status = ?");
    running.bind(1, toString(RunStatus::Running));
    std::vector<std::pair<std::int64_t, std::int64_t>> dead; // id, pid
    const std::string host = currentHostName();
    while (running.executeStep()) {
        const std::string runHost = textOrEmpty(running.getColumn(2));
        if (!runHost.empty() && runHost != host)
            continue; // another machine's process: we cannot tell whether it is alive
        const std::int64_t pid = running.getColumn(1).getInt64();
        if (!processAlive(pid, textOrEmpty(running.getColumn(3))))
            dead.emplace_back(running.getColumn(0).getInt64(), pid);
    }
    if (dead.empty())
        return;

    SQLite::Transaction transaction(*m_db, SQLite::TransactionBehavior::IMMEDIATE);
    SQLite::Statement mark(*m_db, "UPDATE runs SET status = ?, error = ? WHERE id = ? AND status = ?");
    for (const auto& [id, pid] : dead) {
        mark.bind(1, toString(RunStatus::Interrupted));
        mark.bind(2, fmt::format("the process that ran it (pid {}) ended before the run finished", pid));
        mark.bind(3, id);
        mark.bind(4, toString(RunStatus::Running));
        mark.exec();
        mark.reset();
    }
    transaction.commit();
}

std::int64_t RunStore::beginRun(const std::string& name, const std::string& scenarioJson, std::uint64_t seed,
                                const std::string& backend)
{
    SQLite::Statement insert(*m_db, "INSERT INTO runs (name, scenario_name, scenario_json, seed, version, backend, "
                                    "status, created_at, pid, host, process_start) "
                                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
    const std::int64_t pid = currentProcessId();
    insert.bind(1, name);
    insert.bind(2, nameFromScenarioJson(scenarioJson));
    insert.bind(3, scenarioJson);
    insert.bind(4, static_cast<std::int64_t>(seed));
    insert.bind(5, COH_VERSION);
    insert.bind(6, backend);
    insert.bind(7, toString(RunStatus::Running));
    insert.bind(8, utcNow());
    insert.bind(9, pid);
    insert.bind(10, currentHostName());
    insert.bind(11, processStartToken(pid));
    insert.exec(); // autocommit: the row is visible to other processes at once
    return m_db->getLastInsertRowid();
}

void RunStore::completeRun(std::int64_t id, const RunResult& result)
{
    SQLite::Transaction transaction(*m_db, SQLite::TransactionBehavior::IMMEDIATE);
    requireRunning(id);
    insertRunRows(*m_db, id, result, m_completeHook);

    const RunSummary& s = result.summary;
    SQLite::Statement update(*m_db, "UPDATE runs SET scenario_name = ?, seed = ?, status = ?, error = NULL, "
                                    "finished_at = ?, summary_json = ?, requests = ?, ttft_p50_ms = ?, "
                                    "ttft_p99_ms = ?, tpot_p50_ms = ?, tpot_p99_ms = ?, throughput_tok_s = ?, "
                                    "goodput_req_s = ?, events = ?, wall_s = ?, messages_total = ?, "
                                    "link_interval_ns = ?, node_ids_json = ?, link_ids_json = ?, "
                                    "instance_ids_json = ?, paths_json = ? WHERE id = ?");
    update.bind(1, result.scenarioName);
    update.bind(2, static_cast<std::int64_t>(result.seed));
    update.bind(3, toString(RunStatus::Completed));
    update.bind(4, utcNow());
    update.bind(5, toJson(s).dump());
    update.bind(6, static_cast<std::int64_t>(s.requests));
    update.bind(7, s.ttftMs.p50);
    update.bind(8, s.ttftMs.p99);
    update.bind(9, s.tpotMs.p50);
    update.bind(10, s.tpotMs.p99);
    update.bind(11, s.throughputTokensPerSec);
    update.bind(12, s.goodputRequestsPerSec);
    update.bind(13, static_cast<std::int64_t>(s.eventsExecuted));
    update.bind(14, s.wallSeconds);
    update.bind(15, static_cast<std::int64_t>(result.messagesTotal));
    update.bind(16, result.linkInterval);
    update.bind(17, nlohmann::ordered_json(result.nodeIds).dump());
    update.bind(18, nlohmann::ordered_json(result.linkIds).dump());
    update.bind(19, nlohmann::ordered_json(result.instanceIds).dump());
    update.bind(20, toJson(result.paths).dump());
    update.bind(21, id);
    update.exec();
    if (m_completeHook)
        m_completeHook("summary");
    transaction.commit();
}

void RunStore::failRun(std::int64_t id, RunStatus status, const std::string& error)
{
    if (status == RunStatus::Running || status == RunStatus::Completed)
        throw std::invalid_argument("failRun takes Failed, Cancelled or Interrupted; use completeRun to complete");
    SQLite::Transaction transaction(*m_db, SQLite::TransactionBehavior::IMMEDIATE);
    requireRunning(id);
    SQLite::Statement update(*m_db, "UPDATE runs SET status = ?, error = ?, finished_at = ? WHERE id = ?");
    update.bind(1, toString(status));
    update.bind(2, error);
    update.bind(3, utcNow());
    update.bind(4, id);
    update.exec();
    transaction.commit();
}

std::vector<RunInfo> RunStore::listRuns()
{
    SQLite::Statement q(*m_db, fmt::format("SELECT {} FROM runs ORDER BY id DESC", kRunInfoColumns));
    std::vector<RunInfo> runs;
    while (q.executeStep())
        runs.push_back(readRunInfo(q));
    return runs;
}

std::optional<RunInfo> RunStore::runInfo(std::int64_t id)
{
    SQLite::Statement q(*m_db, fmt::format("SELECT {} FROM runs WHERE id = ?", kRunInfoColumns));
    q.bind(1, id);
    if (!q.executeStep())
        return std::nullopt;
    return readRunInfo(q);
}

std::optional<RunSummary> RunStore::runSummary(std::int64_t id)
{
    SQLite::Statement q(*m_db, "SELECT summary_json FROM runs WHERE id = ? AND summary_json IS NOT NULL");
    q.bind(1, id);
    if (!q.executeStep())
        return std::nullopt;
    return summaryFromJson(parseStoredJson(m_path, q.getColumn(0).getString(), "runs.summary_json"));
}

std::optional<std::string> RunStore::scenarioJson(std::int64_t id)
{
    SQLite::Statement q(*m_db, "SELECT scenario_json FROM runs WHERE id = ?");
    q.bind(1, id);
    if (!q.executeStep())
        return std::nullopt;
    return q.getColumn(0).getString();
}

RunResult RunStore::loadRun(std::int64_t id)
{
    SQLite::Statement q(*m_db, "SELECT scenario_name, seed, summary_json, link_interval_ns, node_ids_json, "
                               "link_ids_json, instance_ids_json, paths_json, messages_total "
                               "FROM runs WHERE id = ?");
    q.bind(1, id);
    if (!q.executeStep())
        throwNoSuchRun(id);
    RunResult result;
    result.scenarioName = q.getColumn(0).getString();
    result.seed = static_cast<std::uint64_t>(q.getColumn(1).getInt64());
    // A run that never completed has no summary or lists: it loads as an empty result.
    if (!q.getColumn(2).isNull()) {
        const auto stored = [&](int column, const char* name) {
            return parseStoredJson(m_path, q.getColumn(column).getString(), name);
        };
        result.summary = summaryFromJson(stored(2, "runs.summary_json"));
        result.linkInterval = q.getColumn(3).getInt64();
        result.nodeIds = stringsFromJson(stored(4, "runs.node_ids_json"));
        result.linkIds = stringsFromJson(stored(5, "runs.link_ids_json"));
        result.instanceIds = stringsFromJson(stored(6, "runs.instance_ids_json"));
        result.paths = pathsFromJson(stored(7, "runs.paths_json"));
        result.messagesTotal = static_cast<std::uint64_t>(q.getColumn(8).getInt64());
    }
    loadRunRows(*m_db, id, result);
    return result;
}

RunStore::NodeBlocks RunStore::nodeBlocks(std::int64_t id)
{
    NodeBlocks out;
    SQLite::Statement q(*m_db, "SELECT link_interval_ns, node_ids_json FROM runs WHERE id = ? AND summary_json "
                               "IS NOT NULL");
    q.bind(1, id);
    if (!q.executeStep())
        return out;
    out.linkInterval = q.getColumn(0).getInt64();
    out.nodeIds = stringsFromJson(parseStoredJson(m_path, q.getColumn(1).getString(), "runs.node_ids_json"));
    out.series = loadNodeBlocks(*m_db, id);
    return out;
}

bool RunStore::deleteRun(std::int64_t id)
{
    // Child rows go with it (ON DELETE CASCADE, foreign_keys is on for every connection).
    SQLite::Statement q(*m_db, "DELETE FROM runs WHERE id = ?");
    q.bind(1, id);
    return q.exec() > 0;
}

bool RunStore::renameRun(std::int64_t id, const std::string& name)
{
    SQLite::Statement q(*m_db, "UPDATE runs SET name = ? WHERE id = ?");
    q.bind(1, name);
    q.bind(2, id);
    return q.exec() > 0;
}

void RunStore::requireRunning(std::int64_t id)
{
    SQLite::Statement q(*m_db, "SELECT status FROM runs WHERE id = ?");
    q.bind(1, id);
    if (!q.executeStep())
        throwNoSuchRun(id);
    const auto status = parseRunStatus(q.getColumn(0).getString()).value_or(RunStatus::Interrupted);
    if (status != RunStatus::Running)
        throw InputError(
            m_path, fmt::format("runs/{}", id),
            fmt::format("run {} is {}; only a running run can be completed or ended", id, toString(status)),
            "begin a new run");
}

void RunStore::throwNoSuchRun(std::int64_t id) const
{
    throw InputError(m_path, fmt::format("runs/{}", id), fmt::format("there is no run with id {}", id),
                     "list the stored runs with `cohsim runs list`");
}

} // namespace coh::core
