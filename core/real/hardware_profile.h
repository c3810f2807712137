#pragma once
// What `cohsim calibrate` measured of a real backend on this machine: each copy path's latency and bandwidth, the
// attention's cost per layer of a decode step, and the rows each was fitted to (docs/real-backend.md#calibration).
#include "core/real/attention_bench.h"
#include "core/real/copy_bench.h"
#include "core/real/core_cache.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace coh::core::real {

// One copy path's fit: copies of b bytes cost latencyNs + b / bytesPerNs, plus descriptorNs per piece after a message's
// first; bytesPerNs 0: the path was not measured.
struct CopyPathFit {
    double latencyNs = 0;           // fixed cost of a copy (fit intercept, >= 0)
    double bytesPerNs = 0;          // GB/s (fit slope's inverse)
    double descriptorNs = 0;        // what each piece beyond the first adds to a copy (median of the sizes, >= 0)
    std::vector<CopyBenchRow> rows; // whole copies
    std::vector<CopyBenchRow> descriptorRows; // the same sizes, in descriptors
    bool measured() const { return bytesPerNs > 0; }
    // Whether any size was copied in more than one descriptor: else descriptorNs is 0 for want of a measurement (a
    // descriptor larger than every size measured).
    bool descriptorMeasured() const
    {
        return std::any_of(descriptorRows.begin(), descriptorRows.end(),
                           [](const CopyBenchRow& r) { return r.descriptors > 1; });
    }
    double ns(double bytes) const { return latencyNs + bytes / bytesPerNs; }
    // The bandwidth a copy of whole descriptors of `descriptorBytes` sees (0: copied whole): bytes / bandwidth plus,
    // per descriptor, descriptorNs.
    double effectiveBytesPerNs(std::size_t descriptorBytes) const
    {
        return descriptorBytes > 0 ? 1.0 / (1.0 / bytesPerNs + descriptorNs / static_cast<double>(descriptorBytes))
                                   : bytesPerNs;
    }
};

// One step size of a real run's own attention (BackendSummary::attentionBySize): its steps' mean K/V bytes and mean
// time per layer, and whether they read from the core's cache.
struct AttentionCurvePoint {
    double bytes = 0;
    double ns = 0;
    bool inCache = false;
    bool operator==(const AttentionCurvePoint&) const = default;
};

// What a real run's steps out of the core's cache took after an amount of other traffic
// (HardwareProfile::attentionAfterTraffic): its steps after fromBytes to twice that copied anywhere on the machine
// since their node's step before (0: none; trafficBucketOf) took `factor` times what the profile's curve or lines cost
// them.
struct TrafficFactorPoint {
    std::uint64_t fromBytes = 0;
    double factor = 1;
    std::uint64_t steps = 0; // the run's steps it was taken over
    bool operator==(const TrafficFactorPoint&) const = default;
};
// A factor a profile may hold: what other traffic can do to a step, not a different machine's speed.
inline constexpr double kMinTrafficFactor = 0.2;
inline constexpr double kMaxTrafficFactor = 5;

struct HardwareProfile {
    std::string backend = "real-cpu"; // what was measured: "real-cpu" or "real-cuda"
    std::string host, cpu;            // cpu: the GPU's name for real-cuda
    unsigned cores = 0;
    // The copies a run makes: on real-cpu every copy; on real-cuda those within and between GPUs.
    CopyPathFit copy;
    double messageOverheadNs =
        0; // median hand-over, check and wake-up of the smallest message (wall, not on the clock)
    std::size_t descriptorBytes = 0; // the piece size the descriptor costs were measured with (0: not measured)
    PagedKvShape attentionShape;     // the shape the attention was measured with
    double attentionStepNs = 0;      // fixed cost of one layer of a step
    double attentionBytesPerNs = 0;
    // Of the K and V the kernel read: fp16 on real-cuda; on real-cpu fp16 or fp32 (AttentionBenchOptions::elementBytes,
    // as a run holds its model's: kvElementBytes). A real-cpu profile that names none is of fp32 (made before fp16 on
    // real-cpu).
    double attentionElementBytes = 4;
    // real-cuda: one sequence's K and V bytes over its time when the batch's sequences run side by side, each walked
    // by its own warps; a step takes at least its longest sequence's. 0 (real-cpu, one thread): only the step's
    // bytes count.
    double attentionSequenceBytesPerNs = 0;
    std::vector<AttentionBenchRow> attentionRows;
    std::vector<AttentionBenchRow> sequenceRows; // real-cuda: one sequence per step
    // real-cpu: a step whose layer reads at most attentionWarmBytes (the core's own cache, coreCacheBytes) reads
    // blocks the step before left in it, and costs attentionWarmStepNs + bytes / attentionWarmBytesPerNs per layer,
    // fitted to warmRows (AttentionBenchOptions::warm). 0: every step costs the line above (real-cuda; a profile made
    // before warm steps were measured).
    std::size_t attentionWarmBytes = 0;
    double attentionWarmStepNs = 0;
    double attentionWarmBytesPerNs = 0;
    std::vector<AttentionBenchRow> warmRows;
    // real-cuda: copies between a GPU and pinned host memory (the nodes hostMemoryOnGpus places there: CPU sockets,
    // CXL memory, storage), both ways, in descriptors of descriptorBytes too; `copy` is then the GPUs' own. Not
    // measured on real-cpu, whose every memory is the host's: one path.
    CopyPathFit hostCopy;
    // A run's own costs (ownCostProfile): its steps' mean time at each step size, in order of bytes, which no line
    // follows at every size (docs/real-backend.md#attention-by-step-size). Where given, a layer costs the curve
    // (curveNs) in place of the lines above. Empty: the lines (a calibration).
    std::vector<AttentionCurvePoint> attentionCurve;
    // A run's own costs: how much longer (or shorter) than the curve or lines its steps out of the core's cache took
    // after each amount copied since their node's step before, in order of the amount
    // (docs/real-backend.md#a-step-after-the-machines-other-traffic). Empty: every step as the curve or lines say (a
    // calibration, whose bench cannot make a run's traffic).
    std::vector<TrafficFactorPoint> attentionAfterTraffic;
    // The stored real run whose own costs the copies and attention are (`cohsim calibrate --from-run`): costs a run
    // paid under its own traffic, where a calibration measures each alone. 0: measured by the calibration.
    std::uint64_t costsOfRun = 0;
    // real-cpu: the copies were measured after other memory filled the copying threads' caches, as a run's traffic
    // leaves them (CopyBenchOptions::leaveCaches; docs/real-backend.md#copies-as-a-runs-traffic-leaves-the-caches).
    // A profile made before 2026-12-07 was not: its copies ran faster than a run's.
    bool copiesCachesLeft = false;

