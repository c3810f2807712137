// How a RunStore opens a file: identify it before anything is written, connect (falling back to read-only), check
// it, then store results kept by earlier processes and mark runs of dead processes interrupted. The busy handler
// that waits for other processes' locks lives here too.
#include "core/store/busy_context.h"
#include "core/store/corruption_record.h"
#include "core/store/db_identity.h"
#include "core/store/pending_results.h"
#include "core/store/process_probe.h"
#include "core/store/run_record.h"
#include "core/store/schema.h"
#include "core/store/sql_text.h"

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Statement.h>
#include <SQLiteCpp/Transaction.h>
#include <fmt/format.h>
#include <sqlite3.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <iterator>
#include <system_error>
#include <thread>

namespace coh::core {

// Replaces sqlite3_busy_timeout: the same backoff, but it says once that it is waiting, can be told to stop,
// and remembers how long it waited for the error message.
int RunStore::onBusy(void* context, int count)
{
    using namespace std::chrono;
    constexpr int kDelaysMs[] = {1, 2, 5, 10, 15, 20, 25, 25, 25, 50, 50, 100};
    auto& busy = *static_cast<BusyContext*>(context);
    const RunStoreOptions& options = *busy.options;
    const auto now = steady_clock::now();
    if (count == 0) {
        busy.since = now;
        busy.last = {};
        if (options.onLockWait && options.busyTimeout.count() > 0) {
            try {
                options.onLockWait(fmt::format("{} is locked by another process; waiting up to {:g} s for it",
                                               busy.path, duration<double>(options.busyTimeout).count()));
            } catch (...) { // nothing may unwind through SQLite's C frames
            }
        }
    }
    const auto waited = now - busy.since;
    busy.last.seconds = duration<double>(waited).count();
    try {
        if (options.stopWaiting && options.stopWaiting()) {
            busy.last.abandoned = true;
            return 0;
        }
    } catch (...) {
        return 0;
    }
    if (waited >= options.busyTimeout)
        return 0;
    const std::size_t step = std::min(static_cast<std::size_t>(count), std::size(kDelaysMs) - 1);
    const steady_clock::duration delay = milliseconds(kDelaysMs[step]);
    std::this_thread::sleep_for(std::min(delay, steady_clock::duration(options.busyTimeout - waited)));
    busy.last.seconds = duration<double>(steady_clock::now() - busy.since).count();
    return 1;
}

RunStore::RunStore(const std::string& path, RunStoreOptions options)
    : m_path(path)
    , m_options(std::move(options))
    , m_busy(std::make_unique<BusyContext>())
{
    m_busy->path = m_path;
    m_busy->options = &m_options;
    // Nothing is written before the file is known to be ours (or new): WAL and migrations rewrite its header.
    const DatabaseFile kind = identifyDatabaseFile(path, {&RunStore::onBusy, m_busy.get(), &m_busy->last});
    try {
        openConnection(kind == DatabaseFile::Missing);
    } catch (const SQLite::Exception& e) {
        // A read-only folder: WAL cannot create its -wal/-shm files. With no -wal file the database file alone is
        // complete, so it can still be read (and only read) as immutable.
        const int code = e.getErrorCode() & 0xFF;
        std::error_code error;
        if ((code != SQLITE_CANTOPEN && code != SQLITE_READONLY) || kind != DatabaseFile::RunDatabase ||
            std::filesystem::exists(path + "-wal", error))
            throwStoreError(path, e, "open the run database", m_busy->last);
        try {
            openImmutable();
        } catch (const SQLite::Exception& immutableError) {
            throwStoreError(path, immutableError, "open the run database", m_busy->last);
        }
    }
    checkAtOpen();
    if (!m_readOnly && m_corruption.empty())
        doMaintenance();
    if (!m_corruption.empty() && !m_options.readCorrupt) // found by the full check before storing kept results
        throwCorrupt(m_path, "use the run database", m_corruption);
}

RunStore::~RunStore() = default;

void RunStore::openConnection(bool create)
{
    m_db = std::make_unique<SQLite::Database>(m_path, SQLite::OPEN_READWRITE | (create ? SQLite::OPEN_CREATE : 0));
    sqlite3_busy_handler(m_db->getHandle(), &RunStore::onBusy, m_busy.get());
    // SQLite opens a write-protected file read-only without a word; say so now rather than at the first write.
    m_readOnly = sqlite3_db_readonly(m_db->getHandle(), "main") == 1;
    m_db->exec("PRAGMA foreign_keys = ON");
    // Extra sanity checks on every b-tree page as it is read: a damaged page the open's check did not cover
    // fails as corrupt instead of being used.
    m_db->exec("PRAGMA cell_size_check = ON");
    if (m_readOnly) {
        requireCurrentSchema();
        return;
    }
    // WAL: readers (the GUI's run list) never block the writer finishing a run. With WAL, synchronous=NORMAL
    // cannot corrupt the file; at worst a power cut loses the last committed transaction.
    m_db->execAndGet("PRAGMA journal_mode = WAL");
    m_db->exec("PRAGMA synchronous = NORMAL");
    migrateRunDatabase(*m_db, m_path);
}

void RunStore::openImmutable()
{
    m_db =
        std::make_unique<SQLite::Database>(sqliteUri(m_path, "immutable=1"), SQLite::OPEN_READONLY | SQLite::OPEN_URI);
    m_readOnly = true;
    m_db->exec("PRAGMA cell_size_check = ON");
    requireCurrentSchema();
}

void RunStore::requireCurrentSchema()
{
    const int version = m_db->execAndGet("PRAGMA user_version").getInt();
    if (version < runStoreSchemaVersion())
        throwReadOnly(m_path, fmt::format("bring the run database from schema version {} to {}", version,
                                          runStoreSchemaVersion()));
}

std::vector<std::string> RunStore::quickCheck(const char* table)
{
    std::vector<std::string> problems;
    try {
        // The table name is one of this build's constants, never user input.
        SQLite::Statement q(*m_db, table ? fmt::format("PRAGMA quick_check({})", table) : "PRAGMA quick_check(10)");
        while (q.executeStep())
            problems.push_back(q.getColumn(0).getString());
        if (problems.size() == 1 && problems[0] == "ok")
            problems.clear();
    } catch (const SQLite::Exception& e) {
        const int code = e.getErrorCode() & 0xFF;
        if (code != SQLITE_CORRUPT && code != SQLITE_NOTADB)
            throwStoreError(m_path, e, "check the run database", m_busy->last);
        problems = {e.what()};
    }
    return problems;
}

void RunStore::foundCorruption(std::vector<std::string> problems)
{
    recordCorruption(m_path, problems);
    m_corruption = std::move(problems);
}

void RunStore::checkAtOpen()
{
    // A full quick_check reads every page (about 0.7 s of CPU for 300 stored runs, 211 MB: docs/run-store.md),
    // too slow for every open. At open: the `runs` table every command reads, and what an earlier full check
    // found (corruption_record.h); the full check runs before a new run is written (requireSound).
    std::vector<std::string> problems = quickCheck("runs");
    if (problems.empty()) {
        if (const auto record = readCorruptionRecord(m_path)) {
            if (record->current) {
                problems = record->problems;
            } else {
                // The file changed since it was found corrupt (recovered and moved in?): look again.
                problems = quickCheck(nullptr);
                m_fullyChecked = problems.empty();
                if (problems.empty())
                    clearCorruptionRecord(m_path);
            }
        }
    }
    if (problems.empty())
        return;
    foundCorruption(std::move(problems));
    if (!m_options.readCorrupt)
        throwCorrupt(m_path, "use the run database", m_corruption);
}

bool RunStore::checkSound()
{
    if (!m_fullyChecked && m_corruption.empty()) {
        auto problems = quickCheck(nullptr);
        if (!problems.empty())
            foundCorruption(std::move(problems));
        m_fullyChecked = true;
    }
    return m_corruption.empty();
}

void RunStore::requireSound(const std::string& doing)
{
    if (!checkSound())
        throwCorrupt(m_path, doing, m_corruption);
}

void RunStore::doMaintenance()
{
    try {
        importPendingResults();
        markInterruptedRuns();
        markInterruptedStudies();
    } catch (const SQLite::Exception& e) {
        const int code = e.getErrorCode() & 0xFF;
        if (code != SQLITE_BUSY && code != SQLITE_LOCKED)
            throwStoreError(m_path, e, "open the run database", m_busy->last);
        // Reading needs no lock: let the caller read, and leave the housekeeping to the next open.
        m_notices.push_back(fmt::format("{} is locked by another process: kept results and runs of ended "
                                        "processes are looked at the next time it is opened",
                                        m_path));
    }
}

void RunStore::importPendingResults()
{
    const auto pending = pendingRunIds(m_path);
    if (pending.empty())
        return;
    if (!checkSound())
        return; // nothing is stored into a corrupt file; the results wait for the recovered one
    for (const std::int64_t id : pending) {
        const std::string file = pendingFile(m_path, id);
        RunResult result;
        try {
            result = loadPendingResult(m_path, id);
        } catch (const std::exception& e) {
            m_notices.push_back(
                fmt::format("cannot read the kept result of run {} in {} ({}); it is left there", id, file, e.what()));
            continue;
        }
        SQLite::Transaction transaction(*m_db, SQLite::TransactionBehavior::IMMEDIATE);
        SQLite::Statement q(*m_db, "SELECT status FROM runs WHERE id = ?");
        q.bind(1, id);
        const std::string statusText = q.executeStep() ? q.getColumn(0).getString() : std::string("deleted");
        const auto status = parseRunStatus(statusText);
        q.reset();
        if (status == RunStatus::Running || status == RunStatus::Interrupted) {
            // Interrupted too: an older build (or a race with one) may have marked it before it was imported.
            writeCompletedRun(*m_db, id, result, {});
            transaction.commit();
            removePendingResult(m_path, id);
            m_notices.push_back(fmt::format("stored the finished run {} that was kept in {}", id, file));
        } else if (status == RunStatus::Completed) {
            transaction.commit();
            removePendingResult(m_path, id); // another process stored it first
        } else {
            transaction.commit();
            m_notices.push_back(fmt::format("run {} is {}, so its kept result in {} was not stored; delete the file "
                                            "if you do not need it",
                                            id, statusText, file));
        }
    }
}

void RunStore::markInterruptedRuns()
{
    SQLite::Statement running(*m_db, "SELECT id, pid, host, process_start FROM runs WHERE status = ?");
    running.bind(1, toString(RunStatus::Running));
    std::vector<std::pair<std::int64_t, std::int64_t>> dead; // id, pid
    const std::string host = currentHostName();
    const std::vector<std::int64_t> pending = pendingRunIds(m_path);
    while (running.executeStep()) {
        const std::int64_t id = running.getColumn(0).getInt64();
        const std::string runHost = textOrEmpty(running.getColumn(2));
        if (!runHost.empty() && runHost != host)
            continue; // another machine's process: we cannot tell whether it is alive
        // Its process finished it; the result waits in a pending file the import could not store yet.
        if (std::find(pending.begin(), pending.end(), id) != pending.end())
            continue;
        const std::int64_t pid = running.getColumn(1).getInt64();
        if (!processAlive(pid, textOrEmpty(running.getColumn(3))))
            dead.emplace_back(id, pid);
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

} // namespace coh::core
