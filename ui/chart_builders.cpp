#include "ui/chart_builders.h"

#include "ui/qt_text.h"

#include <algorithm>
#include <map>

namespace coh::ui::charts {
namespace {

double ms(core::SimTime t)
{
    return static_cast<double>(t) * 1e-6;
}

double seconds(core::SimTime t)
{
    return core::toSeconds(t);
}

void sortByX(QList<QPointF>& points)
{
    std::stable_sort(points.begin(), points.end(), [](const QPointF& a, const QPointF& b) { return a.x() < b.x(); });
}

} // namespace

QList<QPointF> downsample(const QList<QPointF>& points, int maxPoints)
{
    if (points.size() <= maxPoints || maxPoints < 2)
        return points;
    const qsizetype buckets = maxPoints / 2;
    QList<QPointF> out;
    out.reserve(2 * buckets);
    for (qsizetype b = 0; b < buckets; ++b) {
        const qsizetype begin = b * points.size() / buckets, end = (b + 1) * points.size() / buckets;
        qsizetype lo = begin, hi = begin;
        for (qsizetype i = begin; i < end; ++i) {
            if (points[i].y() < points[lo].y())
                lo = i;
            if (points[i].y() > points[hi].y())
                hi = i;
        }
        out.append(points[std::min(lo, hi)]);
        if (lo != hi)
            out.append(points[std::max(lo, hi)]);
    }
    return out;
}

QList<QPointF> ttftOverTime(const core::RunResult& run)
{
    QList<QPointF> points;
    points.reserve(static_cast<qsizetype>(run.requests.size()));
    for (const auto& r : run.requests)
        points.append(QPointF(seconds(r.firstToken), ms(r.ttft())));
    sortByX(points);
    return downsample(points);
}

QList<QPointF> tpotOverTime(const core::RunResult& run)
{
    QList<QPointF> points;
    for (const auto& r : run.requests)
        if (r.tpot() >= 0)
            points.append(QPointF(seconds(r.finish), ms(r.tpot())));
    sortByX(points);
    return downsample(points);
}

QList<QPointF> cdf(std::vector<double> values, int maxPoints)
{
    QList<QPointF> points;
    if (values.empty())
        return points;
    std::sort(values.begin(), values.end());
    const auto n = values.size();
    const std::size_t shown = std::min<std::size_t>(n, static_cast<std::size_t>(std::max(2, maxPoints)));
    points.reserve(static_cast<qsizetype>(shown));
    for (std::size_t k = 0; k < shown; ++k) {
        // Evenly spaced ranks, always ending on the largest value so the curve reaches 1.0 at the max.
        const std::size_t i = shown == n ? k : (k + 1) * n / shown - 1;
        points.append(QPointF(values[i], static_cast<double>(i + 1) / static_cast<double>(n)));
    }
    return points;
}

QList<QPointF> cdfSteps(const QList<QPointF>& cdf)
{
    QList<QPointF> steps;
    if (cdf.isEmpty())
        return steps;
    steps.reserve(2 * cdf.size());
    steps.append(QPointF(cdf.front().x(), 0));
    for (const QPointF& p : cdf) {
        if (p.x() != steps.back().x())
            steps.append(QPointF(p.x(), steps.back().y())); // flat up to the next value
        steps.append(p);
    }
    return steps;
}

std::vector<double> ttftMs(const core::RunResult& run)
{
    std::vector<double> v;
    v.reserve(run.requests.size());
    for (const auto& r : run.requests)
        v.push_back(ms(r.ttft()));
    return v;
}

std::vector<double> tpotMs(const core::RunResult& run)
{
    std::vector<double> v;
    for (const auto& r : run.requests)
        if (r.tpot() >= 0)
            v.push_back(ms(r.tpot()));
    return v;
}

std::vector<double> e2eMs(const core::RunResult& run)
{
    std::vector<double> v;
    v.reserve(run.requests.size());
    for (const auto& r : run.requests)
        v.push_back(ms(r.e2e()));
    return v;
}

TpotSplit tpotSplit(const core::RunResult& run)
{
    std::vector<const core::RequestMetrics*> requests;
    for (const auto& r : run.requests)
        if (r.tpot() >= 0)
            requests.push_back(&r);
    std::stable_sort(requests.begin(), requests.end(),
                     [](const auto* a, const auto* b) { return a->finish < b->finish; });
    // Stacked areas cannot be min/max-downsampled per series without tearing the stack: take a stride.
    const std::size_t stride = std::max<std::size_t>(1, (requests.size() + kMaxPoints - 1) / kMaxPoints);
    TpotSplit split;
    for (std::size_t i = 0; i < requests.size(); i += stride) {
        const core::RequestMetrics& r = *requests[i];
        const double gaps = static_cast<double>(r.outputTokens - 1);
        const double x = seconds(r.finish);
        const double compute = ms(r.decodeCompute) / gaps;
        const double transfer = compute + ms(r.decodeTransfer) / gaps;
        const double stall = transfer + ms(r.decodeStall) / gaps;
        const double total = std::max(stall, ms(r.finish - r.firstToken) / gaps);
        split.compute.append(QPointF(x, compute));
        split.transfer.append(QPointF(x, transfer));
        split.stall.append(QPointF(x, stall));
        split.waiting.append(QPointF(x, total));
    }
    return split;
}

QString linkDirectionName(const core::RunResult& run, std::uint32_t link, bool forward)
{
    const QString id = link < run.linkIds.size() ? toQString(run.linkIds[link]) : QString::number(link);
    if (link >= run.linkEnds.size())
        return id + (forward ? QStringLiteral(" a \u2192 b") : QStringLiteral(" b \u2192 a"));
    const auto ends = run.linkEnds[link];
    const auto node = [&](std::uint32_t n) {
        return n < run.nodeIds.size() ? toQString(run.nodeIds[n]) : QString::number(n);
    };
    const std::uint32_t from = forward ? ends[0] : ends[1], to = forward ? ends[1] : ends[0];
    QString name = node(from) + QStringLiteral(" \u2192 ") + node(to);
    int parallel = 0;
    for (const auto& other : run.linkEnds)
        parallel += (other[0] == ends[0] && other[1] == ends[1]) || (other[0] == ends[1] && other[1] == ends[0]);
    if (parallel > 1)
        name += QStringLiteral(" (%1)").arg(id);
    return name;
}

QPointF nearestByX(const QList<QPointF>& points, double x)
{
    if (points.isEmpty())
        return {};
    const auto it =
        std::lower_bound(points.begin(), points.end(), x, [](const QPointF& p, double value) { return p.x() < value; });
    if (it == points.begin())
        return *it;
    if (it == points.end())
        return points.back();
    return (x - std::prev(it)->x() <= it->x() - x) ? *std::prev(it) : *it;
}

bool linksAsRate(const core::RunResult& run)
{
    return run.summary.backend.real();
}

std::vector<LinkUtilizationSeries> busiestLinks(const core::RunResult& run, std::size_t count)
{
    std::vector<const core::LinkSeries*> series;
    for (const auto& s : run.linkSeries)
        if (s.totalBytes > 0 && s.bandwidthBytesPerSec > 0)
            series.push_back(&s);
    std::stable_sort(series.begin(), series.end(),
                     [](const auto* a, const auto* b) { return a->totalBytes > b->totalBytes; });
    if (series.size() > count)
        series.resize(count);
    std::vector<LinkUtilizationSeries> out;
    const double interval = seconds(run.linkInterval);
    for (const auto* s : series) {
        LinkUtilizationSeries line;
        line.name = linkDirectionName(run, s->link, s->forward);
        QList<QPointF> points;
        points.reserve(static_cast<qsizetype>(s->bytesPerBucket.size()));
        const double full = linksAsRate(run) ? 1e9 * interval : s->bandwidthBytesPerSec * interval / 100.0;
        for (std::size_t b = 0; b < s->bytesPerBucket.size(); ++b)
            points.append(QPointF(static_cast<double>(b) * interval, s->bytesPerBucket[b] / full));
        line.points = downsample(points);
        out.push_back(std::move(line));
    }
    return out;
}

IterationMeans iterationMeans(const std::vector<core::DecodeIterationRecord>& iterations)
{
    IterationMeans means;
    if (iterations.empty())
        return means;
    for (const core::DecodeIterationRecord& it : iterations) {
        means.sequences += it.sequences;
        means.waitMs += ms(it.coherenceWait());
    }
    means.sequences /= static_cast<double>(iterations.size());
    means.waitMs /= static_cast<double>(iterations.size());
    return means;
}

std::vector<DecodeBatchSeries> decodeBatches(const core::RunResult& run)
{
    std::map<std::uint32_t, std::vector<core::DecodeIterationRecord>> byInstance;
    for (const core::DecodeIterationRecord& it : run.iterations)
        byInstance[it.instance].push_back(it);
    std::vector<DecodeBatchSeries> out;
    for (const auto& [instance, iterations] : byInstance) {
        DecodeBatchSeries series;
        series.name = instance < run.instanceIds.size() ? QString::fromStdString(run.instanceIds[instance])
                                                        : QStringLiteral("instance %1").arg(instance);
        QList<QPointF> points;
        points.reserve(static_cast<qsizetype>(iterations.size()));
        for (const core::DecodeIterationRecord& it : iterations)
            points.append(QPointF(seconds(it.start), it.sequences));
        series.points = downsample(points);
        series.means = iterationMeans(iterations);
        out.push_back(std::move(series));
    }
    return out;
}

QList<QPointF> stepPoints(const std::vector<core::BlockCountStep>& steps, double endSeconds)
{
    QList<QPointF> at;
    at.reserve(static_cast<qsizetype>(steps.size()));
    for (const auto& step : steps)
        at.append(QPointF(seconds(step.at), step.blocks));
    // Two corners a step, plus the start and the end, within kMaxPoints.
    at = downsample(at, (kMaxPoints - 2) / 2);
    QList<QPointF> points;
    points.reserve(2 * at.size() + 2);
    points.append(QPointF(0, 0));
    double before = 0;
    for (const QPointF& step : at) {
        points.append(QPointF(step.x(), before));
        points.append(step);
        before = step.y();
    }
    if (endSeconds > points.back().x())
        points.append(QPointF(endSeconds, before));
    return points;
}

std::vector<KvTierOccupancySeries> kvTierOccupancy(const core::RunResult& run)
{
    std::vector<KvTierOccupancySeries> out;
    if (!run.summary.kvTiers.enabled)
        return out;
    core::SimTime end = 0;
    for (const auto& r : run.requests)
        end = std::max(end, r.finish);
    for (const auto& tier : run.summary.kvTiers.tiers) {
        KvTierOccupancySeries series;
        series.name = QStringLiteral("%1 (%2)").arg(toQString(tier.tier), toQString(tier.protocol));
        series.capacityBlocks = static_cast<double>(tier.capacityBlocks);
        series.peakBlocks = tier.peakBlocks;
        series.points = stepPoints(tier.occupancy, seconds(end));
        out.push_back(std::move(series));
    }
    return out;
}

Availability availability(const core::RunResult& run)
{
    Availability out;
    const core::FailuresSummary& failures = run.summary.failures;
    if (!failures.enabled)
        return out;
    out.availability = failures.availability;
    double end = 0;
    for (const auto& r : run.requests)
        end = std::max(end, seconds(r.finish));
    for (const auto& f : failures.failures)
        end = std::max({end, seconds(f.failed), seconds(f.detected), f.repaired >= 0 ? seconds(f.repaired) : 0.0});
    // The count is known from the first step on (the run's start): no corner at 0 before it, unlike stepPoints().
    QList<QPointF> at;
    at.reserve(static_cast<qsizetype>(failures.instancesUp.size()));
    for (const auto& step : failures.instancesUp)
        at.append(QPointF(seconds(step.time), step.value));
    at = downsample(at, (kMaxPoints - 2) / 2);
    for (const QPointF& step : at) {
        if (!out.up.isEmpty())
            out.up.append(QPointF(step.x(), out.up.back().y()));
        out.up.append(step);
    }
    if (!out.up.isEmpty() && end > out.up.back().x())
        out.up.append(QPointF(end, out.up.back().y()));
    // A failure on the count just before it (the top of its drop), the detection and the repair on the count just
    // after them: a failure and its detection half a second later stay apart at any zoom.
    const auto before = [&](double x) {
        const auto at = std::lower_bound(out.up.begin(), out.up.end(), x,
                                         [](const QPointF& p, double value) { return p.x() < value; });
        return at == out.up.end() ? (out.up.isEmpty() ? 0.0 : out.up.back().y()) : at->y();
    };
    const auto mark = [&](FailureMarks& marks, core::SimTime t, const std::string& node, bool onTheCountBefore) {
        const double x = seconds(t);
        marks.points.append(QPointF(x, onTheCountBefore ? before(x) : stepValueAt(out.up, x)));
        marks.nodes.append(toQString(node));
    };
    for (const auto& f : failures.failures) {
        const std::string& what = f.link.empty() ? f.node : f.link; // a link's failure leaves the count as it is
        mark(out.failed, f.failed, what, true);
        mark(out.detected, f.detected, what, false);
        if (f.repaired >= 0)
            mark(out.repaired, f.repaired, what, false);
    }
    return out;
}

double stepValueAt(const QList<QPointF>& points, double x)
{
    const auto after =
        std::upper_bound(points.begin(), points.end(), x, [](double value, const QPointF& p) { return value < p.x(); });
    return after == points.begin() ? 0.0 : std::prev(after)->y();
}

} // namespace coh::ui::charts
