#pragma once
// Two or more runs side by side, as numbers a view only has to show: every metric per run, its difference from
// the first run (absolute and relative) and whether that difference is beyond the metric's threshold for
// "about the same". Metrics come in groups (latency, throughput, traffic, coherence, staleness, prefix pool,
// failures); a group that no run has anything in (no stale reads, no failures) is left out.
#include "core/engine/run_result.h"
#include "core/store/run_store.h"
#include "core/store/sim_vs_real.h" // kSimulatorErrorGoal

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
};

struct RunComparison {
    std::vector<std::string> titles; // one per run: what differs between the runs ("lazy-causal", "seed 7")
    std::vector<PropertyRow> properties;
    std::vector<MetricRow> metrics;   // grouped in comparedMetrics()'s order, empty groups left out
    std::vector<std::string> summary; // plain-language sentences (compare_summary.h)
    // The second run is the simulator's model of the first, a real run (RunInfo::modelsRun, as compare-real stores
    // them): a difference is the simulator's error against what was measured, not a better or worse choice.
    bool simulatorError = false;
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

RunComparison compareRuns(const std::vector<ComparedRun>& runs);

} // namespace coh::core
