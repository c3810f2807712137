#include "core/real/hardware_profile.h"

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
