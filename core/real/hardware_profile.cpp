#include "core/real/hardware_profile.h"

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

} // namespace coh::core::real
