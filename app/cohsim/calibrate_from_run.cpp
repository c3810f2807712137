#include "app/cohsim/calibrate_from_run.h"

#include "app/cohsim/store_access.h"
#include "app/cohsim/summary_text.h" // number
#include "app/cohsim/terminal_text.h"
#include "core/base/input_error.h"
#include "core/real/backend.h"
#include "core/real/node_resources.h" // memorySize
#include "core/scenario/scenario_loader.h"
#include "core/store/sim_vs_real.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <vector>

namespace coh::cli {

RunCosts storedRunCosts(const GlobalOptions& global, const std::string& idText,
                        const std::optional<std::string>& backendGiven, const std::string& scenarioFile)
{
    const std::string pick = "give a real run of the scenario (`cohsim runs list` shows each run's backend; `cohsim "
                             "run SCENARIO --backend real-cpu` makes one)";
    RunCosts run;
    run.id = parseStoredId(idText, "--from-run", "run", pick);
    auto store = openRunStore(global);
    const auto info = store->runInfo(run.id);
    if (!info)
        throwUnknownRun(*store, run.id, "--from-run");
    run.name = info->name;
    run.backend = info->backend;
    run.host = info->host;
    run.ranElsewhere = !run.host.empty() && run.host != core::real::thisHostName();
    const auto refuse = [&](const std::string& why, const std::string& fix) {
        throw core::InputError("", "--from-run", fmt::format("run {} ({}) {}", run.id, terminalSafe(info->name), why),
                               fix);
    };
    if (info->backend == "simulated")
        refuse("is simulated: its costs are the simulator's own, not measured", pick);
    if (info->status != core::RunStatus::Completed)
        refuse(fmt::format("is {}: only a completed run kept its costs", core::toString(info->status)), pick);
    if (backendGiven && core::canonicalBackendName(*backendGiven) != info->backend)
        refuse(fmt::format("ran on {}, not on {}: its costs are {}'s", info->backend, *backendGiven, info->backend),
               fmt::format("leave --backend out, or give --backend {}", info->backend));
    const auto summary = store->runSummary(run.id);
    if (!summary || !core::real::fittedOwnCosts(summary->backend))
        refuse("fitted no costs of its own: it timed no copy and no decode step (or was stored before runs fitted "
               "them)",
               pick);
    run.summary = summary->backend;
    // The scenario it ran says what to measure beside its costs; a scenario file given is read the same way, so a
    // stored scenario's relative trace path reads from that file's folder.
    try {
        run.scenario =
            core::parseScenario(nlohmann::json::parse(store->scenarioJson(run.id).value_or("{}")), scenarioFile);
    } catch (const std::exception& e) {
        run.scenarioProblem = e.what();
        if (scenarioFile.empty())
            refuse(fmt::format("kept a scenario that does not read here ({})", e.what()),
                   "give the run's scenario file: `cohsim calibrate SCENARIO --from-run ID`");
    }
    return run;
}

core::real::HardwareProfile profileOfRunCosts(const core::real::HardwareProfile& measured, const RunCosts& run,
                                              const std::string& scenarioFile)
{
    // The run's steps must be of the shape, element and descriptors this profile stands for: the scenario given's.
    if (!scenarioFile.empty() && run.scenario) {
        core::BackendOptions backend;
        backend.name = run.backend;
        try {
            core::checkProfileFits(measured, run.backend, *run.scenario, backend.realCpu);
        } catch (const core::InputError& e) {
            throw core::InputError(
                "", "--from-run",
                fmt::format("run {} ran another model's steps than {}: {}", run.id, scenarioFile, e.what()),
                "give a real run of this scenario, or leave the scenario out to calibrate for the "
                "run's own");
        }
    }
    core::real::HardwareProfile profile =
        core::real::profileOfRun(measured, run.summary, static_cast<std::uint64_t>(run.id));
    // Its costs are its machine's: a run another machine made names that machine, whose CPU and cores it did not keep.
    if (run.ranElsewhere) {
        profile.host = run.host;
        profile.cpu.clear();
        profile.cores = 0;
    }
    return profile;
}

void printRunCosts(const core::real::HardwareProfile& profile, const RunCosts& run, bool json)
{
    if (!json)
        fmt::print("  from run {} ({}): a figure marked run {}'s own is what its copies or decode steps cost under its "
                   "own traffic, the others this calibration's\n",
                   run.id, terminalSafe(run.name), run.id);
    if (!json && !profile.attentionCurve.empty()) {
        std::vector<std::string> points;
        for (const core::real::AttentionCurvePoint& p : profile.attentionCurve)
            points.push_back(fmt::format("{}{} at {} GB/s", core::real::memorySize(static_cast<std::size_t>(p.bytes)),
                                         p.inCache ? " in cache" : "", number(p.bytes / p.ns)));
        fmt::print("  curve       a layer costs run {}'s steps' own mean time at {} step sizes ({}), past the first or "
                   "last at its bandwidth; the lines above are not used\n",
                   run.id, points.size(), fmt::join(points, ", "));
    }
    if (run.ranElsewhere)
        fmt::print(stderr,
                   "note: run {} ran on {}, not on this machine: the profile names that machine, and compare-real "
                   "says so when it is given it here\n",
                   run.id, terminalSafe(run.host));
    // The sums read every block again after its step, so the next step finds other blocks in the caches: its steps
    // cost what a run with them costs, and compare-real's runs (the simulator's counterpart) make none.
    if (run.summary.blockSealsSummed > 0)
        fmt::print(stderr,
                   "note: run {} summed its blocks' seals on every decode read ({} sums), which compare-real's runs "
                   "do not: its steps found other blocks in the caches (`cohsim run --no-seal-sums` makes a run "
                   "without them)\n",
                   run.id, run.summary.blockSealsSummed);
    if (!run.scenarioProblem.empty())
        fmt::print(stderr,
                   "note: run {}'s stored scenario does not read here ({}), so its steps are taken to be the given "
                   "scenario's\n",
                   run.id, run.scenarioProblem);
}

} // namespace coh::cli
