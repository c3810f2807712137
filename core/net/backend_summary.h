#pragma once
// What executed a run's messages (docs/real-backend.md): the simulator, or a real backend with the resource each
// topology node ran on and what its copies measured. Plain values: RunSummary carries it to the store and views.
#include "core/net/cost_fit.h"
#include "core/net/step_size_buckets.h"
#include "core/net/traffic_buckets.h"

#include <cstdint>
#include <string>
#include <vector>

namespace coh::core {

// One topology node on a real backend.
struct BackendNodeMapping {
    std::string node;     // topology node id
    std::string resource; // what played it here, e.g. "cpu worker thread 2, 64 MiB arena"
    bool operator==(const BackendNodeMapping&) const = default;
};

// One decode read of a sequence that returned an older version of some of its blocks (a bounded-staleness protocol's
// stale read), run for real: the attention output over the stale bytes against the output over the latest ones.
struct StaleReadError {
    std::uint32_t staleTokens = 0;   // tokens in the blocks read at an older version
    std::uint32_t contextTokens = 0; // the sequence's cached tokens
    double relL2 = 0;                // |out_stale - out_fresh| / |out_fresh| over every head of the step's output
    double maxAbs = 0;               // the largest |out_stale - out_fresh| of one element
    bool operator==(const StaleReadError&) const = default;
};

struct BackendSummary {
    std::string name = "simulated";          // the backend's name, as the run store records it
    std::vector<BackendNodeMapping> mapping; // real backends: the nodes that sent or received, in topology order
    std::string scaledDown;                  // what the run left out to fit this machine; empty: nothing
    std::uint64_t copies = 0;                // messages copied for real (a same-node message copies nothing)
    std::uint64_t descriptors = 0;           // the pieces they were copied in, each to its own place
    double bytesCopied = 0;
    double copyMs = 0;          // the copies' measured times, summed
    double largestCopyGBps = 0; // bandwidth of the largest copy (bytes / its measured time)
    std::uint64_t verified = 0; // copies checked against their source, stamp and its CRC-32
    // Copies that landed later than their send time plus their own time, having shared their pair with its other
    // copies in flight (real::PairSharing), and how much later in all, in simulated time. (Stored as copies_queued
    // and copy_wait_ms: until 2026-12-07 a pair's copies queued, first in, first out.)
    std::uint64_t copiesQueued = 0;
    double copyWaitMs = 0;
    // Of them, those that carried a sequence's K/V rows (KvPayload), each checked on landing against the sequence's
    // values (docs/real-backend.md#what-a-transfer-carries): the tokens they moved, the tokens whose first-layer rows
    // (the shard's KV heads) they carried (as many as fit in the message and its memory at once), and how many they
    // were. A message too small for one block of rows carries none and is not counted.
    std::uint64_t kvRowsOffered = 0;
    std::uint64_t kvRowsCarried = 0;
    std::uint64_t kvTransfersChecked = 0;
    std::uint64_t decodeSteps = 0;        // decode steps whose attention ran for real
    double attentionMs = 0;               // their measured attention time, summed, for the layers they ran
    double attentionBytes = 0;            // the K and V bytes those layers read
    std::uint64_t blockReadsChecked = 0;  // blocks those steps read whose stamp said they were the sequence's
    std::uint64_t blockReadsBorrowed = 0; // blocks they read that another sequence held (a full pool): unchecked
    std::uint64_t blockSealsSummed = 0;   // of the checked, those whose rows were also summed against their seal
    std::uint64_t kvRowsWritten = 0;      // token rows (K and V, every KV head) decode sequences wrote into pools
    std::uint64_t kvRowsAppended = 0;     // of them, appends: rows a sequence wrote after its first step
    std::uint64_t kvRowsLanded = 0; // of them, rows taken as a transfer landed them in the node's memory, not computed
    // The decode nodes' K/V pools those rows went into (docs/real-backend.md#decode-steps, step 4).
    std::uint64_t kvPools = 0;          // pools made over the run (one per decode node; one made again counts again)
    std::uint64_t kvPoolsGrown = 0;     // of them, those that grew
    std::uint64_t kvPoolStartBytes = 0; // the smallest pool as made
    std::uint64_t kvPoolLargestStartBytes = 0; // the largest pool as made (pools of other block sizes differ)
    std::uint64_t kvPoolLargestBytes = 0;      // the largest pool as grown (its start, if none grew)
    std::uint64_t kvPoolLimitBytes = 0;  // the most a pool could grow to, in whole blocks; 0: none could grow at all
    std::uint64_t kvPoolNeededBytes = 0; // the most one pool's tables held at once: a pool that holds it lends nothing
    std::uint64_t kvPoolBlocksLent = 0;  // blocks handed to a sequence while another held them (a full pool)
    std::string kvPoolGrowthRefused;     // why a pool could not grow further, the first; empty: none was refused
    std::vector<StaleReadError> staleReads; // per decode step and sequence that read a stale block, in run order
    // The run's own costs, fitted over every copy and decode step it timed (CostFit): a copy's measured time against
    // its bytes (on real-cuda those within and between GPUs; hostCopyFit those to or from pinned host memory), and
    // one layer of a step's attention against the K and V bytes it read. compare-real runs the simulator on them too,
    // which leaves the calibration's drift out of its error (docs/real-backend.md#the-runs-own-costs).
    CostFit copyFit, hostCopyFit, attentionFit;
    // The steps whose layer read at most attentionWarmBytes (real-cpu: the core's own cache), fitted apart: they read
    // what the step before left in the cache. attentionFit is then the other steps'. 0: not told apart (real-cuda).
    CostFit attentionWarmFit;
    std::uint64_t attentionWarmBytes = 0;
    // The same steps by the bytes a layer read, in powers of two (StepSizeBucket): what the fits above draw one line
    // through. Empty: no step ran for real.
    std::vector<StepSizeBucket> attentionBySize;
    // Its steps out of the core's cache again, by the bytes copied anywhere on the machine since the same instance's
    // step before (traffic_buckets.h): a step after much traffic finds less of its blocks in the shared cache.
    std::vector<TrafficBucket> attentionByTraffic;
    // A fault asked for with `--inject NAME@N` (InjectedFault) that the run never played: it made too few copies or
    // steps. A run that plays one stops on its check and is stored as failed, saying so. Empty: none asked for.
    std::string faultNotPlayed;
    // A simulated run on a calibrated profile (CalibratedCompute): the backend the profile measured ("real-cpu").
    // Its copies and decode attention then cost what the profile says, not the roofline's. Empty: none.
    std::string calibratedProfile;
    bool real() const { return name != "simulated"; }
    bool operator==(const BackendSummary&) const = default;
};

} // namespace coh::core
