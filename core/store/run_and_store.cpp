#include "core/store/run_and_store.h"

#include "core/serving/serving_engine.h"

#include <fmt/format.h>

#include <new>

namespace coh::core {

std::string defaultRunName(const Scenario& scenario)
{
    return scenario.name + " \u00b7 " + scenario.coherence.decode;
}

RunResult runAndStore(RunStore& store, const Scenario& scenario, const Workload& workload, const RunOptions& options,
                      const std::string& name, const StoredRunHooks& hooks)
{
    // A backend that cannot run the scenario refuses it before the run has a row.
    checkBackendRuns(options.backend, scenario);
    const std::int64_t id = store.beginRun(name.empty() ? defaultRunName(scenario) : name, scenario.json, scenario.seed,
                                           canonicalBackendName(options.backend.name));
    if (hooks.begun)
        hooks.begun(id);
    // Ends the run's row after the simulation threw. Should the store fail too, the run stays Running and is
    // marked Interrupted on the next open: the simulation's exception is the news, and it propagates.
    const auto end = [&](RunStatus status, const std::string& why) {
        try {
            store.failRun(id, status, why);
        } catch (const std::exception&) {
        }
    };
    RunResult result;
    try {
        result = runScenario(scenario, workload, options);
    } catch (const RunCancelled&) {
        end(RunStatus::Cancelled, hooks.cancelReason);
        throw;
    } catch (const std::bad_alloc&) {
        end(RunStatus::Failed, "ran out of memory: the run needed more than the process could have");
        throw;
    } catch (const std::exception& e) {
        // A failure the user asked for reads as one, not as a defect of the backend.
        const auto& fault = options.backend.fault;
        end(RunStatus::Failed,
            fault ? fmt::format("{} (the fault injected on purpose: --inject {}@{})", e.what(), fault->name, fault->at)
                  : std::string(e.what()));
        throw;
    }
    if (hooks.simulated)
        hooks.simulated();
    store.completeRun(id, result);
    return result;
}

} // namespace coh::core
