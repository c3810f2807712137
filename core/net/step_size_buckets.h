#pragma once
// A real run's decode steps by the K and V bytes one layer read, in powers of two: how many there were, and their
// bytes and measured time per layer, summed. The attention's cost as the run met it at each size, which a profile's
// line (one fixed cost and one bandwidth either side of the core's cache) may not follow: compare-real sets the two
// side by side (docs/real-backend.md#attention-by-step-size).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace coh::core {

struct StepSizeBucket {
    std::uint64_t fromBytes = 0; // the steps whose layer read fromBytes to twice that, less one
    // Steps that read from the core's cache (readsFromCoreCache, as the run's own fits tell them apart) are kept
    // apart from the others of their size: a cache that is not a power of two splits a size, and so does one that is
    // at its first byte count.
    bool inCache = false;
    std::uint64_t steps = 0;
    double bytes = 0;        // K and V one layer read, summed over the steps
    double ns = 0;           // one layer's measured time, summed over the steps
    double longestBytes = 0; // of those bytes, each step's longest sequence's, summed (a GPU's step lasts its longest)
    double meanBytes() const { return steps > 0 ? bytes / static_cast<double>(steps) : 0; }
    double meanLongestBytes() const { return steps > 0 ? longestBytes / static_cast<double>(steps) : 0; }
    double meanNs() const { return steps > 0 ? ns / static_cast<double>(steps) : 0; }
    double gbps() const { return ns > 0 ? bytes / ns : 0; }
    bool operator==(const StepSizeBucket&) const = default;
};

// The most a bucket's size may be: a layer of 2^62 bytes is past any memory, and twice it still a count.
inline constexpr std::uint64_t kLargestStepSizeBucket = std::uint64_t{1} << 62;

// Whether `x` can bound a bucket a run keeps (a size's or an amount of traffic's): 0 or a power of two, at most
// kLargestStepSizeBucket. What a stored bucket is checked by.
inline bool isBucketBound(std::uint64_t x)
{
    return x <= kLargestStepSizeBucket && (x & (x - 1)) == 0;
}

// The bucket a layer of `bytes` falls in: the largest power of two at most `bytes` (1 for less than 2).
inline std::uint64_t stepSizeBucketOf(double bytes)
{
    if (!(bytes >= 2))
        return 1;
    std::uint64_t from = 1;
    while (from < kLargestStepSizeBucket && static_cast<double>(from) * 2 <= bytes)
        from *= 2;
    return from;
}

// The entry of `fromBytes` and `inCache` in `entries` (StepSizeBucket, or anything kept by size so: a fromBytes, an
// inCache, made from the two), kept in order of size, a size's steps in the cache before its others; made where
// there is none.
template <class Entry> Entry& stepSizeEntry(std::vector<Entry>& entries, std::uint64_t fromBytes, bool inCache)
{
    auto it = entries.begin();
    while (it != entries.end() &&
           (it->fromBytes < fromBytes || (it->fromBytes == fromBytes && it->inCache && !inCache)))
        ++it;
    if (it == entries.end() || it->fromBytes != fromBytes || it->inCache != inCache)
        it = entries.insert(it, Entry{fromBytes, inCache});
    return *it;
}

// Adds one step (one layer's bytes, its longest sequence's, and its time) to `buckets`. A time that is not a
// measurement (0, negative, not finite) is left out, as the run's cost fits leave it.
inline void addStep(std::vector<StepSizeBucket>& buckets, double layerBytes, double layerNs, bool inCache = false,
                    double longestBytes = 0)
{
    if (!(layerNs > 0) || !std::isfinite(layerNs) || !(layerBytes >= 0) || !std::isfinite(layerBytes))
        return;
    StepSizeBucket& b = stepSizeEntry(buckets, stepSizeBucketOf(layerBytes), inCache);
    ++b.steps;
    b.bytes += layerBytes;
    b.ns += layerNs;
    b.longestBytes += std::isfinite(longestBytes) ? std::clamp(longestBytes, 0.0, layerBytes) : 0;
}

// Every step of `more` added to `buckets`, bucket by bucket.
inline void addSteps(std::vector<StepSizeBucket>& buckets, const std::vector<StepSizeBucket>& more)
{
    for (const StepSizeBucket& m : more) {
        StepSizeBucket& b = stepSizeEntry(buckets, m.fromBytes, m.inCache);
        b.steps += m.steps;
        b.bytes += m.bytes;
        b.ns += m.ns;
        b.longestBytes += m.longestBytes;
    }
}

} // namespace coh::core
