#include "core/store/run_recovery.h"

#include "core/base/input_error.h"
#include "core/store/db_identity.h"
#include "core/store/run_store.h"
#include "core/store/schema.h"
#include "core/store/store_errors.h"

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Statement.h>
#include <SQLiteCpp/Transaction.h>
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
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
// file lacks later migrations' columns: they take their defaults).
std::string copyStatement(SQLite::Database& db, const std::string& table, const char* key)
{
    const auto ours = columns(db, "main", table);
    const auto theirs = columns(db, "old", table);
    std::string list;
    for (const auto& column : ours) {
        if (std::find(theirs.begin(), theirs.end(), column) == theirs.end())
            continue;
        if (!list.empty())
            list += ", ";
        list += '"' + column + '"';
    }
    return fmt::format("INSERT INTO main.{0} ({1}) SELECT {1} FROM old.{0} WHERE {2} = ?", table, list, key);
}

void copyRows(SQLite::Database& db, const std::string& sql, std::int64_t id)
{
    SQLite::Statement q(db, sql);
    q.bind(1, id);
    q.exec();
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
    {
        RunStore fresh(to); // the current schema, nothing else
    }

    RecoveryReport report;
    SQLite::Database db(to, SQLite::OPEN_READWRITE | SQLite::OPEN_URI);
    db.exec("PRAGMA foreign_keys = ON");
    // Every page is sanity-checked as it is read, so a damaged page fails its run instead of ending a range
    // early without a word (which copies a run with rows missing).
    db.exec("PRAGMA cell_size_check = ON");
    const bool sideFiles = std::filesystem::exists(from + "-wal", error);
    SQLite::Statement attach(db, "ATTACH DATABASE ? AS old");
    attach.bind(1, sqliteUri(from, sideFiles ? "mode=ro" : "immutable=1"));
    attach.exec();

    std::vector<std::int64_t> ids;
    try {
        SQLite::Statement q(db, "SELECT id FROM old.runs ORDER BY id");
        while (q.executeStep())
            ids.push_back(q.getColumn(0).getInt64());
    } catch (const SQLite::Exception& e) {
        report.runsTableError = e.what();
    }

    const std::string runRow = copyStatement(db, "runs", "id");
    // Child tables the old file has (node_blocks only from schema 4 on). Studies are not runs' children: a
    // recovered file keeps every readable run, and a study run again there finds its points' runs by key only
    // through study_points, so it runs them again (docs/tuning.md).
    // The simulator's figures on other costs (cost_variants) are a comparison's, not the run's: copied apart, so
    // that damage to them costs the run nothing.
    std::vector<std::string> childRows;
    std::string figureRows;
    for (const auto& table : runStoreTables(runStoreSchemaVersion())) {
        if (table == "studies" || table == "study_points")
            continue;
        SQLite::Statement has(db, "SELECT count(*) FROM old.sqlite_schema WHERE type = 'table' AND name = ?");
        has.bind(1, table);
        if (table == "runs" || !has.executeStep() || has.getColumn(0).getInt() == 0)
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
            report.figuresLost.emplace_back(id, e.what());
        }
    };
    for (const std::int64_t id : ids) {
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
            report.lost.emplace_back(id, e.what());
        }
    }
    db.exec("DETACH DATABASE old");
    return report;
}

} // namespace coh::core
