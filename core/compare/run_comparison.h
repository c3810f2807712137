#pragma once
// Two or more runs side by side, as numbers a view only has to show: every metric per run, its difference from
// the first run (absolute and relative) and whether that difference is beyond the metric's threshold for
// "about the same". Metrics come in groups (latency, TTFT by part, throughput, traffic, coherence, staleness, prefix
// pool, failures); a group that no run has anything in (no stale reads, no failures) is left out.
// Real runs and the simulated runs that model them (compare-real's pairs) read as the simulator's error instead:
// one column of the real runs and one of their models, the error the median of the pairs' (RunComparison::pairs).
#include "core/engine/run_result.h"
#include "core/store/cost_variant.h"
#include "core/store/run_store.h"
#include "core/store/sim_vs_real.h" // kSimulatorErrorGoal

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace coh::core {

enum class Better { Lower, Higher, Neither };

enum class MetricUnit { Milliseconds, Seconds, Count, Bytes, Percent, TokensPerSecond, RequestsPerSecond };

struct MetricSpec {
    const char* group;
    const char* label;
    MetricUnit unit;
    Better better;
    // Differences within this fraction of the first run's value are "about the same"; 0: only equal values are.
    double tolerance;
    // ... and so are differences within this amount, in the metric's unit, whatever the values: below what
    // matters for the metric (0.01 ms for latencies). The unit's display step sets a floor too (displayStep).
    double floor;
    double (*value)(const RunSummary&);
    // A percentile of the requests: also about the same within the percentile's own noise (see MetricRow).
    double quantile = -1;
    double (*sample)(const RequestMetrics&) = nullptr; // ms; NaN where the request has none
};

// The group of TTFT's mean and its parts' means (core/engine/ttft_parts.h): they explain TTFT, which its percentiles
// judge, so the summary's verdict on the runs leaves them out.
inline constexpr const char* kTtftPartsGroup = "TTFT by part (means)";

// The metrics in the order views list them; docs/gui-shell.md#compare says why each threshold is what it is.
const std::vector<MetricSpec>& comparedMetrics();

// The last digit views write a value or a difference of `unit` to (ui/metric_format.cpp): thousandths of a
// millisecond, second, percent or rate below 1; whole counts and bytes. A difference under half of it reads as
// "+0.000 ms", so it is about the same whatever the metric's tolerance.
double displayStep(MetricUnit unit);

// The amount a difference may reach and still be about the same, whatever the values: the metric's floor or
// half its unit's display step, whichever is larger.
double absoluteAllowance(const MetricSpec& spec);

// How a run's value stands against the first run's. Within and Beyond only when the runs are a real run and the
// simulator's model of it (RunComparison::simulatorError): the simulator's error is within its goal or beyond it.
enum class Verdict { Baseline, Same, Better, Worse, Differs, Within, Beyond };

// A view shows one column per run, except for pairs (RunComparison::pairs), where a column stands for several runs:
// "per run" below is then "per column", and a column's value is the median of its runs'.
struct MetricRow {
    const MetricSpec* spec = nullptr;
    std::vector<double> values;   // one per run
    std::vector<double> delta;    // value - first run's value (0 for the first)
    std::vector<double> relative; // delta / |first run's value|; NaN when that is 0
    // The run's noise for a percentile: half the width of its 95% confidence interval from the order
    // statistics of its requests (0 when not a percentile or the requests are not at hand).
    std::vector<double> noise;
    // How far a run's value may be from the first run's and still be about the same: the largest of the
    // tolerance times the first value, the two runs' noise and absoluteAllowance() (0 for the first run).
    // Under simulatorError, the simulator's goal instead: kSimulatorErrorGoal of the real value, or equality.
    std::vector<double> allowance;
    std::vector<Verdict> verdicts;
    // Pairs of runs (RunComparison::pairs > 1): each pair's difference, its simulated run's value less its real
    // run's, and that as a share of the real value (0 where equal, NaN where only the real value is 0), in pair
    // order. delta[1] and relative[1] are their medians, as compare-real takes them (SimVsRealRow).
    std::vector<double> pairDelta, pairRelative;
    // Under simulatorError, where compare-real kept the simulator's figures on other costs (ComparedRun::costVariants;
    // RunComparison::ownCosts, costSensitivity), judged as the simulator's error is, one rule with compare-real's
    // ON OWN COSTS and AT COSTS columns (cost_variant_errors.h):
    // - on each real run's own costs: the simulated value (the median over pairs), the error as a share (the median
    //   of the pairs'; NaN where only a real value is 0) and its verdict (Within or Beyond; Baseline where not kept);
    // - with the model's every cost moved: the lowest and the highest error as a share, each the median of the pairs'
    //   (NaN where not kept, or where an error is NaN).
    double ownCostsValue = std::nan("");
    double ownCostsRelative = std::nan("");
    Verdict ownCostsVerdict = Verdict::Baseline;
    double movedCostsLow = std::nan(""), movedCostsHigh = std::nan("");
    bool movedCosts() const { return !std::isnan(movedCostsLow) && !std::isnan(movedCostsHigh); }
    // The simulator reaches the real value, or values either side of it, with its costs moved no further.
    bool movedCostsReachReal() const { return movedCosts() && movedCostsLow <= 0 && movedCostsHigh >= 0; }
};

// What ran, one line per property, with each run's value as text (decode protocol, seed, ...).
struct PropertyRow {
    std::string label;
    std::vector<std::string> values;
    bool differs = false;
};

struct ComparedRun {
    RunInfo info;
    const RunSummary* summary = nullptr;                   // must outlive the comparison
    const std::vector<RequestMetrics>* requests = nullptr; // optional: gives percentiles their noise
    // Optional: what compare-real kept with the run (RunStore::costVariants): a real run's own costs, a model's
    // moved costs. A simulator-error comparison shows them where every pair has them.
    const std::vector<CostVariant>* costVariants = nullptr;
};

struct RunComparison {
    // One per column: what differs between the runs ("lazy-causal", "seed 7"); for pairs, between their sides
    // ("real-cpu", "simulated"), whose values are medians (a view says so).
    std::vector<std::string> titles;
    // The runs each column stands for, by their place in compareRuns()'s input: one each, in that order, unless the
    // runs are pairs (below): then the real runs, then the simulated runs, each in the order of their pairs.
    std::vector<std::vector<std::size_t>> columns;
    std::vector<PropertyRow> properties; // a column of several runs: its runs' distinct values, joined
    std::vector<MetricRow> metrics;      // grouped in comparedMetrics()'s order, empty groups left out
    std::vector<std::string> summary;    // plain-language sentences (compare_summary.h)
    // Every run is a real run or the simulator's model of one of them (RunInfo::modelsRun, as compare-real stores
    // them), one model per real run: a difference is the simulator's error against what was measured, not a better
    // or worse choice, and the real runs come first whatever the input's order.
    bool simulatorError = false;
    // Under simulatorError, how many pairs of a real run and its model. Above 1 (compare-real --repeat, the app's
    // Pairs for Simulator Against Real): two columns, each latency's error the median of the pairs' errors, a count
    // equal only if equal in every pair, and no column's noise (a median's error is not bounded by one run's).
    std::size_t pairs = 0;
    // Under simulatorError: every real run came with its own costs' figures (MetricRow::ownCostsRelative), and every
    // model with its moved costs', the same factors for each; costSensitivity is how far they moved (the largest
    // |factor - 1|), 0 where not kept.
    bool ownCosts = false;
    double costSensitivity = 0;
    // Not simulatorError, and the runs ran on different backends (a simulated run and a real one that is not its
    // model, or real-cpu and real-cuda): their times are of different machines, the scenario's hardware or this one,
    // so a difference is no better or worse choice. Verdicts say Differs, not Better or Worse, and the summary says
    // why instead of naming the fastest.
    bool otherMachines = false;
    std::vector<std::string> backends; // under otherMachines: the distinct backends, in the runs' order
};

// Stale block reads as a percentage of decode's block reads (0 when there were none).
double staleReadPercent(const RunSummary& summary);

// Whether `value` is about the same as `base` under `spec`'s tolerance, within `noise` of it, or within
// absoluteAllowance(spec).
bool aboutTheSame(const MetricSpec& spec, double base, double value, double noise = 0);

// Half the width of the 95% confidence interval of the `quantile` of `values` (order statistics: the ranks
// q(n-1) ± 1.96 sqrt(n q (1-q))). 0 for fewer than two values.
double quantileNoise(std::vector<double> values, double quantile);

// Whether a metric's error is judged by equality (counts and bytes: outcomes of the protocol) or by
// kSimulatorErrorGoal (latencies, rates and shares: measured).
bool mustEqual(const MetricSpec& spec);

// Of a row of pairs (RunComparison::pairs > 1): whether pair `pair`'s runs differ by more than half the unit's display
// step (NaN counts as differing), and how many pairs do.
bool pairDiffers(const MetricRow& row, std::size_t pair);
std::size_t pairsThatDiffer(const MetricRow& row);

RunComparison compareRuns(const std::vector<ComparedRun>& runs);

} // namespace coh::core
