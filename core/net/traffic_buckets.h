#pragma once
// A real run's decode steps out of the core's cache by the bytes copied anywhere on the machine since the same
// instance's step before, in powers of two (0: none copied), and by their size: whether a step finds the blocks its
// sequences read the step before still in the machine's shared cache, or other traffic has pushed them out
// (docs/real-backend.md#a-step-after-the-machines-other-traffic).
#include "core/net/step_size_buckets.h"

#include <cmath>
#include <cstdint>
#include <vector>

namespace coh::core {

struct TrafficBucket {
    std::uint64_t fromBytes = 0; // the steps after fromBytes to twice that, less one, copied; 0: after none
    std::uint64_t steps = 0;
    double bytes = 0; // K and V one layer read, summed over the steps
    double ns = 0;    // one layer's measured time, summed over the steps
    // The steps' size (stepSizeBucketOf of a layer's bytes): a run keeps each amount apart by size, since the busy part
    // of a run has the larger steps. 0: every size together (a run stored before sizes were kept, or trafficTotals).
    std::uint64_t sizeFromBytes = 0;
    double gbps() const { return ns > 0 ? bytes / ns : 0; }
    bool operator==(const TrafficBucket&) const = default;
};

// The bucket of a step after `copied` bytes: 0 for none (less than a byte), else the power of two at or below it.
inline std::uint64_t trafficBucketOf(double copied)
{
    return copied >= 1 ? stepSizeBucketOf(copied) : 0;
}

// The entry of `fromBytes` and `sizeFromBytes` in `buckets`, kept in order of the amount, then the size; made (empty)
// where there is none.
inline TrafficBucket& trafficEntry(std::vector<TrafficBucket>& buckets, std::uint64_t fromBytes,
                                   std::uint64_t sizeFromBytes = 0)
{
    auto it = buckets.begin();
    while (it != buckets.end() &&
           (it->fromBytes < fromBytes || (it->fromBytes == fromBytes && it->sizeFromBytes < sizeFromBytes)))
        ++it;
    if (it == buckets.end() || it->fromBytes != fromBytes || it->sizeFromBytes != sizeFromBytes)
        it = buckets.insert(it, TrafficBucket{.fromBytes = fromBytes, .sizeFromBytes = sizeFromBytes});
    return *it;
}

// Adds one step (one layer's bytes and time, after `copied` bytes) to its amount's entry of its size. A time that is
// not a measurement (0, negative, not finite) is left out, as the run's cost fits leave it.
inline void addTrafficStep(std::vector<TrafficBucket>& buckets, double copied, double layerBytes, double layerNs)
{
    if (!(layerNs > 0) || !std::isfinite(layerNs) || !(layerBytes > 0) || !std::isfinite(layerBytes) ||
        !std::isfinite(copied))
        return;
    TrafficBucket& b = trafficEntry(buckets, trafficBucketOf(copied), stepSizeBucketOf(layerBytes));
    ++b.steps;
    b.bytes += layerBytes;
    b.ns += layerNs;
}

// Each amount's steps of every size together (sizeFromBytes 0), in order of the amount.
inline std::vector<TrafficBucket> trafficTotals(const std::vector<TrafficBucket>& buckets)
{
    std::vector<TrafficBucket> totals;
    for (const TrafficBucket& b : buckets) {
        TrafficBucket& t = trafficEntry(totals, b.fromBytes);
        t.steps += b.steps;
        t.bytes += b.bytes;
        t.ns += b.ns;
    }
    return totals;
}

} // namespace coh::core
