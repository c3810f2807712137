#pragma once
// Where a finished run waits when the run database cannot take it (locked past the busy timeout, disk full, a
// failed write): one small run database per run in PATH.pending/, which the next RunStore opening PATH stores
// into it. A finished simulation is never lost because the database was busy.
#include "core/engine/run_result.h"

#include <cstdint>
#include <string>
#include <vector>

namespace coh::core {

std::string pendingFolder(const std::string& databasePath);                // PATH.pending
std::string pendingFile(const std::string& databasePath, std::int64_t id); // PATH.pending/run-ID.db

// Writes `result` as run `id` into pendingFile (a temporary file renamed into place, so a crash never leaves
// half a file under that name) and returns its path. Throws std::exception when it cannot.
std::string savePendingResult(const std::string& databasePath, std::int64_t id, const RunResult& result);

// Ids of the runs with a pending file, ascending.
std::vector<std::int64_t> pendingRunIds(const std::string& databasePath);

// Reads a pending file back. Throws std::exception when it cannot be read.
RunResult loadPendingResult(const std::string& databasePath, std::int64_t id);

// Deletes the pending file (and the folder once it is empty); false when there was none.
bool removePendingResult(const std::string& databasePath, std::int64_t id);

} // namespace coh::core
