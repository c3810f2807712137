#pragma once
// The bucket grid shared by the per-link and per-node time series: buckets of a fixed width from time 0, at most
// kMaxSeriesBuckets of them. A series whose span would need more doubles its width, merging adjacent pairs of
// buckets, so memory is bounded whatever the interval and the span, and the sums stay exact.
#include "core/sim/time.h"

#include <cstddef>
#include <vector>

namespace coh::core {

inline constexpr std::size_t kMaxSeriesBuckets = 4096;

// `metrics.link_interval` as the grid's first width (a non-positive one means the default, a second).
constexpr SimTime seriesBaseWidth(SimTime interval)
{
    return interval > 0 ? interval : kSecond;
}

// The smallest `width` x 2^k (k >= 0) whose buckets from time 0 cover `t` in at most kMaxSeriesBuckets.
constexpr SimTime seriesWidthCovering(SimTime width, SimTime t)
{
    // t / width < kMax, written so it cannot overflow: width only doubles while it is below t / kMax.
    while (t / width >= static_cast<SimTime>(kMaxSeriesBuckets))
        width *= 2;
    return width;
}

// The first time past the grid's last bucket when buckets are `width` wide (saturating): reaching it coarsens.
constexpr SimTime seriesEnd(SimTime width)
{
    constexpr auto buckets = static_cast<SimTime>(kMaxSeriesBuckets);
    return width > kTimeInfinity / buckets ? kTimeInfinity : width * buckets;
}

// Where a bucket of width `width` starting at `start` ends, saturating at the end of representable time.
constexpr SimTime bucketEnd(SimTime start, SimTime width)
{
    return start > kTimeInfinity - width ? kTimeInfinity : start + width;
}

// Merges adjacent pairs `times` times: bucket i then holds what buckets [i 2^times, (i + 1) 2^times) held.
inline void mergeBucketPairs(std::vector<double>& buckets, unsigned times)
{
    for (unsigned k = 0; k < times && !buckets.empty(); ++k) {
        const std::size_t merged = (buckets.size() + 1) / 2;
        for (std::size_t i = 0; i < merged; ++i)
            buckets[i] = buckets[2 * i] + (2 * i + 1 < buckets.size() ? buckets[2 * i + 1] : 0.0);
        buckets.resize(merged);
    }
}

// How many doublings take `from` to `to` (`to` is `from` x 2^k).
constexpr unsigned doublingsBetween(SimTime from, SimTime to)
{
    unsigned k = 0;
    for (; from < to; from *= 2)
        ++k;
    return k;
}

} // namespace coh::core
