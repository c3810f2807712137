#pragma once
// A real run's decode steps by the K and V bytes one layer read, in powers of two: how many there were, and their
// bytes and measured time per layer, summed. The attention's cost as the run met it at each size, which a profile's
// line (one fixed cost and one bandwidth either side of the core's cache) may not follow: compare-real sets the two
// side by side (docs/real-backend.md#attention-by-step-size).
#include <cmath>
#include <cstdint>
#include <vector>

namespace coh::core {

struct StepSizeBucket {
    std::uint64_t fromBytes = 0; // the steps whose layer read fromBytes to twice that, less one
    std::uint64_t steps = 0;
    double bytes = 0; // K and V one layer read, summed over the steps
    double ns = 0;    // one layer's measured time, summed over the steps
    double meanBytes() const { return steps > 0 ? bytes / static_cast<double>(steps) : 0; }
    double meanNs() const { return steps > 0 ? ns / static_cast<double>(steps) : 0; }
    double gbps() const { return ns > 0 ? bytes / ns : 0; }
    bool operator==(const StepSizeBucket&) const = default;
};

// The bucket a layer of `bytes` falls in: the largest power of two at most `bytes` (1 for less than 2).
inline std::uint64_t stepSizeBucketOf(double bytes)
{
    if (!(bytes >= 2))
        return 1;
    std::uint64_t from = 1;
    while (from <= (std::uint64_t{1} << 62) && static_cast<double>(from) * 2 <= bytes)
        from *= 2;
    return from;
}

// Adds one step (one layer's bytes and time) to `buckets`, kept in order of their sizes. A time that is not a
// measurement (0, negative, not finite) is left out, as the run's cost fits leave it.
inline void addStep(std::vector<StepSizeBucket>& buckets, double layerBytes, double layerNs)
{
    if (!(layerNs > 0) || !std::isfinite(layerNs) || !(layerBytes >= 0) || !std::isfinite(layerBytes))
        return;
    const std::uint64_t from = stepSizeBucketOf(layerBytes);
    auto it = buckets.begin();
    while (it != buckets.end() && it->fromBytes < from)
        ++it;
    if (it == buckets.end() || it->fromBytes != from)
        it = buckets.insert(it, StepSizeBucket{from});
    ++it->steps;
    it->bytes += layerBytes;
    it->ns += layerNs;
}

// Every step of `more` added to `buckets`, bucket by bucket.
inline void addSteps(std::vector<StepSizeBucket>& buckets, const std::vector<StepSizeBucket>& more)
{
    for (const StepSizeBucket& b : more) {
        auto it = buckets.begin();
        while (it != buckets.end() && it->fromBytes < b.fromBytes)
            ++it;
        if (it == buckets.end() || it->fromBytes != b.fromBytes)
            it = buckets.insert(it, StepSizeBucket{b.fromBytes});
        it->steps += b.steps;
        it->bytes += b.bytes;
        it->ns += b.ns;
    }
}

} // namespace coh::core
