#pragma once
// `cohsim calibrate`: what one of this machine's real backends (real-cpu, real-cuda) costs, measured, as a hardware
// profile the simulator can run (docs/real-backend.md#calibration). A copy of b bytes costs copyLatencyNs + b /
// copyBytesPerNs as the backend's worker times it; one layer of a decode step's attention costs attentionStepNs + (K
// and V bytes read) / attentionBytesPerNs. Both are least-squares fits to medians measured in one run.
#include "core/net/backend_summary.h"
#include "core/real/attention_bench.h"
#include "core/real/copy_bench.h"
#include "core/real/core_cache.h"
#include "core/scenario/scenario.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

namespace coh::core::real {

struct CalibrationOptions {
    std::string backend = "real-cpu"; // or "real-cuda": its copies between GPU partitions and its CUDA attention
    CopyBenchOptions copy; // its descriptorBytes is ignored: the copies are measured whole and in descriptors
    AttentionBenchOptions attention;
    // real-cuda: sequences per step of the batch measurement (enough warps to keep a GPU's memory busy); one sequence
    // alone is measured too, since a lone sequence's warps walk its context one token after another.
    std::uint32_t cudaSequences = 64;
    // The descriptor a run copies in (real::descriptorBytesFor): one layer's K and V of a Llama-3-8B block of 16
    // tokens by default. 0: no descriptor cost is measured.
    std::size_t descriptorBytes = std::size_t{64} << 10;
    // real-cpu: the core's cache the warm steps are measured under (HardwareProfile::attentionWarmBytes); none: this
    // machine's (coreCacheBytes); 0: not measured.
    std::optional<std::size_t> warmBytes;
    CalibrationOptions()
    {
        attention.contexts = {256, 1024, 4096, 16384};
        attention.rounds = 5;
        attention.poolBytes = std::size_t{64} << 20; // as real-cpu's decode steps read (RealCpuOptions::arenaBytes)
    }
};

// One copy path's fit: copies of b bytes cost latencyNs + b / bytesPerNs, plus descriptorNs per piece after a message's
// first; bytesPerNs 0: the path was not measured.
struct CopyPathFit {
    double latencyNs = 0;           // fixed cost of a copy (fit intercept, >= 0)
    double bytesPerNs = 0;          // GB/s (fit slope's inverse)
    double descriptorNs = 0;        // what each piece beyond the first adds to a copy (median of the sizes, >= 0)
    std::vector<CopyBenchRow> rows; // whole copies
    std::vector<CopyBenchRow> descriptorRows; // the same sizes, in descriptors
    bool measured() const { return bytesPerNs > 0; }
    double ns(double bytes) const { return latencyNs + bytes / bytesPerNs; }
    // The bandwidth a copy of whole descriptors of `descriptorBytes` sees (0: copied whole): bytes / bandwidth plus,
    // per descriptor, descriptorNs.
    double effectiveBytesPerNs(std::size_t descriptorBytes) const
    {
        return descriptorBytes > 0 ? 1.0 / (1.0 / bytesPerNs + descriptorNs / static_cast<double>(descriptorBytes))
                                   : bytesPerNs;
    }
};

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
    // One layer of a step reading `bytes` in all, `longestBytes` of them its longest sequence's.
    double attentionNs(double bytes, double longestBytes) const
    {
        if (readsWarm(bytes))
            return warmAttentionNs(bytes);
        const double alone = attentionSequenceBytesPerNs > 0 ? longestBytes / attentionSequenceBytesPerNs : 0;
        return attentionStepNs + std::max(bytes / attentionBytesPerNs, alone);
    }
};

HardwareProfile calibrate(const CalibrationOptions& options);
// A path's per-descriptor cost from its rows (descriptorRows against the whole copies' fit), >= 0.
double descriptorCost(const CopyPathFit& path);

// Least squares y = a + x / b over the points, each weighted by 1 / y^2 (relative error, so the smallest points
// set the fixed cost and the largest the bandwidth), a clamped at 0: returns {a, b}.
std::pair<double, double> fitLatencyBandwidth(const std::vector<std::pair<double, double>>& points);

nlohmann::ordered_json toJson(const HardwareProfile& profile);
// What a profile's figures may be: a time (a copy's fixed cost, a descriptor's, an attention step's) under a second,
// a bandwidth from a megabyte to a hundred terabytes a second (a CPU's memcpy is tens of GB/s, an H200's HBM about
// 4,800), a descriptor of up to a gibibyte.
inline constexpr double kMaxProfileNs = 1e9;
inline constexpr double kMinProfileGBps = 1e-3;
inline constexpr double kMaxProfileGBps = 1e5;
inline constexpr std::uint64_t kMaxDescriptorBytes = std::uint64_t{1} << 30;
inline constexpr std::uint64_t kMaxWarmBytes = std::uint64_t{1} << 30; // a cache of up to a gibibyte
// Throws InputError naming `file` and the field when a figure is missing or outside those ranges.
HardwareProfile profileFromJson(const nlohmann::json& j, const std::string& file);
// The profile in the file at `path`: read as any JSON input is (readJsonFile), a problem of the file as a whole (empty,
// too large, not JSON) then told with a profile's fix rather than a scenario's.
HardwareProfile readProfile(const std::string& path);

// Whether a fit's figures are ones a profile may hold (the ranges above): a fit read from a stored run is taken only
// then.
bool plausibleFit(const CostFit& fit);
// The same for a fit of warm steps, and the cache size it was told apart by (1 byte to kMaxWarmBytes).
bool plausibleWarmFit(std::uint64_t warmBytes, const CostFit& fit);
// `calibrated` with the figures a real run fitted over its own copies and decode steps (BackendSummary::copyFit,
// hostCopyFit, attentionFit, attentionWarmFit with its attentionWarmBytes) in place of the calibration's, each where
// the run measured it (plausibleFit): the machine's costs as they were during that run, which a calibration taken
// before it only predicts. A run's copies are already in descriptors, so their cost per piece is in the fitted
// bandwidth (descriptorNs 0); a run's steps already paid for their longest sequence, so a lone sequence's bandwidth is
// dropped with a fitted attention. A figure replaced loses the calibration's rows it was fitted from.
HardwareProfile ownCostProfile(const HardwareProfile& calibrated, const BackendSummary& run);
// Whether the run fitted any figure ownCostProfile takes.
bool fittedOwnCosts(const BackendSummary& run);
// `profile` with every cost it measured `factor` times as long: each copy's fixed cost, descriptor and bytes, each
// attention step's fixed cost and bytes (warm and lone-sequence lines too). What a calibration `factor - 1` off would
// hold: compare-real moves the simulator's costs by it to see how far its figures move (SimVsRealOptions).
HardwareProfile withCostsScaled(HardwareProfile profile, double factor);

// The topology the real-cpu backend runs `topology` as: its nodes, every pair of them that can hold or compute KV
// (all but switches) joined directly by a link of the profile's copy latency and effective bandwidth (descriptors
// included), and no other link. On a real-cuda profile with a host path, a pair with a node in host memory
// (hostMemoryOnGpus) takes the host path's figures. The simulator then pays what a real copy pays: no hops, and no
// sharing but between messages of one pair.
Topology profiledTopology(const Topology& topology, const HardwareProfile& profile);
// The scenario with profiledTopology() for its topology: what `cohsim compare-real` simulates.
Scenario profiledScenario(const Scenario& scenario, const HardwareProfile& profile);

} // namespace coh::core::real
