#pragma once
// The numbers behind the run charts, computed from a RunResult as point lists: no widgets here, so the
// tests can compare them with the record directly. Times on x are seconds of simulated time; latencies ms.
#include "core/engine/run_result.h"

#include <QList>
#include <QPointF>
#include <QString>

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

// The busiest link directions by bytes, as utilisation (% of bandwidth) per time bucket.
struct LinkUtilizationSeries {
    QString name; // linkDirectionName()
    QList<QPointF> points;
};
std::vector<LinkUtilizationSeries> busiestLinks(const core::RunResult& run, std::size_t count = 5);

// The point of `points` (sorted by x) nearest to x: what a hover over a line or area reports exactly.
QPointF nearestByX(const QList<QPointF>& points, double x);

} // namespace coh::ui::charts
