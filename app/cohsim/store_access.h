#pragma once
// Opens the run store a command should use: --db when given, else the default under $XDG_DATA_HOME.
#include "app/cohsim/command.h"
#include "core/store/run_store.h"

#include <memory>
#include <string>

namespace coh::cli {

std::string runDatabasePath(const GlobalOptions& global);
std::unique_ptr<core::RunStore> openRunStore(const GlobalOptions& global);

// Throws the InputError (exit code 2) for an id that is not in the store.
[[noreturn]] void throwUnknownRun(const core::RunStore& store, std::int64_t id);

// Parses a run id as the user typed it; throws InputError (exit code 2) when it is not a positive integer.
std::int64_t parseRunId(const std::string& text);

} // namespace coh::cli
