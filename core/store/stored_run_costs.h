#pragma once
// A profile of a stored real run's own costs (`cohsim calibrate --from-run ID`, the app's History ▸ Profile of Its
// Costs…): the run read and checked, this machine calibrated for the scenario it ran, and what the run's copies and
// decode steps cost under its own traffic taken over that calibration (docs/real-backend.md#a-profile-of-a-real-runs-
// costs). One place, so the CLI and the app refuse the same runs and write the same profile.
#include "core/net/backend_summary.h"
#include "core/real/calibration.h"
#include "core/scenario/scenario.h"
#include "core/store/sim_vs_real.h" // ScenarioCalibration

#include <cstdint>
#include <optional>
#include <string>

namespace coh::core {

class RunStore;

struct StoredRunCosts {
    std::int64_t id = 0;
    std::string name, backend;
    std::string host; // the machine it ran on, as stored (empty: not recorded)
    BackendSummary summary;
    // The scenario it ran, as stored, read with the given scenario file's folder for relative paths; none where it no
    // longer reads (then `scenarioProblem` says why).
    std::optional<Scenario> scenario;
    std::string scenarioProblem;
    bool ranElsewhere = false; // its host is known and not this machine's
};

// How a refusal speaks to whoever picked the run: what picked it (the CLI's "--from-run", the app's "History"), how to
// pick one that can give a profile, how to make one where a real run fitted no costs, and how to give the run's
// scenario where the stored one no longer reads.
struct RunCostsPick {
    std::string field;
    std::string pickFix;
    std::string noCostsFix;
    std::string scenarioFix;
};

// Run `id` read from `store` and checked: a completed real run (of `backendGiven`, where given) that fitted costs of
// its own. None where there is no run `id`. Throws InputError (naming `pick`'s field, with its fixes) for any other
// run, and where no scenario file is given and the run's stored scenario does not read.
std::optional<StoredRunCosts> storedRunCosts(RunStore& store, std::int64_t id,
                                             const std::optional<std::string>& backendGiven,
                                             const std::string& scenarioFile, const RunCostsPick& pick);

// Throws InputError naming `field` where this machine cannot calibrate the run's backend beside its costs: a real-cuda
// run with no GPU here. calibrateWithRunCosts checks it too; a caller checks it first to refuse before anything else.
void checkCalibratesHere(const StoredRunCosts& run, const std::string& field);

// `measured` (this machine's calibration for the run's scenario) with the run's own costs, named after the run; where
// the run ran on another machine, the profile names that machine (its CPU and cores not known), so that compare-real
// says so. Throws InputError naming `field` when the run's steps are not those `scenarioFile` (if given) decodes.
real::HardwareProfile profileOfRunCosts(const real::HardwareProfile& measured, const StoredRunCosts& run,
                                        const std::string& scenarioFile, const std::string& field);

// What the profile holds, and which of the run's costs it took (the others are this machine's calibration's).
struct RunCostsProfile {
    real::HardwareProfile profile;
    real::OwnCostsTaken taken;
};
// The whole: this machine calibrated (calibrateFor, with `how`) for `scenario` (the run's, or the file `scenarioFile`
// standing for it; empty for the run's), then the run's costs over it. Throws InputError where the backend cannot run
// the scenario here, RunCancelled when cancelled, and what a calibration throws (GpuError with no GPU for a real-cuda
// run).
RunCostsProfile calibrateWithRunCosts(const StoredRunCosts& run, const Scenario& scenario,
                                      const std::string& scenarioFile, const std::string& field,
                                      const ScenarioCalibration& how = {});

} // namespace coh::core
