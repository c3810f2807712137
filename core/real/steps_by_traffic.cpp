#include "core/real/steps_by_traffic.h"

#include "core/net/traffic_buckets.h"

#include <algorithm>
#include <cmath>

namespace coh::core::real {

namespace {

// Far more rounds than a run's few dozen entries take to settle; a bound on what a hostile stored run can cost.
constexpr int kMaxFitRounds = 20000;
constexpr double kSettled = 1e-12;

std::size_t indexOf(const std::vector<std::uint64_t>& sorted, std::uint64_t x)
{
    return static_cast<std::size_t>(std::lower_bound(sorted.begin(), sorted.end(), x) - sorted.begin());
}

// The distinct values of `of` over the entries, in order.
template <class Of> std::vector<std::uint64_t> distinct(const std::vector<TrafficBucket>& entries, Of of)
{
    std::vector<std::uint64_t> out;
    for (const TrafficBucket& e : entries)
        out.push_back(of(e));
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

// The entries joined to amount `reference` through sizes they share (a breadth-first walk over amounts and sizes).
std::vector<TrafficBucket> joinedTo(const std::vector<TrafficBucket>& entries, std::uint64_t reference)
{
    std::vector<std::uint64_t> amounts{reference}, sizes;
    for (bool grew = true; grew;) {
        grew = false;
        for (const TrafficBucket& e : entries) {
            const bool amount = std::find(amounts.begin(), amounts.end(), e.fromBytes) != amounts.end();
            const bool size = std::find(sizes.begin(), sizes.end(), e.sizeFromBytes) != sizes.end();
            if (amount == size)
                continue;
            (amount ? sizes : amounts).push_back(amount ? e.sizeFromBytes : e.fromBytes);
            grew = true;
        }
    }
    std::vector<TrafficBucket> joined;
    for (const TrafficBucket& e : entries)
        if (std::find(amounts.begin(), amounts.end(), e.fromBytes) != amounts.end())
            joined.push_back(e);
    return joined;
}

} // namespace

StepsByTraffic fitStepsByTraffic(const BackendSummary& run)
{
    // The entries of each size of the amounts of enough steps.
    std::vector<std::uint64_t> enough;
    for (const TrafficBucket& total : trafficTotals(run.attentionByTraffic))
        if (total.steps >= kMinTrafficSteps)
            enough.push_back(total.fromBytes);
    std::vector<TrafficBucket> entries;
    for (const TrafficBucket& e : run.attentionByTraffic)
        if (e.sizeFromBytes > 0 && e.bytes > 0 && e.ns > 0 && std::isfinite(e.bytes) && std::isfinite(e.ns) &&
            std::find(enough.begin(), enough.end(), e.fromBytes) != enough.end())
            entries.push_back(e);
    // Each pass fits what is left; an amount whose factor a profile cannot hold is left out and the rest fitted again.
    for (;;) {
        std::vector<std::uint64_t> amounts = distinct(entries, [](const TrafficBucket& e) { return e.fromBytes; });
        if (amounts.size() < 2)
            return {};
        std::vector<std::uint64_t> steps(amounts.size(), 0);
        for (const TrafficBucket& e : entries)
            steps[indexOf(amounts, e.fromBytes)] += e.steps;
        // None where enough steps came after none; else the amount of most steps (the smallest of a tie).
        const std::uint64_t reference =
            amounts.front() == 0 ? 0 : amounts[std::max_element(steps.begin(), steps.end()) - steps.begin()];
        if (std::vector<TrafficBucket> joined = joinedTo(entries, reference); joined.size() < entries.size()) {
            entries = std::move(joined);
            continue;
        }
        const std::vector<std::uint64_t> sizes =
            distinct(entries, [](const TrafficBucket& e) { return e.sizeFromBytes; });
        std::vector<std::size_t> amountOf, sizeOf;
        for (const TrafficBucket& e : entries) {
            amountOf.push_back(indexOf(amounts, e.fromBytes));
            sizeOf.push_back(indexOf(sizes, e.sizeFromBytes));
        }
        std::vector<double> factor(amounts.size(), 1.0), rate(sizes.size(), 0.0);
        for (int round = 0; round < kMaxFitRounds; ++round) {
            std::vector<double> ns(sizes.size(), 0.0), predicted(sizes.size(), 0.0);
            for (std::size_t i = 0; i < entries.size(); ++i) {
                ns[sizeOf[i]] += entries[i].ns;
                predicted[sizeOf[i]] += entries[i].bytes * factor[amountOf[i]];
            }
            for (std::size_t s = 0; s < sizes.size(); ++s)
                rate[s] = ns[s] / predicted[s];
            std::vector<double> took(amounts.size(), 0.0), expected(amounts.size(), 0.0);
            for (std::size_t i = 0; i < entries.size(); ++i) {
                took[amountOf[i]] += entries[i].ns;
                expected[amountOf[i]] += entries[i].bytes * rate[sizeOf[i]];
            }
            double moved = 0;
            for (std::size_t a = 0; a < amounts.size(); ++a) {
                const double next = took[a] / expected[a];
                moved = std::max(moved, std::fabs(next / factor[a] - 1));
                factor[a] = next;
            }
            if (moved < kSettled)
                break;
        }
        const double scale = factor[indexOf(amounts, reference)];
        StepsByTraffic fit;
        std::vector<std::uint64_t> refused;
        for (std::size_t a = 0; a < amounts.size(); ++a) {
            const TrafficFactorPoint point{amounts[a], factor[a] / scale, steps[a]};
            if (trafficPointProblem(point, nullptr))
                refused.push_back(point.fromBytes);
            else
                fit.factors.push_back(point);
        }
        if (!refused.empty()) {
            std::erase_if(entries, [&](const TrafficBucket& e) {
                return std::find(refused.begin(), refused.end(), e.fromBytes) != refused.end();
            });
            continue;
        }
        for (std::size_t s = 0; s < sizes.size(); ++s)
            fit.nsPerByteBySize.emplace_back(sizes[s], rate[s] * scale);
        return fit;
    }
}

std::vector<TrafficFactorPoint> ownTrafficFactors(const BackendSummary& run, const HardwareProfile& costed)
{
    std::vector<TrafficFactorPoint> points;
    for (const TrafficBucket& b : trafficTotals(run.attentionByTraffic)) {
        if (b.steps < kMinTrafficSteps || !(b.bytes > 0) || !(b.ns > 0))
            continue;
        const double steps = static_cast<double>(b.steps);
        const double predicted = costed.attentionNs(b.bytes / steps, 0);
        const TrafficFactorPoint point{b.fromBytes, predicted > 0 ? (b.ns / steps) / predicted : 0, b.steps};
        if (!trafficPointProblem(point, points.empty() ? nullptr : &points.back()))
            points.push_back(point);
    }
    if (points.size() < 2)
        points.clear();
    return points;
}

std::vector<AttentionCurvePoint> ownAttentionCurve(const BackendSummary& run, std::size_t warmBytes,
                                                   const StepsByTraffic* quiet)
{
    std::vector<AttentionCurvePoint> curve;
    for (const StepSizeBucket& b : run.attentionBySize) {
        if (b.steps == 0)
            continue;
        const bool inCache = readsFromCoreCache(b.meanBytes(), warmBytes);
        double ns = b.meanNs();
        if (quiet && !b.inCache && !inCache) {
            const auto& rates = quiet->nsPerByteBySize;
            const auto it =
                std::find_if(rates.begin(), rates.end(), [&](const auto& r) { return r.first == b.fromBytes; });
            if (it == rates.end())
                continue;
            ns = b.meanBytes() * it->second;
        }
        curve.push_back({b.meanBytes(), ns, inCache});
    }
    std::stable_sort(curve.begin(), curve.end(),
                     [](const AttentionCurvePoint& a, const AttentionCurvePoint& b) { return a.bytes < b.bytes; });
    return plausibleCurve(std::move(curve), warmBytes);
}

OwnAttention ownAttention(const BackendSummary& run, std::size_t warmBytes)
{
    const bool sized = std::any_of(run.attentionByTraffic.begin(), run.attentionByTraffic.end(),
                                   [](const TrafficBucket& b) { return b.sizeFromBytes > 0; });
    if (sized) {
        const StepsByTraffic fit = fitStepsByTraffic(run);
        if (!fit.empty()) {
            std::vector<AttentionCurvePoint> curve = ownAttentionCurve(run, warmBytes, &fit);
            if (std::any_of(curve.begin(), curve.end(), [](const AttentionCurvePoint& p) { return !p.inCache; }))
                return {std::move(curve), fit.factors, true};
        }
        return {ownAttentionCurve(run, warmBytes), {}, false};
    }
    OwnAttention own{ownAttentionCurve(run, warmBytes), {}, false};
    if (!own.curve.empty()) {
        HardwareProfile costed;
        costed.attentionWarmBytes = warmBytes;
        costed.attentionCurve = own.curve;
        own.factors = ownTrafficFactors(run, costed);
    }
    return own;
}

} // namespace coh::core::real
