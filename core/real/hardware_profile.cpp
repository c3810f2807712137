#include "core/real/hardware_profile.h"

#include "core/net/traffic_buckets.h"
#include "core/real/profile_json.h" // kMinProfileGBps, kMaxProfileGBps

#include <fmt/format.h>

#include <cmath>

namespace coh::core::real {

double HardwareProfile::curveNs(double bytes) const
{
    const bool inCache = readsFromCoreCache(bytes, attentionWarmBytes);
    std::vector<const AttentionCurvePoint*> side;
    for (const AttentionCurvePoint& p : attentionCurve)
        if (p.inCache == inCache && p.bytes > 0)
            side.push_back(&p);
    if (side.empty())
        for (const AttentionCurvePoint& p : attentionCurve)
            if (p.bytes > 0)
                side.push_back(&p);
    if (side.empty())
        return 0;
    // Outside the points: the nearest one's bandwidth (a line through two points could fall below 0 short of the
    // first, or climb past the time any size took beyond the last).
    if (bytes <= side.front()->bytes)
        return side.front()->ns * bytes / side.front()->bytes;
    if (bytes >= side.back()->bytes)
        return side.back()->ns * bytes / side.back()->bytes;
    auto after = side.begin();
    while ((*after)->bytes < bytes)
        ++after;
    const AttentionCurvePoint& a = **(after - 1);
    const AttentionCurvePoint& b = **after;
    if (b.bytes <= a.bytes)
        return b.ns;
    return a.ns + (bytes - a.bytes) * (b.ns - a.ns) / (b.bytes - a.bytes);
}

double HardwareProfile::trafficFactor(double copied) const
{
    if (attentionAfterTraffic.empty())
        return 1;
    // On the amounts' powers of two, none half a byte below the first.
    const auto at = [](std::uint64_t fromBytes) {
        return fromBytes == 0 ? -1.0 : std::log2(static_cast<double>(fromBytes));
    };
    const double x = at(trafficBucketOf(copied));
    const TrafficFactorPoint& first = attentionAfterTraffic.front();
    const TrafficFactorPoint& last = attentionAfterTraffic.back();
    if (x <= at(first.fromBytes))
        return first.factor;
    if (x >= at(last.fromBytes))
        return last.factor;
    auto after = attentionAfterTraffic.begin();
    while (at(after->fromBytes) < x)
        ++after;
    const TrafficFactorPoint& a = *(after - 1);
    const TrafficFactorPoint& b = *after;
    const double span = at(b.fromBytes) - at(a.fromBytes);
    return span > 0 ? a.factor + (x - at(a.fromBytes)) * (b.factor - a.factor) / span : b.factor;
}

std::optional<std::string> trafficPointProblem(const TrafficFactorPoint& point, const TrafficFactorPoint* before)
{
    if (!isBucketBound(point.fromBytes))
        return fmt::format("{} B is not an amount a run keeps its steps by (0, or a power of two)", point.fromBytes);
    if (before && !(point.fromBytes > before->fromBytes))
        return "the amounts are in order, smallest first, each once";
    if (!std::isfinite(point.factor) || point.factor < kMinTrafficFactor || point.factor > kMaxTrafficFactor)
        return fmt::format("a factor of {:g} is not what other traffic does to a step ({:g} to {:g})", point.factor,
                           kMinTrafficFactor, kMaxTrafficFactor);
    if (point.steps == 0)
        return "a factor taken over no steps";
    return std::nullopt;
}

std::optional<std::string> curvePointProblem(const AttentionCurvePoint& point, const AttentionCurvePoint* before,
                                             std::size_t warmBytes)
{
    const double gbps = point.ns > 0 ? point.bytes / point.ns : 0;
    if (!(point.bytes > 0) || !(point.ns > 0) || !std::isfinite(gbps) || gbps < kMinProfileGBps ||
        gbps > kMaxProfileGBps)
        return fmt::format("{:g} B in {:g} ns is not a bandwidth a memory gives ({:g} to {:g} GB/s)", point.bytes,
                           point.ns, kMinProfileGBps, kMaxProfileGBps);
    if (point.inCache != readsFromCoreCache(point.bytes, warmBytes))
        return point.inCache ? fmt::format("a point in the cache at {:g} B, past the cache's {} B (warm_bytes)",
                                           point.bytes, warmBytes)
                             : fmt::format("a point out of the cache at {:g} B, within the cache's {} B (warm_bytes)",
                                           point.bytes, warmBytes);
    if (before && !(point.bytes > before->bytes))
        return "the curve's points are in order of their bytes, smallest first, each size once";
    if (before && before->inCache == point.inCache && point.ns < before->ns)
        return fmt::format("{:g} B in {:g} ns, faster than the {:g} B before it took: a larger step takes longer",
                           point.bytes, point.ns, before->bytes);
    return std::nullopt;
}

std::vector<AttentionCurvePoint> plausibleCurve(std::vector<AttentionCurvePoint> curve, std::size_t warmBytes)
{
    std::vector<AttentionCurvePoint> kept;
    for (const AttentionCurvePoint& point : curve)
        if (!curvePointProblem(point, kept.empty() ? nullptr : &kept.back(), warmBytes))
            kept.push_back(point);
    return kept;
}

} // namespace coh::core::real
