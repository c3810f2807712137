#include "core/store/run_bytes.h"

#include "core/store/run_record.h"
#include "core/store/schema.h"

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Statement.h>
#include <SQLiteCpp/Transaction.h>
#include <sqlite3.h>

#include <cstring>
#include <memory>
#include <stdexcept>

namespace coh::core {

namespace {

constexpr std::int64_t kRunId = 1;
constexpr const char* kName = "(run bytes)";

} // namespace

std::string encodeRunResult(const RunResult& result)
{
    SQLite::Database db(":memory:", SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    migrateRunDatabase(db, kName);
    SQLite::Transaction transaction(db);
    writeDetachedRun(db, kRunId, result);
    transaction.commit();
    sqlite3_int64 size = 0;
    const std::unique_ptr<unsigned char, decltype(&sqlite3_free)> bytes(
        sqlite3_serialize(db.getHandle(), "main", &size, 0), &sqlite3_free);
    if (!bytes)
        throw std::runtime_error("cannot serialize a run: out of memory");
    return std::string(reinterpret_cast<const char*>(bytes.get()), static_cast<std::size_t>(size));
}

RunResult decodeRunResult(const std::string& bytes)
{
    SQLite::Database db(":memory:", SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    auto* copy = static_cast<unsigned char*>(sqlite3_malloc64(bytes.size()));
    if (!copy)
        throw std::runtime_error("cannot read a serialized run: out of memory");
    std::memcpy(copy, bytes.data(), bytes.size());
    // SQLite owns (and frees) the copy from here, also when it refuses it.
    const int rc = sqlite3_deserialize(db.getHandle(), "main", copy, static_cast<sqlite3_int64>(bytes.size()),
                                       static_cast<sqlite3_int64>(bytes.size()),
                                       SQLITE_DESERIALIZE_FREEONCLOSE | SQLITE_DESERIALIZE_RESIZEABLE);
    if (rc != SQLITE_OK)
        throw std::runtime_error("cannot read a serialized run: not a run database");
    auto result = readStoredRun(db, kName, kRunId);
    if (!result)
        throw std::runtime_error("cannot read a serialized run: it holds no completed run");
    return std::move(*result);
}

} // namespace coh::core
