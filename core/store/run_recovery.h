#pragma once
// Rescues a corrupt run database: every run whose rows can still be read is copied, whole, into a new file;
// a run whose child rows are damaged keeps its `runs` row (metadata, summary) as failed, saying so. SQLite's
// own `.recover` needs the dbpage extension, which many sqlite3 builds (Debian's 3.40) lack.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace coh::core {

struct RecoveryReport {
    std::vector<std::int64_t> recovered;                       // copied whole
    std::vector<std::pair<std::int64_t, std::string>> partial; // runs row kept, child rows lost: why
    std::vector<std::pair<std::int64_t, std::string>> lost;    // nothing could be read: why
    // Runs copied (whole or not) whose figures of the simulator on other costs (cost_variants) could not be: why.
    // Those are a comparison's, not the run's, so the run itself stays as it was copied.
    std::vector<std::pair<std::int64_t, std::string>> figuresLost;
    std::string runsTableError; // non-empty when listing the runs stopped early (later runs are not known)
};

// Reads `from` without writing to it and creates `to` (which must not exist). Throws InputError naming the file
// when `from` is not a run database or `to` exists or cannot be made.
RecoveryReport recoverRunDatabase(const std::string& from, const std::string& to);

} // namespace coh::core
