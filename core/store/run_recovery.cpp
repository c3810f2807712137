#include "core/store/run_recovery.h"

#include "core/base/input_error.h"
#include "core/store/db_identity.h"
#include "core/store/pending_results.h"
#include "core/store/run_record.h"
#include "core/store/run_store.h"
#include "core/store/schema.h"
#include "core/store/store_errors.h"

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Statement.h>
#include <SQLiteCpp/Transaction.h>
#include <fmt/format.h>
#include <sqlite3.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <system_error>

namespace coh::core {

namespace {

constexpr const char* kLostRowsError = "its requests, link series or event record were damaged; `cohsim db "
                                       "recover` kept only this row";

std::vector<std::string> columns(SQLite::Database& db, const std::string& schema, const std::string& table)
{
    // Both names are this file's constants (schema "main"/"old", tables from runStoreTables).
    SQLite::Statement q(db, fmt::format("PRAGMA {}.table_info({})", schema, table));
    std::vector<std::string> names;
    while (q.executeStep())
        names.push_back(q.getColumn(1).getString());
    return names;
}

// INSERT INTO main.t (a, b) SELECT a, b FROM old.t WHERE <key> = ?, over the columns both files have (an older
// file lacks later migrations' columns: they take their defaults), less `leftOut`; a column named in `mended` is
// selected as that expression instead (a value a CHECK would refuse, made one it takes).
std::string copyStatement(SQLite::Database& db, const std::string& table, const char* key,
                          const std::string& leftOut = {}, const std::map<std::string, std::string>& mended = {})
{
    const auto ours = columns(db, "main", table);
    const auto theirs = columns(db, "old", table);
    std::string into, from;
    for (const auto& column : ours) {
        if (column == leftOut || std::find(theirs.begin(), theirs.end(), column) == theirs.end())
            continue;
        if (!into.empty()) {
            into += ", ";
            from += ", ";
        }
        into += '"' + column + '"';
        const auto it = mended.find(column);
        from += it != mended.end() ? it->second : '"' + column + '"';
    }
    return fmt::format("INSERT INTO main.{0} ({1}) SELECT {2} FROM old.{0} WHERE {3} = ?", table, into, from, key);
}

void copyRows(SQLite::Database& db, const std::string& sql, std::int64_t id)
{
    SQLite::Statement q(db, sql);
    q.bind(1, id);
    q.exec();
}

bool hasTable(SQLite::Database& db, const char* schema, const std::string& table)
{
    SQLite::Statement has(
        db, fmt::format("SELECT count(*) FROM {}.sqlite_schema WHERE type = 'table' AND name = ?", schema));
    has.bind(1, table);
    return has.executeStep() && has.getColumn(0).getInt() > 0;
}

std::vector<std::int64_t> idsOf(SQLite::Database& db, const char* sql, std::string& error)
{
    std::vector<std::int64_t> ids;
    try {
        SQLite::Statement q(db, sql);
        while (q.executeStep())
            ids.push_back(q.getColumn(0).getInt64());
    } catch (const SQLite::Exception& e) {
        error = e.what();
    }
    return ids;
}

// A failure to write the new file (a full disk, an I/O error) ends the recovery: copying on would record sound runs
// as damaged, and the file is removed.
void stopOnWriteFailure(const std::string& to, const SQLite::Exception& e)
{
    // Only the codes of a write: the old file is read through the same connection, and its errors are its runs'.
    const int extended = e.getExtendedErrorCode();
    const bool full = (e.getErrorCode() & 0xFF) == SQLITE_FULL;
    if (full || extended == SQLITE_IOERR_WRITE || extended == SQLITE_IOERR_FSYNC ||
        extended == SQLITE_IOERR_DIR_FSYNC || extended == SQLITE_IOERR_TRUNCATE)
        throw InputError(to, "",
                         fmt::format("cannot write the recovered database: {}; nothing was recovered and the "
                                     "database being recovered was not changed",
                                     full ? "its disk is full" : e.what()),
                         full ? "free space on that disk, or recover into a file on another disk"
                              : "recover into a file on another disk");
}

void removeDatabaseFiles(const std::string& path)
{
    std::error_code ignored;
    for (const char* suffix : {"", "-wal", "-shm", "-journal"})
        std::filesystem::remove(path + suffix, ignored);
}

constexpr const char* kStatuses = "('running', 'completed', 'failed', 'cancelled', 'interrupted')";
constexpr const char* kUnlinkedPointError = "its run could not be recovered by `cohsim db recover`; the study measures "
                                            "it again";
constexpr const char* kEditedStatusError =
    "its stored status was not one a run has; `cohsim db recover` kept it as failed";

struct Recovery {
    SQLite::Database& db;
    const std::string& from;
    const std::string& to;
    RecoveryReport& report;