    double effectiveCopyBytesPerNs() const { return copy.effectiveBytesPerNs(descriptorBytes); }
    // The same over the host path where measured; else the copies' own.
    double effectiveHostCopyBytesPerNs() const
    {
        return (hostCopy.measured() ? hostCopy : copy).effectiveBytesPerNs(descriptorBytes);
    }
    // One layer of a step reading `bytes` out of memory.
    double attentionNs(double bytes) const { return attentionStepNs + bytes / attentionBytesPerNs; }
    // Whether a step whose layer reads `bytes` finds them in the core's cache (readsFromCoreCache), where the profile
    // has a warm line.
    bool readsWarm(double bytes) const
    {
        return attentionWarmBytesPerNs > 0 && readsFromCoreCache(bytes, attentionWarmBytes);
    }
    double warmAttentionNs(double bytes) const { return attentionWarmStepNs + bytes / attentionWarmBytesPerNs; }
    // One layer of a step reading `bytes` on the curve: between the two points of its side of the cache (in it where
    // it reads at most attentionWarmBytes; all points where that side has none) whose bytes are either side of it, on
    // the line through them; below the first or past the last point, at that point's bandwidth.
    double curveNs(double bytes) const;
    // What a step out of the core's cache after `copied` bytes since its node's step before takes over its curve's or
    // lines' time: its amount's factor; between two amounts the profile has, on the line through them over the
    // amounts' powers of two; short of the first or past the last, that one's. 1 where there are none.
    double trafficFactor(double copied) const;
    // One layer of a step reading `bytes` in all, `longestBytes` of them its longest sequence's: the curve where there
    // is one, else the lines; a GPU's step at least its longest sequence's time alone.
    double attentionNs(double bytes, double longestBytes) const
    {
        const double alone = attentionSequenceBytesPerNs > 0 ? longestBytes / attentionSequenceBytesPerNs : 0;
        if (!attentionCurve.empty())
            return std::max(curveNs(bytes), alone);
        if (readsWarm(bytes))
            return warmAttentionNs(bytes);
        return attentionStepNs + std::max(bytes / attentionBytesPerNs, alone);
    }
};

// Why `point` cannot stand on a curve after `before` (none: it is the first) with a cache of `warmBytes`: a bandwidth
// no memory gives, a side of the cache its bytes are not on, bytes not past the point before, or less time than the
// point before it on its side took. None: it can.
std::optional<std::string> curvePointProblem(const AttentionCurvePoint& point, const AttentionCurvePoint* before,
                                             std::size_t warmBytes);
// Why `point` cannot follow `before` (none: it is the first) in a profile's attentionAfterTraffic: an amount that is
// not 0 or a power of two, not past the one before, a factor out of [kMinTrafficFactor, kMaxTrafficFactor], or no
// steps.
std::optional<std::string> trafficPointProblem(const TrafficFactorPoint& point, const TrafficFactorPoint* before);
// The points of `curve` (in order of bytes) that can stand on it, each after the last kept.
std::vector<AttentionCurvePoint> plausibleCurve(std::vector<AttentionCurvePoint> curve, std::size_t warmBytes);

} // namespace coh::core::real
