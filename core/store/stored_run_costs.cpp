#include "core/store/stored_run_costs.h"

#include "core/base/input_error.h"
#include "core/base/printable_text.h"
#include "core/gpu/cuda_devices.h"
#include "core/real/backend.h"
#include "core/scenario/scenario_loader.h"
#include "core/store/run_store.h"
#include "core/store/sim_vs_real.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace coh::core {

std::optional<StoredRunCosts> storedRunCosts(RunStore& store, std::int64_t id,
                                             const std::optional<std::string>& backendGiven,
                                             const std::string& scenarioFile, const RunCostsPick& pick)
{
    const auto info = store.runInfo(id);
    if (!info)
        return std::nullopt;
    StoredRunCosts run;
    run.id = id;
    run.name = info->name;
    run.backend = info->backend;
    run.host = info->host;
    run.ranElsewhere = !run.host.empty() && run.host != real::thisHostName();
    const auto refuse = [&](const std::string& why, const std::string& fix) {
        throw InputError("", pick.field, fmt::format("run {} ({}) {}", id, terminalSafe(info->name), why), fix);
    };
    if (info->backend == "simulated")
        refuse("is simulated: its costs are the simulator's own, not measured", pick.pickFix);
    if (info->status != RunStatus::Completed)
        refuse(fmt::format("is {}: only a completed run kept its costs", toString(info->status)), pick.pickFix);
    if (backendGiven && canonicalBackendName(*backendGiven) != info->backend)
        refuse(fmt::format("ran on {}, not on {}: its costs are {}'s", info->backend, *backendGiven, info->backend),
               fmt::format("leave --backend out, or give --backend {}", info->backend));
    const auto summary = store.runSummary(id);
    if (!summary || !real::fittedOwnCosts(summary->backend))
        refuse("fitted no costs of its own: it timed no copy and no decode step (or was stored before runs fitted "
               "them)",
               pick.noCostsFix);
    run.summary = summary->backend;
    // The scenario it ran says what to measure beside its costs; a scenario file given is read the same way, so a
    // stored scenario's relative trace path reads from that file's folder.
    try {
        run.scenario = parseScenario(nlohmann::json::parse(store.scenarioJson(id).value_or("{}")), scenarioFile);
    } catch (const std::exception& e) {
        run.scenarioProblem = e.what();
        if (scenarioFile.empty())
            refuse(fmt::format("kept a scenario that does not read here ({})", e.what()), pick.scenarioFix);
    }
    return run;
}

real::HardwareProfile profileOfRunCosts(const real::HardwareProfile& measured, const StoredRunCosts& run,
                                        const std::string& scenarioFile, const std::string& field)
{
    // The run's steps must be of the shape, element and descriptors this profile stands for: the scenario given's.
    if (!scenarioFile.empty() && run.scenario) {
        BackendOptions backend;
        backend.name = run.backend;
        try {
            checkProfileFits(measured, run.backend, *run.scenario, backend.realCpu);
        } catch (const InputError& e) {
            throw InputError(
                "", field, fmt::format("run {} ran another model's steps than {}: {}", run.id, scenarioFile, e.what()),
                "give a real run of this scenario, or leave the scenario out to calibrate for the "
                "run's own");
        }
    }
    real::HardwareProfile profile = real::profileOfRun(measured, run.summary, static_cast<std::uint64_t>(run.id));
    // Its costs are its machine's: a run another machine made names that machine, whose CPU and cores it did not keep.
    if (run.ranElsewhere) {
        profile.host = run.host;
        profile.cpu.clear();
        profile.cores = 0;
    }
    return profile;
}

void checkCalibratesHere(const StoredRunCosts& run, const std::string& field)
{
    if (run.backend == "real-cuda")
        if (const GpuInventory gpus = probeGpus(); gpus.devices.empty())
            throw InputError("", field,
                             fmt::format("run {} ran on real-cuda, which needs a GPU to calibrate beside its costs, "
                                         "and there is none here: {}",
                                         run.id, gpus.reason),
                             "make its profile on a machine with an NVIDIA GPU and a CUDA build");
}

RunCostsProfile calibrateWithRunCosts(const StoredRunCosts& run, const Scenario& scenario,
                                      const std::string& scenarioFile, const std::string& field,
                                      const ScenarioCalibration& how)
{
    checkCalibratesHere(run, field);
    BackendOptions realRun;
    realRun.name = run.backend;
    // What the backend could not run (a head too large for the CUDA kernel, memories past the machine's) is refused as
    // a run would refuse it.
    checkBackendRuns(realRun, scenario);
    const real::HardwareProfile measured = calibrateFor(scenario, run.backend, realRun.realCpu, how);
    RunCostsProfile out;
    out.taken = real::ownCostsTaken(run.summary, measured.attentionWarmBytes);
    out.profile = profileOfRunCosts(measured, run, scenarioFile, field);
    return out;
}

} // namespace coh::core
