#pragma once
// The begin → simulate → store sequence that `cohsim run` and the desktop app share, and the name a run gets
// when nobody gives it one.
#include "core/engine/run_result.h"
#include "core/scenario/scenario.h"
#include "core/serving/run_options.h"
#include "core/store/run_store.h"
#include "core/workload/request.h"

#include <cstdint>
#include <functional>
#include <string>

namespace coh::core {

// "<scenario> · <decode protocol>", e.g. "default · msi-directory": what tells two runs of one scenario apart
// in a list when nobody names them.
std::string defaultRunName(const Scenario& scenario);

struct StoredRunHooks {
    std::function<void(std::int64_t id)> begun; // the row exists (Running); the simulation starts next
    std::function<void()> simulated;            // the simulation is done; the result is stored next
    std::string cancelReason = "cancelled by the user";
};

// Begins a run named `name` (defaultRunName when empty) in `store`, simulates `scenario` and completes the run
// with the result, which it returns. When the simulation throws, the run is ended first (RunCancelled:
// Cancelled with hooks.cancelReason; anything else: Failed with its message) and the exception propagates.
RunResult runAndStore(RunStore& store, const Scenario& scenario, const Workload& workload, const RunOptions& options,
                      const std::string& name = {}, const StoredRunHooks& hooks = {});

} // namespace coh::core
