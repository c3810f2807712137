#include "core/store/db_identity.h"

#include "core/base/input_error.h"
#include "core/store/schema.h"
#include "core/store/store_errors.h"

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Statement.h>
#include <fmt/format.h>
#include <sqlite3.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <system_error>
#include <vector>

namespace coh::core {

namespace fs = std::filesystem;

namespace {

constexpr const char* kMoveAwayFix = "move it away or pass --db with another path";
constexpr const char* kNotOurs = "the file is not a Coherence Studio run database";

std::uint32_t bigEndian32(const unsigned char* bytes)
{
    return std::uint32_t{bytes[0]} << 24 | std::uint32_t{bytes[1]} << 16 | std::uint32_t{bytes[2]} << 8 |
           std::uint32_t{bytes[3]};
}

struct Schema {
    std::int32_t applicationId = 0;
    int userVersion = 0;
    std::vector<std::string> tables; // user tables (not sqlite_*)
    int objects = 0;                 // tables, indexes, views, triggers (not sqlite_*)
};

Schema readSchema(SQLite::Database& db)
{
    Schema schema;
    schema.applicationId = db.execAndGet("PRAGMA application_id").getInt();
    schema.userVersion = db.execAndGet("PRAGMA user_version").getInt();
    SQLite::Statement q(db, "SELECT type, name FROM sqlite_schema WHERE name NOT LIKE 'sqlite\\_%' ESCAPE '\\'");
    while (q.executeStep()) {
        ++schema.objects;
        if (q.getColumn(0).getString() == "table")
            schema.tables.push_back(q.getColumn(1).getString());
    }
    return schema;
}

bool exists(const std::string& path)
{
    std::error_code error;
    return fs::exists(path, error);
}

// Reads through a connection that cannot change the file. With no -wal or -journal next to it, the file alone
// is the whole database and immutable=1 reads it without locks or side files; otherwise a plain read-only
// connection sees the WAL's newer pages too (it never checkpoints or rolls back).
Schema readSchemaWithoutWriting(const std::string& path, bool headerSaysOurs, const LockWaiter& waiter)
{
    const auto readOnly = [&] {
        SQLite::Database db(sqliteUri(path, "mode=ro"), SQLite::OPEN_READONLY | SQLite::OPEN_URI);
        if (waiter.handler)
            sqlite3_busy_handler(db.getHandle(), waiter.handler, waiter.context);
        else
            db.setBusyTimeout(5000);
        return readSchema(db);
    };
    if (exists(path + "-wal") || exists(path + "-journal")) {
        try {
            return readOnly();
        } catch (const SQLite::Exception& e) {
            const int code = e.getErrorCode() & 0xFF;
            if (code != SQLITE_CANTOPEN && code != SQLITE_READONLY)
                throw;
            // The -shm cannot be made (a read-only folder): the file's own pages still say whose it is.
        }
    }
    try {
        SQLite::Database db(sqliteUri(path, "immutable=1"), SQLite::OPEN_READONLY | SQLite::OPEN_URI);
        return readSchema(db);
    } catch (const SQLite::Exception&) {
        // immutable=1 takes no locks: another process's checkpoint may have rewritten a page as it was read. Our
        // own file may be read again with locks (that may create its -wal/-shm; a foreign file keeps its error).
        if (!headerSaysOurs)
            throw;
        return readOnly();
    }
}

} // namespace

std::string sqliteUri(const std::string& path, const std::string& query)
{
    std::string uri = "file:";
    for (char c : fs::absolute(path).lexically_normal().string()) {
        if (c == '%' || c == '?' || c == '#')
            uri += fmt::format("%{:02X}", static_cast<unsigned char>(c));
        else
            uri += c;
    }
    return query.empty() ? uri : uri + "?" + query;
}

DatabaseFile identifyDatabaseFile(const std::string& path, const LockWaiter& waiter)
{
    std::error_code error;
    const auto status = fs::status(path, error);
    if (!fs::exists(status))
        return DatabaseFile::Missing;
    if (fs::is_directory(status))
        throw InputError(path, "", "this is a folder, not a run database file", "pass --db with the path of a file");
    // A pipe or a device would be read forever (a FIFO blocks its reader until someone writes).
    if (!fs::is_regular_file(status))
        throw InputError(path, "",
                         "this is not a regular file (a pipe, a socket or a device), so it cannot be a run "
                         "database",
                         "pass --db with the path of a file");
    if (fs::file_size(path, error) == 0 && !error)
        return DatabaseFile::Empty;

    std::array<unsigned char, 100> header{};
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw InputError(path, "", "cannot read the run database (permission denied?)",
                         "make it readable for this user, or pass --db with another path");
    in.read(reinterpret_cast<char*>(header.data()), static_cast<std::streamsize>(header.size()));
    constexpr std::string_view kMagic("SQLite format 3\0", 16);
    if (in.gcount() < static_cast<std::streamsize>(header.size()) ||
        !std::equal(kMagic.begin(), kMagic.end(), header.begin()))
        throw InputError(path, "", std::string(kNotOurs) + ": it is not a SQLite database (or its header is damaged)",
                         kMoveAwayFix);
    // Offset 68: application_id. It is set once, by the first migration, so the header in the file is
    // authoritative for it even while newer pages wait in a -wal file.
    const auto headerApplicationId = static_cast<std::int32_t>(bigEndian32(&header[68]));
    if (headerApplicationId != 0 && headerApplicationId != kRunStoreApplicationId)
        throw InputError(path, "PRAGMA application_id",
                         fmt::format("{}: it is a SQLite database of another application (application_id {:#010x})",
                                     kNotOurs, static_cast<std::uint32_t>(headerApplicationId)),
                         kMoveAwayFix);

    Schema schema;
    const auto readStarted = std::chrono::steady_clock::now();
    try {
        schema = readSchemaWithoutWriting(path, headerApplicationId == kRunStoreApplicationId, waiter);
    } catch (const SQLite::Exception& e) {
        // Locks, permissions and I/O are named as such; any other failure to read the schema of a file not yet
        // identified (a damaged header: "unsupported file format", "malformed schema") says it is not ours.
        const int code = e.getErrorCode() & 0xFF;
        if (code == SQLITE_ERROR || code == SQLITE_SCHEMA || code == SQLITE_FORMAT || code == SQLITE_RANGE ||
            code == SQLITE_MISMATCH || code == SQLITE_INTERNAL)
            throw InputError(path, "",
                             fmt::format("{}: SQLite cannot read its schema ({}); the file is not a run database, "
                                         "or it is damaged",
                                         kNotOurs, e.what()),
                             kMoveAwayFix);
        // Corrupt where the list of tables lies: `db check` and `db recover` need that list too, so they are no fix.
        if (code == SQLITE_CORRUPT || code == SQLITE_NOTADB)
            throw InputError(path, "",
                             fmt::format("the run database is too damaged to read: SQLite cannot read its list of "
                                         "tables ({}), which `cohsim db check` and `cohsim db recover` need too",
                                         e.what()),
                             fmt::format("restore {0} from a backup, or move {0} away (a new one is made)", path));
        // A lock: how long the wait lasted, by the read's own clock unless the waiter's handler measured more (SQLite
        // may answer BUSY without calling the handler, a WAL being recovered, which must not read as 0 s).
        LockWait wait = waiter.last ? *waiter.last : LockWait{};
        wait.seconds = std::max(wait.seconds,
                                std::chrono::duration<double>(std::chrono::steady_clock::now() - readStarted).count());
        throwStoreError(path, e, "read the run database's schema", wait);
    }
    if (schema.applicationId == 0) {
        if (schema.userVersion == 0 && schema.objects == 0)
            return DatabaseFile::Empty;
        throw InputError(path, "", std::string(kNotOurs) + ": it is a SQLite database of another application",
                         kMoveAwayFix);
    }
    if (schema.applicationId != kRunStoreApplicationId)
        throw InputError(path, "PRAGMA application_id",
                         fmt::format("{}: it is a SQLite database of another application (application_id {:#010x})",
                                     kNotOurs, static_cast<std::uint32_t>(schema.applicationId)),
                         kMoveAwayFix);
    if (schema.userVersion > runStoreSchemaVersion())
        throw InputError(path, "PRAGMA user_version",
                         fmt::format("the run database has schema version {} but this Coherence Studio (" COH_VERSION
                                     ") knows versions up to {}",
                                     schema.userVersion, runStoreSchemaVersion()),
                         "upgrade Coherence Studio, or pass --db with another path");

    // Ours by its application_id, but a version no build wrote, or the tables of another version: the header's
    // user_version was edited or damaged, which is not "another application's file".
    if (schema.userVersion < 0)
        throw InputError(path, "PRAGMA user_version",
                         fmt::format("the run database's schema version is {}, which no Coherence Studio writes: its "
                                     "header was edited or damaged",
                                     schema.userVersion),
                         kMoveAwayFix);
    const auto expected = runStoreTables(schema.userVersion);
    const auto current = runStoreTables(runStoreSchemaVersion());
    for (const auto& table : schema.tables) {
        if (std::find(expected.begin(), expected.end(), table) != expected.end())
            continue;
        if (std::find(current.begin(), current.end(), table) != current.end())
            throw InputError(path, "PRAGMA user_version",
                             fmt::format("the run database says it has schema version {}, but it has the table '{}' "
                                         "of a later version: its header was edited or damaged",
                                         schema.userVersion, table),
                             kMoveAwayFix);
        throw InputError(path, "",
                         fmt::format("{}: it has a table '{}' that a run database does not have", kNotOurs, table),
                         kMoveAwayFix);
    }
    for (const auto& table : expected) {
        if (std::find(schema.tables.begin(), schema.tables.end(), table) == schema.tables.end())
            throw InputError(path, "", fmt::format("the run database is damaged: its table '{}' is missing", table),
                             corruptDatabaseFix(path));
    }
    return DatabaseFile::RunDatabase;
}

} // namespace coh::core
