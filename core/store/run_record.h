#pragma once
// A whole stored run, the `runs` row's result columns plus its child rows, on any connection: the run database
// and the side file a result waits in when the database cannot take it (pending_results.h) share this code.
#include "core/engine/run_result.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace SQLite {
class Database;
}

namespace coh::core {

// Writes `result` into run `id` (whose `runs` row exists) and marks it completed. Call inside a transaction;
// `step` (may be empty) is called after each part ("requests", ..., "summary").
void writeCompletedRun(SQLite::Database& db, std::int64_t id, const RunResult& result,
                       const std::function<void(std::string_view)>& step);

// Writes `result` as run `id` of a file that holds nothing else (a pending result, a run sent between processes):
// a bare `runs` row, then writeCompletedRun. Call inside a transaction on a migrated database.
void writeDetachedRun(SQLite::Database& db, std::int64_t id, const RunResult& result);

// Reads run `id` back as writeCompletedRun stored it; a run that never completed reads as an empty result.
// nullopt when there is no such run. Throws InputError naming `path` when stored JSON is not valid.
std::optional<RunResult> readStoredRun(SQLite::Database& db, const std::string& path, std::int64_t id);

// Parses a JSON column; throws InputError naming `path` and the column when it is not valid (corrupt).
nlohmann::ordered_json parseStoredJson(const std::string& path, const std::string& text, const char* column);

} // namespace coh::core
