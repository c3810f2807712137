#pragma once
// The simulator against real execution on this machine (docs/real-backend.md#sim-against-real): a scenario runs on
// real-cpu, then on the simulator over the scenario as real-cpu plays it (real::profiledScenario) with the machine's
// calibrated profile, both stored when a store is given; the simulator's error is taken per metric against what
// real-cpu measured. `cohsim compare-real` and the desktop app's Execute On > Simulator Against Real CPU share it.
#include "core/real/calibration.h"
#include "core/serving/run_options.h"
#include "core/store/attention_by_size.h"
#include "core/store/cost_variant.h"
#include "core/store/run_store.h"
#include "core/workload/request.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace coh::core {

struct SimVsRealOptions {
    std::string backend = "real-cpu"; // the real side: "real-cpu" or "real-cuda"
    real::RealCpuOptions realCpu;
    std::optional<real::HardwareProfile> profile; // none: calibrate now, for the scenario's decode shape
    std::optional<int> calibrationRounds;         // rounds per copy size and context; none: calibrate()'s own
    // Real runs to take the median of (this machine's speed drifts between identical runs). Without a given profile,
    // each is paired with a profile calibrated just before it and a simulated run on that profile, and the error is
    // the median of the pairs' (SimVsReal::paired); with one, the simulator's run is deterministic and runs once.
    int realRuns = 1;
    // How far the simulator's measured costs are moved, both ways, to see how far its figures move with them: each
    // simulated run is made again with every cost 1 - s, 1 - s/2, 1 + s/2 and 1 + s times as long
    // (real::withCostsScaled), stored as figures of the comparison (RunStore::storeCostVariants), not as runs. Two
    // calibrations of this machine minutes apart differ by about this much; at a load where the order of events turns
    // on smaller differences than that, a figure moves by more than the goal
    // (docs/real-backend.md#how-far-the-simulator-moves-with-its-costs). 0: not moved. From 0 to 0.5.
    double costSensitivity = 0.05;
    // The simulator routes each request where the real run it is set against routed it (routesOf, ReplayedRoutes),
    // in every run of it (on the profile, on the real run's own costs, with its costs moved): the comparison then
    // sets costs against costs, apart from the routes a load-aware router takes on the times it saw
    // (docs/real-backend.md#routed-as-the-real-run). With a profile given and several real runs, the one simulated
    // run follows the first.
    bool realRoutes = false;
    // Both runs take the cancel flag and progress listener; `stage` hears each step before it starts.
    const std::atomic<bool>* cancel = nullptr;
    ProgressListener* progress = nullptr;
    std::function<void(const std::string& stage)> stage;
};

// The simulator's goal against a real backend on this machine (docs/real-backend.md#sim-against-real): latencies
// within 10% of what was measured; counts and bytes, outcomes of the protocol, equal.
constexpr double kSimulatorErrorGoal = 0.10;

// Whether the simulator met its goal on a figure: a count equal; any other within kSimulatorErrorGoal of the real
// value, or within `resolution` of it (a difference under the last digit shown is no finding). compare-real and
// Compare both judge by it.
inline bool withinSimulatorGoal(double real, double simulated, bool count, double resolution)
{
    if (std::isnan(real) || std::isnan(simulated))
        return std::isnan(real) && std::isnan(simulated);
    const double allowed = count ? resolution : std::max(kSimulatorErrorGoal * std::abs(real), resolution);
    return std::abs(simulated - real) <= allowed;
}

