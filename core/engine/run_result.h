#pragma once
// What one run produced, as plain values: the run store, the CLI, reports and the GUI all read this.
#include "core/net/backend_summary.h"
#include "core/sim/time.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace coh::core {

// Timestamps of one request's life (ns of simulated time). TTFT components are differences of these.
struct RequestMetrics {
    std::uint32_t id = 0;
    std::uint32_t promptTokens = 0;
    std::uint32_t outputTokens = 0;
    std::uint32_t prefillInstance = 0;
    std::uint32_t decodeInstance = 0;
    SimTime arrival = 0;
    SimTime prefillStart = 0;  // left the prefill queue
    SimTime prefillEnd = 0;    // KV written at the prefill instance
    SimTime transferStart = 0; // decode instance had room; KV read began
    SimTime kvReady = 0;       // all KV blocks readable at the decode instance
    SimTime decodeStart = 0;   // first decode iteration that includes the request began
    SimTime firstToken = 0;
    SimTime finish = 0; // last token
    // Where the time between the first and the last token went (steps 2..n): the steps' compute, the wire
    // time of the block data a step waited for (transfer), and the rest of its wait on the protocol (coherence
    // stall: requests, forwards, invalidations, acks); what remains is waiting for a shared device.
    SimTime decodeCompute = 0;
    SimTime decodeTransfer = 0;
    SimTime decodeStall = 0;
    // Bounded-staleness protocols: block reads that returned an older version, and decode steps with one.
    std::uint64_t staleReads = 0;
    std::uint32_t staleSteps = 0;
    std::uint32_t cachedTokens = 0; // prompt tokens loaded from the prefix pool or held locally, not computed
    // Node failures (the "failures" section): how often a failure took the request's work or KV, whether it was
    // given up (then it has no first token or finish), and what its recoveries redid: tokens whose KV was read
    // from a surviving copy, and tokens prefilled or decoded again.
    std::uint8_t failureHits = 0;
    bool failed = false;
    std::uint32_t restoredTokens = 0;
    std::uint32_t recomputedTokens = 0;

    SimTime queueing() const { return prefillStart - arrival; }
    SimTime prefill() const { return prefillEnd - prefillStart; }
    SimTime admission() const { return transferStart - prefillEnd; }
    SimTime transfer() const { return kvReady - transferStart; }
    SimTime load() const { return decodeStart - kvReady; }
    SimTime firstDecode() const { return firstToken - decodeStart; }
    SimTime ttft() const { return firstToken - arrival; }
    SimTime e2e() const { return finish - arrival; }
    // Mean gap between output tokens after the first; -1 when there is only one token.
    SimTime tpot() const { return outputTokens > 1 ? (finish - firstToken) / (outputTokens - 1) : -1; }
};

struct Distribution {
    std::uint64_t count = 0;
    double mean = 0, p50 = 0, p90 = 0, p99 = 0, max = 0; // in the metric's unit (ms for times)
};

// Traffic of one message kind (a protocol message name, or "KV-Data" for the plain copy).
struct MessageKindStats {
    std::string name;
    bool data = false; // carries block data (else control)
    std::uint64_t count = 0;
    double bytes = 0;
    std::string role = "data"; // request, forward, invalidation, ack, data, writeback, bias-flip, migration, lease
};

// Traffic of one link direction over the whole run.
struct LinkTotal {
    std::string link;    // link id
    bool forward = true; // a -> b
    double bytes = 0;
    double meanUtilization = 0; // bytes / (bandwidth x makespan)
    double peakUtilization = 0; // busiest time bucket
};

