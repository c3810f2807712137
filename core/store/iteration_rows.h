#pragma once
// The decode_iterations table (docs/database.md): a run's recorded decode iterations, one row each.
#include "core/engine/run_result.h"

#include <cstdint>
#include <vector>

namespace SQLite {
class Database;
}

namespace coh::core {

// Inserts them in order (idx 0, 1, ...). Call inside the run's transaction.
void insertIterationRows(SQLite::Database& db, std::int64_t runId, const std::vector<DecodeIterationRecord>& rows);
// Reads them back in that order; none for a run stored before schema 8.
std::vector<DecodeIterationRecord> loadIterationRows(SQLite::Database& db, std::int64_t runId);

} // namespace coh::core
