#pragma once
// The run database's tables (see docs/run-store.md) and the ordered migrations that bring any older file to
// the current schema. The schema version lives in PRAGMA user_version; PRAGMA application_id marks the file as
// ours, so a foreign SQLite database is refused instead of being altered.
#include <cstdint>
#include <string>
#include <vector>

namespace SQLite {
class Database;
}

namespace coh::core {

inline constexpr std::int32_t kRunStoreApplicationId = 0x436F6853; // "CohS"

// The version a database has after migrateRunDatabase: the number of migrations this build knows.
int runStoreSchemaVersion();

// The tables (SQLite's own excepted) a run database of schema `version` has; any other table means the file is
// not ours.
std::vector<std::string> runStoreTables(int version);

// Applies every pending migration, each in its own transaction (a crash leaves a consistent older version).
// Throws InputError naming `path` when the file belongs to another application or to a newer Coherence Studio.
void migrateRunDatabase(SQLite::Database& db, const std::string& path);

} // namespace coh::core
