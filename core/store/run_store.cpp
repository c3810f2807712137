#include "core/store/run_store.h"

#include "core/base/input_error.h"
#include "core/store/busy_context.h"
#include "core/store/corruption_record.h"
#include "core/store/pending_results.h"
#include "core/store/pool_protocol.h"
#include "core/store/process_probe.h"
#include "core/store/run_record.h"
#include "core/store/run_serialization.h"
#include "core/store/run_store_guarded.h"
#include "core/store/sql_text.h"

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Statement.h>
#include <SQLiteCpp/Transaction.h>
#include <fmt/chrono.h>
#include <fmt/format.h>
#include <sqlite3.h>

#include <algorithm>
#include <ctime>
#include <filesystem>
#include <stdexcept>
#include <system_error>

namespace coh::core {

namespace {

constexpr const char* kRunInfoColumns =
    "id, name, scenario_name, seed, version, backend, status, error, created_at, finished_at, pid, host, "
    "summary_json IS NOT NULL, requests, ttft_p50_ms, ttft_p99_ms, tpot_p50_ms, tpot_p99_ms, throughput_tok_s, "
    "goodput_req_s, events, wall_s, messages_total, "
    // Read from the JSON columns with as little JSON work as a row allows: summing every run's kinds and
    // extracting each protocol apart made a listing of 1,000 runs take 70 ms instead of 15 (the History lists on
    // the GUI thread). json_valid keeps a damaged JSON column from failing the whole list.
    // The run's messages, the sum of its kinds' (traffic_counts.h): a summary in today's words (it has "flows")
    // states the sum as "messages"; an older one is summed here.
    "CASE WHEN json_valid(summary_json) THEN CASE WHEN json_type(summary_json, '$.flows') IS NOT NULL THEN "
    "json_extract(summary_json, '$.messages') ELSE (SELECT total(json_extract(value, '$.count')) FROM "
    "json_each(summary_json, '$.messages_by_kind')) END END, "
    // The scenario's protocols, as its small "coherence" object (readProtocols): one extraction per run.
    "CASE WHEN json_valid(scenario_json) THEN json_extract(scenario_json, '$.coherence') END, "
    "models_run";

// The protocols the scenario's "coherence" section names (its JSON text; empty when it has none): decode's,
// prefill's and each tier's, in the file's order ("cxl: sealed-lease, dram: msi-directory").
void readProtocols(const std::string& coherenceJson, RunInfo& info)
{
    const auto coherence = nlohmann::ordered_json::parse(coherenceJson, nullptr, /*allow_exceptions=*/false);
    if (!coherence.is_object())
        return;
    const auto text = [](const nlohmann::ordered_json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); };
    const auto named = [&](const char* key, std::string& out) {
        if (const auto it = coherence.find(key); it != coherence.end() && !it->is_null() && !text(*it).empty())
            out = text(*it);
    };
    named("decode", info.decodeProtocol);
    named("prefill", info.prefillProtocol);
    if (const auto tiers = coherence.find("tiers"); tiers != coherence.end() && tiers->is_object())
        for (const auto& [tier, protocol] : tiers->items())
            info.tierProtocols += (info.tierProtocols.empty() ? "" : ", ") + tier + ": " + text(protocol);
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
    info.flows = static_cast<std::uint64_t>(q.getColumn(22).getInt64());
    info.messages = static_cast<std::uint64_t>(q.getColumn(23).getInt64());
    readProtocols(textOrEmpty(q.getColumn(24)), info);
    info.modelsRun = q.getColumn(25).isNull() ? 0 : q.getColumn(25).getInt64();
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

void RunStore::requireWritable(const std::string& doing) const
{
    if (m_readOnly)
        throwReadOnly(m_path, doing);
    if (!m_corruption.empty())
        throwCorrupt(m_path, doing, m_corruption);
}

std::vector<std::string> RunStore::checkIntegrity(int limit)
{
    return guarded("check the run database", [&] {
        std::vector<std::string> problems;
        try {
            // The limit is this function's int, not text: nothing to bind or escape.
            SQLite::Statement check(*m_db, fmt::format("PRAGMA integrity_check({})", std::max(limit, 1)));
            while (check.executeStep())
                problems.push_back(check.getColumn(0).getString());
            if (problems.size() == 1 && problems[0] == "ok")
                problems.clear();
            SQLite::Statement keys(*m_db, "PRAGMA foreign_key_check");
            while (static_cast<int>(problems.size()) < limit && keys.executeStep())
                problems.push_back(fmt::format("a row of {} refers to a {} row that is not there",
                                               keys.getColumn(0).getString(), keys.getColumn(2).getString()));
        } catch (const SQLite::Exception& e) {
            const int code = e.getErrorCode() & 0xFF;
            if (code != SQLITE_CORRUPT && code != SQLITE_NOTADB)
                throw;
            problems.push_back(e.what());
        }
        // The full check is the last word, both ways: a sound file loses an earlier record of corruption.
        if (problems.empty()) {
            clearCorruptionRecord(m_path);
            m_corruption.clear();
        } else {
            foundCorruption(problems);
        }
        return problems;
    });
}

std::int64_t RunStore::beginRun(const std::string& name, const std::string& scenarioJson, std::uint64_t seed,
                                const std::string& backend)
{
    requireWritable("begin a run");
    requireSound("begin a run");
    return guarded("begin a run", [&] {
        return insertRunRow(name, scenarioJson, seed, backend); // autocommit: visible to other processes at once
    });
}

std::int64_t RunStore::insertRunRow(const std::string& name, const std::string& scenarioJson, std::uint64_t seed,
                                    const std::string& backend)
{
    SQLite::Statement insert(*m_db, "INSERT INTO runs (name, scenario_name, scenario_json, seed, version, "
                                    "backend, status, created_at, pid, host, process_start) "
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
    insert.exec();
    return m_db->getLastInsertRowid();
}

void RunStore::completeRun(std::int64_t id, const RunResult& result)
{
    const std::string doing = fmt::format("store the finished run {}", id);
    // The simulation is over and cannot be had again for free: whatever stops the commit (corruption, a lock
    // held past the timeout, a full disk, ...), keep the result where the next open will store it.
    // `markLost`: the database refused for want of space or I/O, so a small write to it may still go through; never
    // into a file found corrupt or read-only, nor after a lock wait (it would wait again).
    const auto keepResult = [&](bool markLost = false) {
        try {
            return fmt::format("its result is kept in {} and is stored the next time the database is opened (any "
                               "cohsim command on it, e.g. `cohsim runs list --db {}`)",
                               savePendingResult(m_path, id, result), m_path);
        } catch (const std::exception& keepError) {
            // Lost: say so in its row where a small write still goes through, or the next open would call it
            // interrupted ("the process that ran it ended"), which is not what happened.
            if (markLost) {
                try {
                    failRun(id, RunStatus::Failed,
                            fmt::format("it finished, but neither the database nor a file beside it could take its "
                                        "result ({}): the result is lost",
                                        keepError.what()));
                } catch (const std::exception&) {
                }
            }
            return fmt::format("keeping its result in {} failed too ({}): it is lost", pendingFile(m_path, id),
                               keepError.what());
        }
    };
    if (m_readOnly)
        throwReadOnly(m_path, doing, keepResult());
    try {
        if (!checkSound())
            throwCorrupt(m_path, doing, m_corruption, keepResult());
        SQLite::Transaction transaction(*m_db, SQLite::TransactionBehavior::IMMEDIATE);
        requireRunning(id);
        writeCompletedRun(*m_db, id, result, m_completeHook);
        transaction.commit();
    } catch (const SQLite::Exception& e) {
        const int code = e.getErrorCode() & 0xFF;
        if (code == SQLITE_CORRUPT || code == SQLITE_NOTADB)
            foundCorruption({e.what()});
        throwStoreError(m_path, e, doing, m_busy->last, keepResult(code == SQLITE_FULL || code == SQLITE_IOERR));
    }
}

void RunStore::failRun(std::int64_t id, RunStatus status, const std::string& error)
{
    if (status == RunStatus::Running || status == RunStatus::Completed)
        throw std::invalid_argument("failRun takes Failed, Cancelled or Interrupted; use completeRun to complete");
    const std::string doing = fmt::format("end run {} as {}", id, toString(status));
    requireWritable(doing);
    std::error_code exists;
    if (std::filesystem::exists(pendingFile(m_path, id), exists))
        throw InputError(m_path, fmt::format("runs/{}", id),
                         fmt::format("cannot {}: its finished result is kept in {}, waiting to be stored", doing,
                                     pendingFile(m_path, id)),
                         "open the database again (e.g. `cohsim runs list`) once no other process holds it");
    guarded(doing, [&] {
        SQLite::Transaction transaction(*m_db, SQLite::TransactionBehavior::IMMEDIATE);
        requireRunning(id);
        SQLite::Statement update(*m_db, "UPDATE runs SET status = ?, error = ?, finished_at = ? WHERE id = ?");
        update.bind(1, toString(status));
        update.bind(2, error);
        update.bind(3, utcNow());
        update.bind(4, id);
        update.exec();
        transaction.commit();
    });
}

std::vector<RunInfo> RunStore::listRuns()
{
    return guarded("list the runs", [&] {
        try {
            SQLite::Statement q(*m_db, fmt::format("SELECT {} FROM runs ORDER BY id DESC", kRunInfoColumns));
            std::vector<RunInfo> runs;
            while (q.executeStep())
                runs.push_back(readRunInfo(q));
            return runs;
        } catch (const SQLite::Exception& e) {
            const int code = e.getErrorCode() & 0xFF;
            if (code != SQLITE_CORRUPT && code != SQLITE_NOTADB)
                throw;
            // One damaged row (a page its long columns spill onto) stops the whole statement: list the runs by id,
            // which reads only the table's own pages, then each row alone, so the others still show.
            foundCorruption({e.what()});
            return listRunsRowByRow();
        }
    });
}

std::vector<RunInfo> RunStore::listRunsRowByRow()
{
    std::vector<std::int64_t> ids;
    SQLite::Statement list(*m_db, "SELECT id FROM runs ORDER BY id DESC");
    while (list.executeStep())
        ids.push_back(list.getColumn(0).getInt64());
    std::vector<RunInfo> runs;
    for (const std::int64_t id : ids) {
        try {
            SQLite::Statement q(*m_db, fmt::format("SELECT {} FROM runs WHERE id = ?", kRunInfoColumns));
            q.bind(1, id);
            if (q.executeStep())
                runs.push_back(readRunInfo(q));
        } catch (const SQLite::Exception& e) {
            RunInfo damaged;
            damaged.id = id;
            damaged.name = "(damaged)";
            damaged.status = RunStatus::Failed;
            damaged.error =
                fmt::format("its row cannot be read ({}); `cohsim db recover` copies the other runs", e.what());
            runs.push_back(std::move(damaged));
        }
    }
    return runs;
}

std::optional<RunInfo> RunStore::runInfo(std::int64_t id)
{
    return guarded(fmt::format("read run {}", id), [&]() -> std::optional<RunInfo> {
        SQLite::Statement q(*m_db, fmt::format("SELECT {} FROM runs WHERE id = ?", kRunInfoColumns));
        q.bind(1, id);
        if (!q.executeStep())
            return std::nullopt;
        return readRunInfo(q);
    });
}

std::optional<RunSummary> RunStore::runSummary(std::int64_t id)
{
    return guarded(fmt::format("read run {}", id), [&]() -> std::optional<RunSummary> {
        SQLite::Statement q(*m_db,
                            "SELECT summary_json, scenario_json FROM runs WHERE id = ? AND summary_json IS NOT NULL");
        q.bind(1, id);
        if (!q.executeStep())
            return std::nullopt;
        RunSummary s = summaryFromJson(parseStoredJson(m_path, q.getColumn(0).getString(), "runs.summary_json"));
        completePoolProtocol(s.prefixPool, q.getColumn(1).getString());
        return s;
    });
}

std::optional<std::string> RunStore::scenarioJson(std::int64_t id)
{
    return guarded(fmt::format("read run {}", id), [&]() -> std::optional<std::string> {
        SQLite::Statement q(*m_db, "SELECT scenario_json FROM runs WHERE id = ?");
        q.bind(1, id);
        if (!q.executeStep())
            return std::nullopt;
        return q.getColumn(0).getString();
    });
}

RunResult RunStore::loadRun(std::int64_t id)
{
    auto result = guarded(fmt::format("read run {}", id), [&] { return readStoredRun(*m_db, m_path, id); });
    if (!result)
        throwNoSuchRun(id);
    return std::move(*result);
}

RunStore::NodeBlocks RunStore::nodeBlocks(std::int64_t id)
{
    return guarded(fmt::format("read run {}", id), [&] {
        NodeBlocks out;
        SQLite::Statement q(*m_db, "SELECT link_interval_ns, node_ids_json FROM runs WHERE id = ? AND "
                                   "summary_json IS NOT NULL");
        q.bind(1, id);
        if (!q.executeStep())
            return out;
        out.linkInterval = q.getColumn(0).getInt64();
        out.nodeIds = stringsFromJson(parseStoredJson(m_path, q.getColumn(1).getString(), "runs.node_ids_json"));
        out.series = loadNodeBlocks(*m_db, id);
        return out;
    });
}

bool RunStore::deleteRun(std::int64_t id)
{
    const std::string doing = fmt::format("delete run {}", id);
    requireWritable(doing);
    const bool deleted = guarded(doing, [&] {
        // Child rows go with it (ON DELETE CASCADE, foreign_keys is on for every connection).
        SQLite::Statement q(*m_db, "DELETE FROM runs WHERE id = ?");
        q.bind(1, id);
        return q.exec() > 0;
    });
    return removePendingResult(m_path, id) || deleted;
}

bool RunStore::renameRun(std::int64_t id, const std::string& name)
{
    const std::string doing = fmt::format("rename run {}", id);
    requireWritable(doing);
    return guarded(doing, [&] {
        SQLite::Statement q(*m_db, "UPDATE runs SET name = ? WHERE id = ?");
        q.bind(1, name);
        q.bind(2, id);
        return q.exec() > 0;
    });
}

void RunStore::setModelsRun(std::int64_t simulated, std::int64_t real)
{
    const std::string doing = fmt::format("link run {} to the real run {} it models", simulated, real);
    requireWritable(doing);
    guarded(doing, [&] {
        SQLite::Statement q(*m_db, "UPDATE runs SET models_run = ? WHERE id = ? AND EXISTS "
                                   "(SELECT 1 FROM runs WHERE id = ?)");
        q.bind(1, real);
        q.bind(2, simulated);
        q.bind(3, real);
        if (q.exec() == 0)
            throw InputError(m_path, fmt::format("runs/{}", simulated),
                             fmt::format("run {} or run {} does not exist", simulated, real),
                             "link two runs of this database (`cohsim runs list`)");
    });
}

std::vector<std::int64_t> RunStore::modelsOf(std::int64_t real)
{
    return guarded(fmt::format("read the runs that model run {}", real), [&] {
        std::vector<std::int64_t> ids;
        SQLite::Statement q(*m_db, "SELECT id FROM runs WHERE models_run = ? ORDER BY id DESC");
        q.bind(1, real);
        while (q.executeStep())
            ids.push_back(q.getColumn(0).getInt64());
        return ids;
    });
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
