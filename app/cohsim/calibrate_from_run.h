#pragma once
// `cohsim calibrate --from-run ID`: a stored real run whose own costs (what its copies and decode steps cost under its
// own traffic) a profile takes over this machine's calibration (docs/real-backend.md#a-profile-of-a-real-runs-costs).
#include "app/cohsim/command.h"
#include "core/real/hardware_profile.h"
#include "core/store/stored_run_costs.h"

#include <optional>
#include <string>

namespace coh::cli {

// The run `idText` names, checked (core::storedRunCosts): a completed real run (of `backendGiven`, where given) that
// fitted costs of its own. Throws InputError naming --from-run otherwise, and when no scenario file is given and its
// stored one does not read.
core::StoredRunCosts storedRunCosts(const GlobalOptions& global, const std::string& idText,
                                    const std::optional<std::string>& backendGiven, const std::string& scenarioFile);

// What the profile took from the run, after calibrate's own lines: its curve's points, whose machine, and notes (seal
// sums, a stored scenario that no longer reads). Notes go to stderr, so that --json stays JSON.
void printRunCosts(const core::real::HardwareProfile& profile, const core::StoredRunCosts& run, bool json);

} // namespace coh::cli
