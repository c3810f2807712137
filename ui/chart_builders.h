#pragma once
// The numbers behind the run charts, computed from a RunResult as point lists: no widgets here, so the
// tests can compare them with the record directly. Times on x are seconds of simulated time; latencies ms.
#include "core/engine/run_result.h"

#include <QList>
#include <QPointF>
#include <QString>
#include <QStringList>

#include <vector>

namespace coh::ui::charts {

inline constexpr int kMaxPoints = 2000; // what one series may hold: more is invisible at chart size

// Keeps the lowest and highest point of each of maxPoints/2 index buckets, in order, so spikes survive.
QList<QPointF> downsample(const QList<QPointF>& points, int maxPoints = kMaxPoints);

// Per request, sorted by x: (first-token time, TTFT ms) and (finish time, TPOT ms; requests with > 1 token).
QList<QPointF> ttftOverTime(const core::RunResult& run);
QList<QPointF> tpotOverTime(const core::RunResult& run);

// Empirical CDF: (value, fraction of values <= it); the last point is (max, 1.0).
QList<QPointF> cdf(std::vector<double> values, int maxPoints = kMaxPoints);
// The staircase a cdf() draws as: flat from each value to the next, rising at each, from 0 at the smallest. An
// empirical CDF holds no value between two requests' latencies; a line through its points would show 20 requests
// as a smooth ramp. Up to twice the points, plus one: a cdf() thinned to its maxPoints keeps its steps between the
// ranks it kept.
QList<QPointF> cdfSteps(const QList<QPointF>& cdf);
std::vector<double> ttftMs(const core::RunResult& run);
std::vector<double> tpotMs(const core::RunResult& run);
std::vector<double> e2eMs(const core::RunResult& run);

// Where each request's time per output token went, stacked by finish time (ms per token): compute, KV
// transfer and coherence stall from the record, and the remainder spent waiting for a shared device.
struct TpotSplit {
    QList<QPointF> compute, transfer, stall, waiting; // cumulative upper edges, in this stacking order
};
TpotSplit tpotSplit(const core::RunResult& run);

// One direction of a link by the nodes it runs between: "gpu0 → nvswitch", with the link's id added when
// another link joins the same two nodes ("gpu0 → nvswitch (nvlink-2)"); "link-id a → b" / "b → a" when the
// run does not know the link's ends.
QString linkDirectionName(const core::RunResult& run, std::uint32_t link, bool forward);

// The busiest link directions by bytes, as utilisation (% of bandwidth) per time bucket; on a real backend, whose
// copies take this machine's memory and not the scenario's links, as the rate they moved (GB/s) instead.
struct LinkUtilizationSeries {
    QString name; // linkDirectionName()
    QList<QPointF> points;
};
std::vector<LinkUtilizationSeries> busiestLinks(const core::RunResult& run, std::size_t count = 5);
bool linksAsRate(const core::RunResult& run); // busiestLinks gives GB/s, not %

// The sequences in each recorded decode iteration (RunResult::iterations), one series per decode instance in
// instance order: (the iteration's start in seconds, its sequences), downsampled. Empty for a run without a record.
// Over some recorded decode iterations: sequences a batch, and coherence wait before computing (ms). Zero for none.
struct IterationMeans {
    double sequences = 0, waitMs = 0;
};
IterationMeans iterationMeans(const std::vector<core::DecodeIterationRecord>& iterations);

struct DecodeBatchSeries {
    QString name; // the instance's id
    QList<QPointF> points;
    IterationMeans means; // over its recorded iterations
};
std::vector<DecodeBatchSeries> decodeBatches(const core::RunResult& run);

// A step function as the corners of its staircase, in seconds: (0, 0), then per step (at, the count before it) and
// (at, its count), and (endSeconds, the last count) when the run goes on after the last step. More than kMaxPoints
// corners: the steps are first downsampled (downsample()), so the line stays a staircase through the extremes.
QList<QPointF> stepPoints(const std::vector<core::BlockCountStep>& steps, double endSeconds);

// The blocks each KV tier below HBM held over the run (summary.kvTiers; empty without tiers), in tier order.
struct KvTierOccupancySeries {
    QString name; // "dram (msi-directory)": the tier and its protocol
    double capacityBlocks = 0;
    double peakBlocks = 0;
    QList<QPointF> points; // stepPoints() of the tier's occupancy, up to the run's last finish
};
std::vector<KvTierOccupancySeries> kvTierOccupancy(const core::RunResult& run);

// The serving instances up over a run with node failures (summary.failures; empty without), and the moments of each
// failure on that staircase: when the node failed, when the monitor declared it dead, when it was back.
struct FailureMarks {
    // (seconds, instances up): failed on the count just before (the top of the drop), detected and repaired on the
    // count just after; in the order of summary.failures.failures.
    QList<QPointF> points;
    QStringList nodes; // what failed at each point: its node, or its link
};
struct Availability {
    QList<QPointF> up; // the staircase's corners: from the first step, two a step, held to the run's end
    FailureMarks failed, detected, repaired; // repaired: only the failures repaired within the run
    double availability = 1;                 // instance time up over instance time (summary.failures)
};
Availability availability(const core::RunResult& run);

// The value of a staircase from stepPoints() at x: the last corner at or before x (0 before the first).
double stepValueAt(const QList<QPointF>& points, double x);

// The point of `points` (sorted by x) nearest to x: what a hover over a line or area reports exactly.
QPointF nearestByX(const QList<QPointF>& points, double x);

} // namespace coh::ui::charts