// What decode's block reads returned. Under a strong protocol every read is the latest version (and checked);
// under a bounded-staleness one (lazy-causal) a read may return an older version, or wait for the update when
// it is beyond the scenario's staleness bound.
struct StalenessSummary {
    std::uint64_t reads = 0;                          // block reads by decode: the KV acquire and every step
    std::uint64_t staleReads = 0;                     // returned a version older than the latest write
    std::uint64_t readerWaits = 0;                    // were beyond the bound and waited for the update instead
    std::uint64_t decodeSteps = 0;                    // decode steps, one per sequence and token
    std::uint64_t staleSteps = 0;                     // decode steps with at least one stale read
    std::vector<std::uint64_t> readsByVersionsBehind; // [0] fresh, [1] one version behind, ...
    Distribution staleAgeUs;         // per stale read: how long ago the version it returned was superseded
    std::int64_t boundVersions = -1; // versions a read may be behind: 0 strong, -1 no protocol (direct copy)
    SimTime boundAge = -1;           // the reader's age bound, -1: none
};

// coherence.lease: decode's reads of blocks it holds under a lease, against the lease's time to live.
struct LeaseSummary {
    SimTime ttl = -1;               // -1: leases never expire (no coherence.lease)
    bool refetch = true;            // on_expiry: refetch (drop the copy and read again) or trust (keep reading)
    std::uint64_t grants = 0;       // blocks decode came to hold under a lease (first grants and refetches)
    std::uint64_t expiredReads = 0; // block reads of a copy whose lease had expired (trust only)
    std::uint64_t expiredSteps = 0; // decode steps with at least one such read
    std::uint64_t refetches = 0;    // blocks whose expired copy decode dropped and fetched again (refetch)
    std::uint64_t leasedReads = 0;  // block reads of a leased copy by decode, expired or not
};

// serving.shared_prefix: the trace's prefix blocks as coherent blocks of the decode protocol, one per hash id, held by
// many instances at once. Counts are of prefix blocks (block_tokens each), not of KV blocks.
struct SharedPrefixSummary {
    bool enabled = false;
    std::uint32_t blockTokens = 0;
    std::uint64_t blocks = 0;         // distinct prefix blocks the run shared
    std::uint64_t sharedTokens = 0;   // prompt tokens kept in shared blocks, over all requests
    std::uint64_t writes = 0;         // blocks prefill wrote (their first computation)
    std::uint64_t writesSkipped = 0;  // blocks a prefill computed again while the content was written already
    std::uint64_t acquires = 0;       // (request, block) pairs decode acquired
    std::uint64_t acquireHits = 0;    // of those, held at the decode instance already: nothing moved
    std::uint64_t reads = 0;          // decode steps' block reads
    std::uint64_t readMisses = 0;     // of those, not a hit at the decode instance: they waited on the protocol
    std::uint64_t staleReads = 0;     // reads (and acquires) that returned an older version than the latest
    std::uint64_t peakHolders = 0;    // the most instances using one block at once (its sharers)
    std::uint64_t capacityBlocks = 0; // idle blocks the decode instances may keep, all together
    std::uint64_t evictions = 0;      // idle copies a decode instance dropped to make room
    std::uint64_t transfers = 0;      // data messages of shared blocks that crossed links
    double bytes = 0;                 // their bytes (part of the KV path's)
};

// The shared prefix pool (serving.prefix_pool): what prefill found there, and the traffic to and from it.
struct PrefixPoolSummary {
    bool enabled = false;
    // The protocol of the pool's blocks, as summary.protocol is the KV path's: the pool tier's (coherence.tiers),
    // else prefill's (prefixPoolProtocol()); "direct" for plain copies. MessageProtocol::PrefixPool records index
    // its tables. Empty: not known (a stored run from before it was recorded whose scenario no longer parses).
    std::string protocol = "direct";
    std::uint64_t promptTokens = 0; // prompt tokens of every prefill
    std::uint64_t hitTokens = 0;    // of those, loaded from the pool instead of computed
    double loadBytes = 0, storeBytes = 0;
    std::uint64_t capacityBlocks = 0, blocksHeld = 0, evictions = 0;
};

