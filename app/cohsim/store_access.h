#pragma once
// Opens the run store a command should use: --db when given, else the default under $XDG_DATA_HOME.
#include "app/cohsim/command.h"
#include "core/store/run_store.h"

#include <memory>
#include <string>

namespace coh::cli {

std::string runDatabasePath(const GlobalOptions& global);

// Waits for a locked database for COH_DB_BUSY_TIMEOUT_MS (default 60 s; tests set it short) and says so on
// stderr; what opening did (results stored from pending files, ...) goes to stderr unless --quiet.
std::unique_ptr<core::RunStore> openRunStore(const GlobalOptions& global, core::RunStoreOptions options = {});

// For a store opened with readCorrupt, after printing what could be read: throws the InputError (exit code 2)
// naming the file and the fix when the check at open found it corrupt.
void throwIfCorrupt(const core::RunStore& store);

// Throws the InputError (exit code 2) for an id that is not in the store.
[[noreturn]] void throwUnknownRun(const core::RunStore& store, std::int64_t id, const std::string& field = "ID");

// Parses a run id as the user typed it; throws InputError (exit code 2) when it is not a positive integer.
std::int64_t parseRunId(const std::string& text);
// A positive id of something stored (a run, a study) given as `field`, or an InputError "'x' is not a WHAT id".
std::int64_t parseStoredId(const std::string& text, const std::string& field, const std::string& what,
                           const std::string& fix);

} // namespace coh::cli
