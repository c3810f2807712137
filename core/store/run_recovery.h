#pragma once
// Rescues a corrupt run database: every run whose rows can still be read is copied, whole, into a new file;
// a run whose child rows are damaged keeps its `runs` row (metadata, summary) as failed, saying so. Studies and the
// finished results waiting beside the file come too. SQLite's
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
    std::string runsTableError; // non-empty when listing the runs met a damaged page (runs on it are not known)
    // Finished results that waited beside `from` (pending_results.h) for a run copied as running or damaged: stored
    // into the copy, whole.
    std::vector<std::int64_t> pendingStored;
    std::vector<std::pair<std::int64_t, std::string>> pendingFailed; // could not be stored in the copy: why
    // Tuning studies (docs/tuning.md): copied with their points; a point whose run was not copied keeps its values
    // without a run (the study measures it again when it is run again).
    std::vector<std::int64_t> studiesRecovered;
    std::vector<std::pair<std::int64_t, std::string>> studiesLost;
    std::uint64_t pointsWithoutRun = 0;
    std::string studiesTableError; // as runsTableError, for the list of studies
};

// Reads `from` without writing to it and creates `to` (which must not exist). A run row whose status is not one a
// run database holds is kept as failed; a link to a run that was not copied is dropped. Throws InputError naming the
// file when `from` is not a run database, `to` exists or cannot be made, writing `to` fails (a full disk) or no run
// can even be listed; then `to` is removed, so a failed recovery leaves nothing behind.
RecoveryReport recoverRunDatabase(const std::string& from, const std::string& to);

} // namespace coh::core
