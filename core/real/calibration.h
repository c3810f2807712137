#pragma once
// `cohsim calibrate`: what one of this machine's real backends (real-cpu, real-cuda) costs, measured, as a hardware
// profile the simulator can run (docs/real-backend.md#calibration). A copy of b bytes costs copyLatencyNs + b /
// copyBytesPerNs as the backend's worker times it; one layer of a decode step's attention costs attentionStepNs + (K
// and V bytes read) / attentionBytesPerNs. Both are least-squares fits to medians measured in one run.
#include "core/net/backend_summary.h"
#include "core/real/attention_bench.h"
#include "core/real/hardware_profile.h"
#include "core/real/profile_json.h"
#include "core/real/steps_by_traffic.h"
#include "core/scenario/scenario.h"

#include <algorithm>
#include <atomic>
#include <functional>
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
    // Told before each measurement (attention, warm steps, copies whole and in descriptors, each path's) with the share
    // of the calibration done and what it measures next, on the calling thread; may be empty.
    std::function<void(double fraction, const std::string& measuring)> progress;
    // Set: calibrate() throws RunCancelled before its next measurement (each takes seconds at most).
    const std::atomic<bool>* cancel = nullptr;
    CalibrationOptions()
    {
        attention.contexts = {256, 1024, 4096, 16384};
        attention.rounds = 5;
        attention.poolBytes = std::size_t{64} << 20; // as real-cpu's decode steps read (RealCpuOptions::arenaBytes)
        // A run's copies find their bytes in the shared cache or memory, not in the copying core's own.
        copy.leaveCaches = true;
    }
};

HardwareProfile calibrate(const CalibrationOptions& options);
// This machine's name, as a calibration records it in its profile (HardwareProfile::host); empty where it has none.
std::string thisHostName();
// Where a profile says it was measured on another machine than this one, what says so: "lab-7 (EPYC 9654), not on this
// machine (vm)" for another host name, or under this host name another count of cores or (real-cpu) another CPU (a VM
// resized or moved). Empty where nothing does (a field the profile leaves empty or 0 says nothing).
std::string otherMachine(const HardwareProfile& profile);
// Where a real-cpu profile's copies were measured as a lone bench leaves the caches (made before calibration left them
// as a run's traffic does, HardwareProfile::copiesCachesLeft), what says so; empty otherwise, and for a profile whose
// copies are a run's own (costsOfRun).
std::string copiesMeasuredAlone(const HardwareProfile& profile);
// A path's per-descriptor cost from its rows (descriptorRows against the whole copies' fit), >= 0.
double descriptorCost(const CopyPathFit& path);

// Least squares y = a + x / b over the points, each weighted by 1 / y^2 (relative error, so the smallest points
// set the fixed cost and the largest the bandwidth), a clamped at 0: returns {a, b}.
std::pair<double, double> fitLatencyBandwidth(const std::vector<std::pair<double, double>>& points);

// Whether a fit's figures are ones a profile may hold (the ranges of profile_json.h): a fit read from a stored run is
// taken only then.
bool plausibleFit(const CostFit& fit);
// The same for a fit of warm steps, and the cache size it was told apart by (1 byte to kMaxWarmBytes).
bool plausibleWarmFit(std::uint64_t warmBytes, const CostFit& fit);
// `calibrated` with the figures a real run fitted over its own copies and decode steps (BackendSummary::copyFit,
// hostCopyFit, attentionFit, attentionWarmFit with its attentionWarmBytes) in place of the calibration's, each where
// the run measured it (plausibleFit): the machine's costs as they were during that run, which a calibration taken
// before it only predicts. A run's copies are already in descriptors, so their cost per piece is in the fitted
// bandwidth (descriptorNs 0); a run's steps already paid for their longest sequence, so a lone sequence's bandwidth is
// dropped with a fitted attention. A figure replaced loses the calibration's rows it was fitted from.
// Where the run kept its steps by size (BackendSummary::attentionBySize), their mean time at each size is the
// profile's attention curve, which the simulator costs a layer on in place of the lines; where it kept them by the
// traffic before them too, each size's time after no traffic, and each amount's factor the profile's
// attentionAfterTraffic (ownAttention, steps_by_traffic.h).
HardwareProfile ownCostProfile(const HardwareProfile& calibrated, const BackendSummary& run);
// Which of a run's own costs ownCostProfile takes over a calibration whose warm line reads at most
// `calibratedWarmBytes` from the core's cache: each fit where the run measured it (plausibleFit), and its curve's
// points.
struct OwnCostsTaken {
    bool copy = false, hostCopy = false, line = false, warm = false;
    std::size_t curvePoints = 0;
    std::size_t trafficPoints = 0; // amounts of other traffic with a factor (attentionAfterTraffic)
    bool quietCurve = false;       // the curve is its steps' time after none (OwnAttention::quiet), not their mean
    bool any() const { return copy || hostCopy || line || warm || curvePoints > 0 || trafficPoints > 0; }
};
OwnCostsTaken ownCostsTaken(const BackendSummary& run, std::size_t calibratedWarmBytes);
// `cohsim calibrate --from-run`: ownCostProfile of a stored real run over `measured` (this machine's calibration for
// the run's scenario, which gives what the run did not time: its shape, descriptors, a side of the cache it took no
// step on), named after the run (HardwareProfile::costsOfRun).
HardwareProfile profileOfRun(const HardwareProfile& measured, const BackendSummary& run, std::uint64_t runId);
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