// The prefill instances' own prefix caches (serving.local_prefix_cache, or router cache_aware), summed over them.
struct LocalPrefixSummary {
    bool enabled = false;
    std::uint64_t promptTokens = 0; // prompt tokens of every prefill
    std::uint64_t hitTokens = 0;    // of those, held by the instance that prefilled them and not computed
    std::uint64_t capacityBlocks = 0, blocksHeld = 0, evictions = 0;
};

// Each sequence's KV kept on `factor` nodes (serving.replication): the decode copy and factor - 1 replicas, which
// are caches of the decode protocol. Messages count per block, as the run's; bytes are those that crossed links.
struct ReplicationSummary {
    std::uint32_t factor = 1;
    std::string placement = "spread";
    std::vector<std::string> nodes; // nodes that held a replica of some sequence, in topology order
    std::uint64_t messages = 0;     // protocol messages sent or received by a replica
    std::uint64_t dataMessages = 0; // of those, with block data
    double dataBytes = 0;           // the data messages' bytes that crossed links
    double controlBytes = 0;        // and the others'
    std::uint64_t fetches = 0;      // blocks a replica loaded for the first time
    std::uint64_t refetches = 0;    // blocks a replica loaded again after the protocol took its copy
};

// The count of a node's blocks in one state from `at` on (until the next step).
struct BlockCountStep {
    SimTime at = 0;
    double blocks = 0;
    bool operator==(const BlockCountStep&) const = default;
};

// One memory tier below HBM that decode KV spills to (serving.kv_tiers). Messages count per block, as the run's.
struct KvTierUsage {
    std::string tier;                      // "dram", "cxl", "storage"
    std::string protocol;                  // the tier's (coherence.tiers); "direct": plain copies
    std::vector<std::string> nodes;        // the nodes whose memory of this tier the decode instances use
    std::uint64_t capacityBlocks = 0;      // what the decode instances may keep there, summed
    std::uint64_t offloads = 0;            // sequences written down here when taken off HBM
    std::uint64_t fetches = 0;             // sequences read back from here (the tier's hits)
    std::uint64_t blocksDown = 0;          // blocks written down (offloads and write-through)
    std::uint64_t blocksUp = 0;            // blocks read back
    std::uint64_t messages = 0;            // messages of those moves, per block (a plain copy: one per block)
    double bytesDown = 0, bytesUp = 0;     // data bytes that crossed links, each way
    double peakBlocks = 0;                 // most blocks held at once
    std::vector<BlockCountStep> occupancy; // blocks held, as a step function (bounded as NodeBlocksSeries::steps)
};

struct KvTiersSummary {
    bool enabled = false;
    std::string eviction = "lru";
    std::string write = "write_back";
    std::uint64_t preemptions = 0; // sequences taken off HBM to make room for another's next block
    double offHbmMs = 0;           // summed over sequences: time from being taken off HBM to decoding again
    std::vector<KvTierUsage> tiers;
};

// One failure of the run (the "failures" section), of a node or of a link: when it failed, when the monitor declared
// it dead, when it came back (-1: not in the run), a node's instances and the requests it took.
struct FailureRecord {
    std::string node; // the node that failed, or
    std::string link; // the link that failed
    std::vector<std::string> instances;
    SimTime failed = 0;
    SimTime detected = 0;
    SimTime repaired = -1;
    std::uint32_t requestsLost = 0;
    bool operator==(const FailureRecord&) const = default;
};

// A step of a count over time: `value` from `time` until the next step.
struct CountStep {
    SimTime time = 0;
    std::uint32_t value = 0;
    bool operator==(const CountStep&) const = default;
};

