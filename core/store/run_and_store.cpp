#include "core/store/run_and_store.h"

#include "core/serving/serving_engine.h"

namespace coh::core {

std::string defaultRunName(const Scenario& scenario)
{
    return scenario.name + " \u00b7 " + scenario.coherence.decode;
}

RunResult runAndStore(RunStore& store, const Scenario& scenario, const Workload& workload, const RunOptions& options,
                      const std::string& name, const StoredRunHooks& hooks)
{
    const std::int64_t id =
        store.beginRun(name.empty() ? defaultRunName(scenario) : name, scenario.json, scenario.seed);
    if (hooks.begun)
        hooks.begun(id);
    RunResult result;
    try {
        result = runScenario(scenario, workload, options);
    } catch (const RunCancelled&) {
        store.failRun(id, RunStatus::Cancelled, hooks.cancelReason);
        throw;
    } catch (const std::exception& e) {
        try {
            store.failRun(id, RunStatus::Failed, e.what());
        } catch (const std::exception&) {
            // The run stays Running and is marked Interrupted on the next open; the first error is the news.
        }
        throw;
    }
    if (hooks.simulated)
        hooks.simulated();
    store.completeRun(id, result);
    return result;
}

} // namespace coh::core