struct SimVsRealRow {
    // Half a thousandth of a ms, the finest digit compare-real prints of a time (below 1 ms): a difference under it
    // is no finding. Above a few ms, 10% of the figure is the larger allowance anyway.
    static constexpr double kResolutionMs = 0.0005;
    std::string metric;
    double real = 0, simulated = 0;
    bool count = false;        // messages, flows, bytes: the goal is equality
    bool everyRunEqual = true; // a count: equal to the simulator's in every real run (`real` is their median)
    // A latency: each side took it from at least one request in every run. One that did not (no request completed,
    // none with a second token) is shown, but not judged: 0 against 0 is no agreement.
    bool measured = true;
    // Paired runs (SimVsReal::paired): each pair's error in %, in run order. `real` and `simulated` are then the
    // medians of each side, and the error is the median of the pairs' errors: a pair's two runs were measured and
    // calibrated minutes apart, so the machine's drift between pairs stays out of it.
    std::vector<double> pairErrorsPct;
    // The simulator on each real run's own costs (real::ownCostProfile; counts: its figure), the median over the real
    // runs, and each run's error in % (pairErrorPct), in run order: the error left once the calibration's drift is
    // out of it. NaN, and no errors, where no real run fitted its costs.
    double ownCostSimulated = std::nan("");
    std::vector<double> ownCostErrorsPct;
    bool ownCostEveryRunEqual = true; // a count: equal on its own costs in every real run that fitted any
    double ownCostErrorPct() const { return ownCostErrorsPct.empty() ? std::nan("") : median(ownCostErrorsPct); }
    // The simulator's error in % with its costs moved (SimVsRealOptions::costSensitivity; the unmoved costs included):
    // the lowest and the highest, each taken as errorPct() is (unpaired: against the real median; over pairs: the
    // median of each pair's), so the range holds the error. NaN where no costs were moved, or where an error was NaN.
    double movedCostsLowPct = std::nan(""), movedCostsHighPct = std::nan("");
    bool movedCosts() const { return !std::isnan(movedCostsLowPct) && !std::isnan(movedCostsHighPct); }
    // The simulator gives the real figure, or figures either side of it, at costs moved no further than a calibration
    // drifts: an error here is not told apart from the costs' own uncertainty.
    bool movedCostsReachReal() const { return movedCosts() && movedCostsLowPct <= 0 && movedCostsHighPct >= 0; }
    // The simulator's error in % of the real figure: NaN where the real figure is 0 and the simulated one is not (in
    // any pair).
    double errorPct() const
    {
        if (!pairErrorsPct.empty())
            return median(pairErrorsPct);
        if (simulated == real)
            return 0.0;
        return real != 0 ? 100.0 * (simulated - real) / real : std::nan("");
    }
    bool withinGoal() const
    {
        if (count)
            return everyRunEqual && simulated == real;
        if (!measured)
            return false;
        if (pairErrorsPct.empty())
            return withinSimulatorGoal(real, simulated, false, kResolutionMs);
        // Within the goal's share, or a difference under the last digit shown.
        const double error = errorPct();
        return !std::isnan(error) && (std::abs(error) <= 100 * kSimulatorErrorGoal ||
                                      std::abs(error) * std::abs(real) / 100 <= kResolutionMs);
    }
    // One pair's error in % of its real figure: 0 for a difference within `resolution` (under the last digit shown:
    // no finding), NaN where only the real figure is 0. compare-real and Compare take each pair's error by it.
    static double pairErrorPct(double real, double simulated, double resolution = kResolutionMs)
    {
        if (std::abs(simulated - real) <= resolution)
            return 0.0;
        return real != 0 ? 100.0 * (simulated - real) / real : std::nan("");
    }
    // Over pairs, the difference as an amount: the median error's share of the real figure (the sides' median), so
    // that its sign is the error's (the median of the pairs' differences may have the other); where that error is
    // NaN, the median of the pairs' differences. compare-real and Compare both give it.
    static double pairedDifference(double real, double errorPct, const std::vector<double>& differences)
    {
        return std::isfinite(errorPct) && std::isfinite(real) ? errorPct / 100 * std::abs(real) : median(differences);
    }
    // The mean of figures (NaN for none): figures that add up still do when averaged, as medians do not.
    static double mean(const std::vector<double>& figures)
    {
        double sum = 0;
        for (const double f : figures)
            sum += f;
        return figures.empty() ? std::nan("") : sum / static_cast<double>(figures.size());
    }
    // The median of figures (the mean of the middle two of an even count); NaN if any is NaN.
    static double median(std::vector<double> figures)
    {
        if (figures.empty() || std::any_of(figures.begin(), figures.end(), [](double f) { return std::isnan(f); }))
            return std::nan("");
        std::sort(figures.begin(), figures.end());
        const std::size_t n = figures.size();
        return n % 2 ? figures[n / 2] : (figures[n / 2 - 1] + figures[n / 2]) / 2;
    }
};

// TTFT's mean, or one of its parts' (core/engine/ttft_parts.h), real against simulated: the parts' differences add
// up to TTFT's, so they say where its error comes from. Over several runs every figure is a mean (of the runs' means;
// over pairs, so also of the pairs' differences), not a median: means add up, medians would not.
struct SimVsRealPart {
    std::string part;                                // "TTFT", then each part's label ("load")
    std::string key;                                 // JSON's: "ttft", "load", ...
    double real = 0, simulated = 0;                  // means in ms, over the runs of each side
    std::vector<double> pairRealMs, pairSimulatedMs; // paired: each pair's means, in run order
    std::vector<double> pairDifferencesMs() const
    {
        std::vector<double> d;
        for (std::size_t p = 0; p < pairRealMs.size(); ++p)
            d.push_back(pairSimulatedMs[p] - pairRealMs[p]);
        return d;
    }
    // Simulated less real: the sides' difference, which over pairs is the mean of the pairs' differences.
    double differenceMs() const { return simulated - real; }
};