struct FailuresSummary {
    bool enabled = false;
    std::string recovery = "recompute";
    std::vector<FailureRecord> failures;
    std::uint64_t hits = 0;       // a failure took a request's work or KV (a request may be hit more than once)
    std::uint64_t failed = 0;     // requests given up
    std::uint64_t recovered = 0;  // hit requests that completed
    std::uint64_t fromCopy = 0;   // recoveries that read a surviving copy (recovery "replica")
    std::uint64_t recomputes = 0; // recoveries that prefilled again (recovery "recompute", or no copy held it)
    std::uint64_t rerouted = 0;   // hit requests that lost no KV (queued, or KV elsewhere): only routed again
    std::uint64_t restoredTokens = 0;
    std::uint64_t recomputedTokens = 0; // prefilled or decoded again: the work the failures cost
    double availability = 1;            // instance time up / instance time over the run
    std::vector<CountStep> instancesUp; // serving instances up, over the run
    // Link failures: the messages a failed link stopped (crossing it when it failed, or sent over it before the
    // monitor declared it down), those sent again over another route (the rest went on once it was back), the
    // bytes they had already moved and sent again, and their waits summed (stopped to sent again).
    std::uint64_t messagesStopped = 0;
    std::uint64_t messagesRerouted = 0;
    double bytesResent = 0;
    double stalledMs = 0;
};

// A run that routed each request where another run had (RunOptions::routes; compare-real --real-routes): the routing
// decisions (a prefill and a decode per request) taken from that run, and those its own router made instead (none
// recorded, or the instance recorded was down).
struct ReplayedRoutesSummary {
    bool on = false;
    std::uint64_t replayed = 0;
    std::uint64_t routedAnew = 0;
    std::uint64_t decisions() const { return replayed + routedAnew; }
};

struct RunSummary {
    std::uint64_t requests = 0;
    std::uint64_t completed = 0;
    std::uint64_t outputTokens = 0;
    SimTime makespan = 0; // first arrival to last token
    Distribution ttftMs, tpotMs, e2eMs, itlMs;
    Distribution queueMs, prefillMs, admissionMs, transferMs, loadMs, firstDecodeMs;
    Distribution tpotComputeMs, tpotTransferMs, tpotStallMs; // TPOT split: per-token compute, transfer, stall
    double throughputTokensPerSec = 0;
    double throughputRequestsPerSec = 0;
    double goodputRequestsPerSec = 0; // requests meeting both SLOs per second
    double sloAttainment = 0;         // fraction of requests meeting both SLOs
    std::uint64_t kvTransfers = 0;    // data messages of the decode path that crossed links
    double kvBytes = 0;               // and their bytes
    std::string protocol = "direct";  // the KV protocol of the decode path
    // What was sent, per message kind (MessageRecord::kind indexes this). Messages, data and control bytes,
    // write-backs, invalidations, ... are all read from here through trafficCounts() (traffic_counts.h).
    std::vector<MessageKindStats> messagesByKind;
    std::uint64_t flows = 0;            // network flows that crossed a link: what RunResult::messages holds or samples
    std::uint64_t decodeIterations = 0; // batched decode iterations: what RunResult::iterations holds or samples
    std::vector<LinkTotal> links;       // link directions that carried traffic, busiest first
    std::uint64_t upgrades = 0;         // stores that had to upgrade a readable copy (not a message)
    StalenessSummary staleness;
    LeaseSummary lease;
    PrefixPoolSummary prefixPool;
    LocalPrefixSummary localPrefix;
    ReplicationSummary replication;
    SharedPrefixSummary sharedPrefix;
    KvTiersSummary kvTiers;
    FailuresSummary failures;
    BackendSummary backend; // what executed the messages: the simulator, or real copies here
    ReplayedRoutesSummary replayedRoutes;
    std::uint64_t eventsExecuted = 0;
    double wallSeconds = 0;
    double eventsPerSecond = 0;
};

// Which controller's transition sent a message: a cache or the home (directory or bus) of a protocol run. None:
// the plain prefill -> decode copy and the prefix pool's copies, which no protocol table sends.
enum class MessageSender : std::uint8_t { None, Cache, Home };
// Which protocol's table `MessageRecord::transition` indexes: the KV path's (RunSummary::protocol) or the prefix
// pool tier's (coherence.tiers, else coherence.prefill; see prefixPoolProtocol()).
enum class MessageProtocol : std::uint8_t { Kv, PrefixPool };

