#include "app/cohsim/calibrate_from_run.h"

#include "app/cohsim/store_access.h"
#include "app/cohsim/summary_text.h" // number
#include "app/cohsim/terminal_text.h"
#include "core/real/node_resources.h" // memorySize

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <vector>

namespace coh::cli {

core::StoredRunCosts storedRunCosts(const GlobalOptions& global, const std::string& idText,
                                    const std::optional<std::string>& backendGiven, const std::string& scenarioFile)
{
    const std::string pick = "give a real run of the scenario (`cohsim runs list` shows each run's backend; `cohsim "
                             "run SCENARIO --backend real-cpu` makes one)";
    const std::int64_t id = parseStoredId(idText, "--from-run", "run", pick);
    auto store = openRunStore(global);
    const auto run = core::storedRunCosts(
        *store, id, backendGiven, scenarioFile,
        {"--from-run", pick,
         "make a new real run of the scenario (`cohsim run SCENARIO --backend real-cpu`): a run fits its costs as it "
         "runs",
         "give the run's scenario file: `cohsim calibrate SCENARIO --from-run ID`"});
    if (!run)
        throwUnknownRun(*store, id, "--from-run");
    return *run;
}

void printRunCosts(const core::real::HardwareProfile& profile, const core::StoredRunCosts& run, bool json)
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
        // Where the run kept its amounts of traffic apart by size, the curve is its steps' after none.
        const bool quiet = !core::real::fitStepsByTraffic(run.summary).empty();
        fmt::print(
            "  curve       a layer costs run {}'s steps' own {} at {} step sizes ({}), past the first or last at "
            "its bandwidth; the lines above are not used\n",
            run.id, quiet ? "time after no traffic, fitted," : "mean time", points.size(), fmt::join(points, ", "));
    }
    if (!json && !profile.attentionAfterTraffic.empty()) {
        std::vector<std::string> points;
        for (const core::real::TrafficFactorPoint& p : profile.attentionAfterTraffic)
            points.push_back(fmt::format(
                "{} {:.2f} ({} steps)",
                p.fromBytes == 0 ? std::string("none") : core::real::memorySize(static_cast<std::size_t>(p.fromBytes)),
                p.factor, p.steps));
        fmt::print("  traffic     a step out of the core's cache takes that times its run's factor after the bytes "
                   "copied since its node's step before: {}\n",
                   fmt::join(points, ", "));
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
