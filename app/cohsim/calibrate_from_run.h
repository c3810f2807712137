#pragma once
// `cohsim calibrate --from-run ID`: a stored real run whose own costs (what its copies and decode steps cost under its
// own traffic) a profile takes over this machine's calibration (docs/real-backend.md#a-profile-of-a-real-runs-costs).
#include "app/cohsim/command.h"
#include "core/net/backend_summary.h"
#include "core/real/calibration.h"
#include "core/scenario/scenario.h"

#include <cstdint>
#include <optional>
#include <string>

namespace coh::cli {

struct RunCosts {
    std::int64_t id = 0;
    std::string name, backend;
    std::string host; // the machine it ran on, as stored (empty: not recorded)
    core::BackendSummary summary;
    // The scenario it ran, as stored, read with the given scenario file's folder for relative paths; none where it no
    // longer reads (then `scenarioProblem` says why).
    std::optional<core::Scenario> scenario;
    std::string scenarioProblem;
    bool ranElsewhere = false; // its host is known and not this machine's
};

// The run `idText` names, checked: a completed real run (of `backendGiven`, where given) that fitted costs of its own.
// Throws InputError naming --from-run otherwise, and when no scenario file is given and its stored one does not read.
RunCosts storedRunCosts(const GlobalOptions& global, const std::string& idText,
                        const std::optional<std::string>& backendGiven, const std::string& scenarioFile);

// `measured` (this machine's calibration for the run's scenario) with the run's own costs, named after the run; where
// the run ran on another machine, the profile names that machine (its CPU and cores not known), so that compare-real
// says so. Throws InputError naming --from-run when the run's steps are not those `scenarioFile` (if given) decodes.
core::real::HardwareProfile profileOfRunCosts(const core::real::HardwareProfile& measured, const RunCosts& run,
                                              const std::string& scenarioFile);

// What the profile took from the run, after calibrate's own lines: its curve's points, whose machine, and notes (seal
// sums, a stored scenario that no longer reads). Notes go to stderr, so that --json stays JSON.
void printRunCosts(const core::real::HardwareProfile& profile, const RunCosts& run, bool json);

} // namespace coh::cli