// One network message for replay and animation. Runs keep up to millions of these: the small fields share the
// 8 bytes after `bytes`, so the record stays 56 bytes.
struct MessageRecord {
    SimTime start = 0, end = 0;
    std::uint32_t src = 0, dst = 0; // node indices
    std::uint32_t path = 0;         // index into RunResult::paths
    std::uint32_t request = 0;
    // Protocol runs move a group of blocks with one history per message: firstBlock is the group's first block
    // (a group may gather later blocks that reached the same state), blockCount how many it holds.
    std::uint32_t firstBlock = 0, blockCount = 0;
    double bytes = 0;
    std::uint8_t kind = 0; // index into RunSummary::messagesByKind
    MessageSender sender = MessageSender::None;
    MessageProtocol protocol = MessageProtocol::Kv;
    std::uint8_t fromState = 0, toState = 0; // the sender's state before and after the transition
    std::uint16_t transition = 0;            // index into the sender's ControllerTable::transitions
};

// One iteration of a decode instance's continuous batch: every sequence in it waits for its coherence (its
// reads and its append), then the batch computes one token each. computeStart - start is the coherence wait.
struct DecodeIterationRecord {
    SimTime start = 0, computeStart = 0, end = 0;
    std::uint32_t instance = 0;
    std::uint32_t sequences = 0;     // in the batch
    std::uint64_t contextTokens = 0; // the tokens the batch attended over
    SimTime coherenceWait() const { return computeStart - start; }
};

// A routed path as directed link hops; `forward` is false when a hop runs b -> a.
struct PathRecord {
    std::vector<std::uint32_t> links;
    std::vector<bool> forward;
};

// Bytes carried by one direction of one link, per time bucket.
struct LinkSeries {
    std::uint32_t link = 0;
    bool forward = true; // a -> b
    double bandwidthBytesPerSec = 0;
    double totalBytes = 0;
    std::vector<double> bytesPerBucket;
};

// KV blocks the caches of one node hold in one protocol state (a state that holds data). Protocol runs only.
struct NodeBlocksSeries {
    std::uint32_t node = 0;
    std::string state; // the protocol's cache state ("M", "S", ...)
    double peakBlocks = 0;
    std::vector<double> blocksPerBucket; // averaged over each link-series bucket
    // The count itself, as a step function starting at the first change (0 before it). Exact where changes are at
    // least `stepResolution` ns apart; where they come faster, each stepResolution-wide cell keeps only its last
    // change, so a value is shown late, never early. Runs stored before schema 5 have none.
    std::vector<BlockCountStep> steps;
    SimTime stepResolution = 1;
};

struct RunResult {
    std::string scenarioName;
    std::uint64_t seed = 0;
    std::vector<std::string> nodeIds;
    std::vector<std::string> linkIds;
    // Per link (parallel to linkIds): the node indices of its ends a and b, so a direction reads "gpu0→nvswitch".
    // Empty when unknown (a stored run whose scenario no longer names them).
    std::vector<std::array<std::uint32_t, 2>> linkEnds;
    std::vector<std::string> instanceIds;
    RunSummary summary;
    std::vector<RequestMetrics> requests;
    SimTime linkInterval = kSecond;
    std::vector<LinkSeries> linkSeries;       // only link directions that carried traffic
    std::vector<NodeBlocksSeries> nodeBlocks; // same buckets as linkSeries; only (node, state)s that held blocks
    std::vector<PathRecord> paths;
    // The event record: every flow that crossed a link, or a uniform sample of summary.flows of them.
    std::vector<MessageRecord> messages;
    // Decode iterations by start time: every one, or a uniform sample of summary.decodeIterations of them.
    std::vector<DecodeIterationRecord> iterations;
};

} // namespace coh::core