    void runs();
    void links(const std::vector<std::pair<std::int64_t, std::int64_t>>& models);
    void pendingResults();
    void studies();
};

void Recovery::runs()
{
    std::vector<std::int64_t> ids = idsOf(db, "SELECT id FROM old.runs ORDER BY id", report.runsTableError);
    if (!report.runsTableError.empty()) {
        // The scan stopped at a damaged page: the runs beyond it may still be read from the other end.
        std::string fromTheEnd;
        for (const std::int64_t id : idsOf(db, "SELECT id FROM old.runs ORDER BY id DESC", fromTheEnd))
            if (std::find(ids.begin(), ids.end(), id) == ids.end())
                ids.push_back(id);
        std::sort(ids.begin(), ids.end());
    }
    if (ids.empty() && !report.runsTableError.empty())
        throw InputError(from, "",
                         fmt::format("not one run can be listed: the list of runs is damaged ({}), so nothing could "
                                     "be recovered",
                                     report.runsTableError),
                         "keep this file and restore the run database from a backup");
    // The link from a simulated run to the real run it models is made once both are copied: a run is not lost
    // for a link to one that was.
    const auto oldColumns = columns(db, "old", "runs");
    const bool linked = std::ranges::find(oldColumns, std::string("models_run")) != oldColumns.end();
    // A status no run database holds (the file was edited) is kept as failed, saying why, rather than losing the
    // run to the CHECK; nothing else is let past a CHECK.
    const std::string statusOk = fmt::format("status IN {}", kStatuses);
    const std::string runRow =
        copyStatement(db, "runs", "id", "models_run",
                      {{"status", fmt::format("CASE WHEN {} THEN status ELSE 'failed' END", statusOk)},
                       {"error", fmt::format("CASE WHEN {} THEN error ELSE '{}' END", statusOk, kEditedStatusError)}});
    // Child tables the old file has (node_blocks only from schema 4 on). Studies come after the runs.
    // The simulator's figures on other costs (cost_variants) are a comparison's, not the run's: copied apart, so
    // that damage to them costs the run nothing.
    std::vector<std::string> childRows;
    std::string figureRows;
    for (const auto& table : runStoreTables(runStoreSchemaVersion())) {
        if (table == "studies" || table == "study_points" || table == "runs" || !hasTable(db, "old", table))
            continue;
        if (table == "cost_variants")
            figureRows = copyStatement(db, table, "run_id");
        else
            childRows.push_back(copyStatement(db, table, "run_id"));
    }
    const auto copyFigures = [&](std::int64_t id) {
        if (figureRows.empty())
            return;
        try {
            SQLite::Transaction transaction(db);
            copyRows(db, figureRows, id);
            transaction.commit();
        } catch (const SQLite::Exception& e) {
            stopOnWriteFailure(to, e);
            report.figuresLost.emplace_back(id, e.what());
        }
    };
    std::vector<std::pair<std::int64_t, std::int64_t>> models;
    for (const std::int64_t id : ids) {
        if (linked) {
            try {
                SQLite::Statement q(db, "SELECT models_run FROM old.runs WHERE id = ? AND models_run IS NOT NULL");
                q.bind(1, id);
                if (q.executeStep())
                    models.emplace_back(id, q.getColumn(0).getInt64());
            } catch (const SQLite::Exception&) {
                // the row is damaged: its copy below says so
            }
        }
        std::string whyChildren;
        try {
            SQLite::Transaction transaction(db);
            copyRows(db, runRow, id);
            for (const auto& sql : childRows)
                copyRows(db, sql, id);
            transaction.commit();
            report.recovered.push_back(id);
            copyFigures(id);
            continue;
        } catch (const SQLite::Exception& e) {
            stopOnWriteFailure(to, e);
            whyChildren = e.what();
        }
        try {
            SQLite::Transaction transaction(db);
            copyRows(db, runRow, id);
            SQLite::Statement mark(db, "UPDATE runs SET status = 'failed', error = ? WHERE id = ?");
            mark.bind(1, kLostRowsError);
            mark.bind(2, id);
            mark.exec();
            transaction.commit();
            report.partial.emplace_back(id, whyChildren);
            copyFigures(id);
        } catch (const SQLite::Exception& e) {
            stopOnWriteFailure(to, e);
            report.lost.emplace_back(id, e.what());
        }
    }
    links(models);
}

void Recovery::links(const std::vector<std::pair<std::int64_t, std::int64_t>>& models)
{
    for (const auto& [simulated, real] : models) {
        try {
            SQLite::Statement q(db, "UPDATE runs SET models_run = ? WHERE id = ? AND EXISTS "
                                    "(SELECT 1 FROM runs WHERE id = ?)");
            q.bind(1, real);
            q.bind(2, simulated);
            q.bind(3, real);
            q.exec();
        } catch (const SQLite::Exception& e) {
            stopOnWriteFailure(to, e); // otherwise the link is dropped: the runs themselves are copied
        }
    }
}

void Recovery::pendingResults()
{
    for (const std::int64_t id : pendingRunIds(from)) {
        RunResult result;
        try {
            result = loadPendingResult(from, id);
        } catch (const std::exception&) {
            continue; // it stays beside the original, which says so when opened
        }
        try {
            SQLite::Transaction transaction(db);
            SQLite::Statement q(db, "SELECT status, error FROM runs WHERE id = ?");
            q.bind(1, id);
            if (!q.executeStep())
                continue;
            const std::string status = q.getColumn(0).getString();
            const bool damaged = status == "failed" && q.getColumn(1).getString() == kLostRowsError;
            q.reset();
            if (status != "running" && status != "interrupted" && !damaged)
                continue;
            for (const auto& table : runStoreTables(runStoreSchemaVersion()))
                if (table != "runs" && table != "studies" && table != "study_points" && table != "cost_variants") {
                    SQLite::Statement clear(db, fmt::format("DELETE FROM {} WHERE run_id = ?", table));
                    clear.bind(1, id);
                    clear.exec();
                }
            writeCompletedRun(db, id, result, {});
            transaction.commit();
            report.pendingStored.push_back(id);
        } catch (const SQLite::Exception& e) {
            stopOnWriteFailure(to, e);
            report.pendingFailed.emplace_back(id, e.what());
        } catch (
            const std::exception& e) { // a damaged side file's text (invalid UTF-8), a stored value of another shape
            report.pendingFailed.emplace_back(id, e.what());
        }
    }
}

void Recovery::studies()
{
    if (!hasTable(db, "old", "studies"))
        return;
    const std::vector<std::int64_t> ids = idsOf(db, "SELECT id FROM old.studies ORDER BY id", report.studiesTableError);
    const std::string studyRow =
        copyStatement(db, "studies", "id", {},
                      {{"status", fmt::format("CASE WHEN status IN {} THEN status ELSE 'failed' END", kStatuses)}});
    // A point whose run is not in the copy keeps its values, as a failed point (the study measures it again), saying
    // why; an error kind no study writes is taken as failed.
    const std::string pointRows = copyStatement(
        db, "study_points", "study_id", {},
        {{"run_id", "CASE WHEN run_id IN (SELECT id FROM main.runs) THEN run_id END"},
         {"error", fmt::format("CASE WHEN run_id IS NULL OR run_id IN (SELECT id FROM main.runs) THEN error ELSE '{}' "
                               "END",
                               kUnlinkedPointError)},
         {"error_kind", "CASE WHEN run_id IS NOT NULL AND run_id NOT IN (SELECT id FROM main.runs) THEN 'failed' "
                        "WHEN error_kind IS NULL OR error_kind IN ('invalid', 'failed') THEN error_kind ELSE 'failed' "
                        "END"}});
    const std::string unlinkedPoints =
        "SELECT count(*) FROM old.study_points WHERE study_id = ? AND run_id IS NOT NULL "
        "AND run_id NOT IN (SELECT id FROM main.runs)";
    for (const std::int64_t id : ids) {
        try {
            SQLite::Transaction transaction(db);
            copyRows(db, studyRow, id);
            SQLite::Statement unlinked(db, unlinkedPoints);
            unlinked.bind(1, id);
            const std::uint64_t count = unlinked.executeStep() ? unlinked.getColumn(0).getInt64() : 0;
            copyRows(db, pointRows, id);
            transaction.commit();
            report.pointsWithoutRun += count;
            report.studiesRecovered.push_back(id);
        } catch (const SQLite::Exception& e) {
            stopOnWriteFailure(to, e);
            report.studiesLost.emplace_back(id, e.what());
        }
    }
}

RecoveryReport recoverInto(const std::string& from, const std::string& to)
{
    {
        RunStore fresh(to); // the current schema, nothing else
    }
    RecoveryReport report;
    SQLite::Database db(to, SQLite::OPEN_READWRITE | SQLite::OPEN_URI);
    db.exec("PRAGMA foreign_keys = ON");
    // Every page is sanity-checked as it is read, so a damaged page fails its run instead of ending a range
    // early without a word (which copies a run with rows missing).
    db.exec("PRAGMA cell_size_check = ON");
    std::error_code error;
    const bool sideFiles = std::filesystem::exists(from + "-wal", error);
    SQLite::Statement attach(db, "ATTACH DATABASE ? AS old");
    attach.bind(1, sqliteUri(from, sideFiles ? "mode=ro" : "immutable=1"));
    attach.exec();

    Recovery recovery{db, from, to, report};
    recovery.runs();
    recovery.pendingResults();
    recovery.studies();
    db.exec("DETACH DATABASE old");
    return report;
}

} // namespace

RecoveryReport recoverRunDatabase(const std::string& from, const std::string& to)
{
    std::error_code error;
    if (std::filesystem::exists(to, error))
        throw InputError(to, "", "the file to recover into exists already", "name a new file, or move this one away");
    const DatabaseFile kind = identifyDatabaseFile(from); // refuses foreign files, reads nothing else
    if (kind != DatabaseFile::RunDatabase)
        throw InputError(from, "", "there is no run database here to recover", "pass --db with the corrupt file");
    try {
        return recoverInto(from, to);
    } catch (...) {
        removeDatabaseFiles(to); // a failed recovery leaves nothing that could be taken for one
        throw;
    }
}

} // namespace coh::core