struct SimVsReal {
    RunResult real, simulated;                // the first real run, and the simulated run of its profile
    std::int64_t realId = 0, simulatedId = 0; // 0 without a store
    std::vector<std::int64_t> realIds;        // every real run's, in order
    int realRuns = 1;                         // the rows' real figures are the median over these
    real::HardwareProfile profile;            // the first real run's
    // Several real runs, no profile given: each real run was paired with a profile calibrated just before it and a
    // simulated run on that profile (the rows' pairErrorsPct). Else one profile and one simulated run for all.
    bool paired = false;
    std::vector<real::HardwareProfile> profiles; // one per simulated run, in order
    std::vector<std::int64_t> simulatedIds;      // every simulated run's, in order (0s without a store)
    std::vector<SimVsRealRow> rows;              // TTFT, TPOT and KV transfer p50/p99, messages, flows, coherence bytes
    std::vector<SimVsRealPart> ttftParts;        // TTFT's mean, then its six parts' in order
    // Every real run's decode steps by the bytes a layer read, measured and as its profile (and its own costs, where
    // it fitted them) predicts them.
    std::vector<AttentionSizeRow> attentionBySize;
    // Of the real runs, how many sent other messages, flows or coherence bytes than the simulator (transfers raced
    // and the order of events followed measured times).
    int realRunsWithOtherCounts = 0;
    bool countsEqual() const { return realRunsWithOtherCounts == 0; }
    // Each real run's own costs (real::ownCostProfile of the profile it was set against), in run order, for the runs
    // that fitted any (real::fittedOwnCosts), and how many of the simulated runs on them sent other messages, flows or
    // bytes than their real run. Those runs are stored as figures of the comparison (RunStore::storeCostVariants,
    // with the real run), not as runs of the scenario.
    std::vector<real::HardwareProfile> ownCostProfiles;
    int ownCostRunsWithOtherCounts = 0;
    double costSensitivity = 0; // how far the costs were moved (SimVsRealOptions::costSensitivity); 0: not moved
    // The latencies beyond the goal that the simulator reaches with its costs moved
    // (SimVsRealRow::movedCostsReachReal), by name without their unit ("TPOT p99"): compare-real's last line and the
    // app's status bar name them.
    std::vector<std::string> latenciesReachedByMovedCosts() const;
};

// The factors SimVsRealOptions::costSensitivity moves every cost by: 1 - s, 1 - s/2, 1 + s/2, 1 + s; none for 0.
// Throws InputError (field --sensitivity) outside 0 to 0.5.
std::vector<double> movedCostFactors(double sensitivity);

// The figures the simulator is judged on, real against simulated: TTFT, TPOT and KV transfer p50/p99, messages,
// flows, coherence bytes (the rows of SimVsReal, and of a report comparing a real run with a simulated one).
std::vector<SimVsRealRow> simVsRealRows(const RunSummary& real, const RunSummary& simulated);
// The same of one stored pair, with what compare-real kept beside it (RunStore::costVariants): each row's figure and
// error on the real run's own costs, and its range with the model's costs moved, as compare-real takes them for one
// real run. Left NaN where the runs kept none.
std::vector<SimVsRealRow> simVsRealRows(const RunSummary& real, const RunSummary& simulated,
                                        const std::vector<CostVariant>& realVariants,
                                        const std::vector<CostVariant>& simulatedVariants);

// The run names: "<scenario> · real-cpu" (or real-cuda; with " k/N" when there are several) and "<scenario> ·
// simulated on its profile" (with " k/N" when paired).
std::string simVsRealRunName(const Scenario& scenario, bool real, int run = 1, int runs = 1,
                             const std::string& backend = "real-cpu");

// What to measure for `backend` running the scenario: its decode steps' attention shape (the first decode instance's
// share of the heads), the K/V element the backend holds its model in, the descriptor its copies are cut into, and
// memories of the run's arena size. compare-real calibrates with it, and `cohsim calibrate SCENARIO` too.
real::CalibrationOptions calibrationFor(const Scenario& scenario, const std::string& backend,
                                        const real::RealCpuOptions& realCpu);

// How a calibration for a scenario is run beside what calibrationFor() measures: rounds per copy size and context
// (none: calibrate()'s own; at least 1), and CalibrationOptions' progress and cancel.
struct ScenarioCalibration {
    std::optional<int> rounds;
    std::function<void(double fraction, const std::string& measuring)> progress;
    const std::atomic<bool>* cancel = nullptr;
};
// This machine's `backend` calibrated for the scenario (calibrationFor, then real::calibrate): what compare-real,
// `cohsim calibrate SCENARIO` (with --from-run too) and the app's profiles measure. Throws RunCancelled when cancelled
// and what a calibration throws; the caller checks first that the backend runs the scenario (checkBackendRuns).
real::HardwareProfile calibrateFor(const Scenario& scenario, const std::string& backend,
                                   const real::RealCpuOptions& realCpu, const ScenarioCalibration& how = {});

// Throws InputError (field --profile, with the command that makes a fitting one) when the profile cannot stand for
// `backend` running the scenario with `realCpu`: measured on another backend, or with another attention shape, K/V
// element or descriptor than calibrationFor() would measure.
void checkProfileFits(const real::HardwareProfile& profile, const std::string& backend, const Scenario& scenario,
                      const real::RealCpuOptions& realCpu);

// Throws InputError when the real backend cannot run the scenario or the costs cannot be moved so far (before anything
// runs or is stored), RunCancelled when cancelled (the run under way is stored as cancelled; cancelled while the costs
// are moved, the runs stored stay as they are, complete), and what a run throws.
SimVsReal runSimVsReal(RunStore* store, const Scenario& scenario, const Workload& workload,
                       const SimVsRealOptions& options);

} // namespace coh::core
