#pragma once
// A scenario: everything one run needs, as validated plain values (parsed by scenario_loader.h).
#include "core/scenario/model_spec.h"
#include "core/scenario/topology.h"
#include "core/scenario/workload_spec.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace coh::core {

enum class InstanceRole { Prefill, Decode };
enum class RouterPolicy { RoundRobin, LeastLoaded, CacheAware };
// Where a finished prefill's request decodes: wherever the router sends it, or on the decode instance of the
// node that prefilled it when there is one (colocated, role "both": no KV transfer).
enum class DecodeAffinity { Router, SameNode };

// serving.router: a policy name, or an object naming the policy and cache_aware's weights.
struct RouterSpec {
    RouterPolicy policy = RouterPolicy::RoundRobin;
    // cache_aware: a prefill instance costs overlapWeight x (prompt tokens it would still compute) + (prompt
    // tokens queued or running there); the lowest cost wins.
    double overlapWeight = 1.0;
    // cache_aware: when the winner already holds more than maxImbalance x the mean prefill load (prompt tokens
    // queued or running), least_loaded picks instead, so affinity cannot pile every request onto one instance.
    double maxImbalance = 2.0;
};

// A serving worker; several nodes form one tensor-parallel group.
struct InstanceSpec {
    std::string id;
    InstanceRole role = InstanceRole::Prefill;
    std::vector<std::string> nodes;
    std::uint32_t maxBatchSize = 0;   // 0: take the serving section's default
    std::uint32_t maxBatchTokens = 0; // prefill only; 0: default
};

// A shared pool of prefix KV in a memory tier (host DRAM, a CXL pool, storage) of one node, keyed by the
// trace's prefix hash ids (Mooncake's 512-token blocks): prefill loads the cached leading blocks of a prompt
// from the pool instead of computing them, and stores the blocks it computed. LRU within the capacity.
struct PrefixPoolSpec {
    bool enabled = false;
    std::string node;                // the node whose memory holds the pool
    Tier tier = Tier::Dram;          // which of its memory tiers
    double capacityBytes = 0;        // 0: the whole tier
    std::uint32_t blockTokens = 512; // tokens per hash id (Mooncake: 512)
};

// A prefix cache in each prefill instance's own HBM, keyed by the trace's prefix hash ids: a prompt whose leading
// blocks the instance computed before (and still holds) computes only the rest. LRU within the capacity.
struct LocalPrefixCacheSpec {
    bool enabled = false;
    double capacityBytes = 0;        // per instance; 0: its HBM x kv_memory_fraction less the weights
    std::uint32_t blockTokens = 512; // tokens per hash id (Mooncake: 512)
};

// Decode instances share the trace's prefix blocks (hash ids, Mooncake's 512-token blocks): each full prefix block of a
// prompt is one coherent block under the decode protocol, whose caches are every instance, so many decode instances
// hold it at once and a decode instance that already holds it for another sequence reads it without a transfer
// (docs/engine.md#shared-prefix-blocks).
// A decode instance keeps blocks no sequence of its uses any more, up to `capacityBytes` (LRU), as vLLM's prefix
// caching keeps freed blocks until their memory is needed.
struct SharedPrefixSpec {
    bool enabled = false;
    std::uint32_t blockTokens = 512;     // tokens per hash id (Mooncake: 512)
    std::optional<double> capacityBytes; // per decode instance; unset: its HBM x kv_memory_fraction less the weights
};

// Where a sequence's replicas go (docs/scenario-format.md#replication): `spread` takes, one at a time, the
// qualifying node farthest (by route latency) from every copy placed so far, `nearest` the ones closest to
// the decode node, `fixed` the listed nodes in order. A node qualifies when one of its memory tiers can hold KV.
enum class ReplicaPlacement { Spread, Nearest, Fixed };

// Each sequence's KV kept on `factor` distinct nodes: the decode instance's copy and factor - 1 replicas,
// which take part in the decode protocol as more caches of every block. 1: the decode copy only.
struct ReplicationSpec {
    std::uint32_t factor = 1;
    ReplicaPlacement placement = ReplicaPlacement::Spread;
    std::vector<std::string> nodes; // `fixed`: candidates in order (the decode node itself is skipped)
};

// Decode KV below HBM (serving.kv_tiers, docs/engine.md#kv-tiers). A sequence reserves its prompt's blocks when
// admitted and one block more each time its tail fills (vLLM's paged allocation); when a decode instance's HBM has
// no block for a running sequence, a victim sequence is offloaded to the first listed tier with room and fetched
// back (promoted) before it decodes again. Offload and fetch are coherence actions under the tier's protocol
// (coherence.tiers; absent: plain copies) between the decode node and the nearest node with that tier.
enum class TierEviction { Lru, Largest };
// write_back: an offload writes every block whose tier copy is not current; write_through: every block is written
// down when it fills (and the prompt's at admission), so an offload writes only the open tail block.
enum class TierWrite { WriteBack, WriteThrough };

struct KvTiersSpec {
    std::vector<Tier> tiers; // below HBM, in the order sequences spill to; empty: off (admission reserves it all)
    TierEviction eviction = TierEviction::Lru;
    TierWrite write = TierWrite::WriteBack;
    // The most KV bytes each decode instance may keep in a tier (vLLM's --swap-space is this for host DRAM, per
    // GPU). A tier without an entry: an even share of its node's tier among the decode instances using it.
    std::map<Tier, double> capacityBytes;
    bool enabled() const { return !tiers.empty(); }
};

struct ServingSpec {
    std::uint32_t blockTokens = 16;
    RouterSpec router;
    DecodeAffinity decodeAffinity = DecodeAffinity::Router;
    std::uint32_t prefillMaxBatchSize = 16;
    std::uint32_t prefillMaxBatchTokens = 8192;
    std::uint32_t decodeMaxBatchSize = 128;
    SimTime iterationOverhead = 500 * kMicrosecond; // scheduler + launch cost per iteration
    double flopsEfficiency = 0.6;                   // achieved / peak FLOP/s (MFU)
    double bandwidthEfficiency = 0.8;               // achieved / peak memory bandwidth (MBU)
    double kvMemoryFraction = 0.9;                  // share of HBM serving may use: weights first, the rest holds KV
    std::vector<InstanceSpec> instances;            // explicit, or derived from node roles
    PrefixPoolSpec prefixPool;
    LocalPrefixCacheSpec localPrefixCache;
    SharedPrefixSpec sharedPrefix;
    ReplicationSpec replication;
    KvTiersSpec kvTiers;
};

enum class HomePolicy { AllocatingNode, Hashed, Node };

// Which protocol keeps a sequence's KV blocks coherent ("direct" = the plain prefill -> decode copy).
// The reader's side of a bounded-staleness protocol (lazy-causal): a decode read of a replica more than
// maxVersions behind the latest write, or behind it for longer than maxAge, waits for the update instead of
// returning the old version. Unset limits leave the protocol's own bound.
struct StalenessSpec {
    std::optional<std::uint32_t> maxVersions;
    std::optional<SimTime> maxAge;
    bool any() const { return maxVersions || maxAge; }
};

// coherence.lease: how long a copy granted under a lease (a state its protocol's table marks leased, as
// sealed-lease's R) may be read by decode. At expiry, `refetch` drops the copy, so decode's next read asks the
// home again (what a correct store does); `trust` keeps reading it and counts every such read (the bug).
enum class LeaseExpiry { Refetch, Trust };

struct LeaseSpec {
    std::optional<SimTime> ttl; // absent: leases never expire
    LeaseExpiry onExpiry = LeaseExpiry::Refetch;
};

struct CoherenceSpec {
    std::string decode = "direct"; // governs the blocks from the prefill write through the last decode step
    // The blocks prefill instances share: the prefix pool's (unless `tiers` names the pool's tier). A sequence's
    // own blocks are `decode`'s from prefill's write on.
    std::string prefill = "direct";
    HomePolicy home = HomePolicy::AllocatingNode;
    std::string homeNode;            // HomePolicy::Node: the node holding every block's directory entry
    std::uint32_t controlBytes = 64; // size of a message without data (header, address, ack count)
    StalenessSpec staleness;
    LeaseSpec lease;
    // The protocol of the KV blocks kept in another memory tier (dram, cxl, storage): the prefix pool's
    // blocks when serving.prefix_pool lives in that tier. Absent or "direct": plain copies.
    std::map<Tier, std::string> tiers;
};

// Node and link failures (the "failures" section, docs/engine.md#failures). A node fails at a given time, or again and
// again at random (exponential gaps with mean `mtbf`); its serving instances stop and the KV copies in its memory are
// lost. A monitor that misses its heartbeats for `timeout` declares it dead; until then the router still sends it work.
// The lost requests then recover by `recovery`: `replica` reads the most complete surviving copy (a replica, or the
// prefill instance's copy) and decodes again the tokens it lacks, falling back to recompute when none holds the
// prompt; `recompute` prefills the prompt and the tokens generated so far again, from the last valid prefix (the
// most complete surviving copy's, loaded instead of computed); `fail` gives them up. The node is
// back `repair` after it failed (absent: never), empty. A failed link loses no KV: the messages crossing it stop and
// are sent again over another route once the monitor declares the link down, or over it once it is back
// (docs/engine.md#link-failures).
enum class FailureRecovery { Replica, Recompute, Fail };

struct FailureEventSpec {
    std::string node;              // the node that fails, or
    std::string link;              // the link that fails (exactly one of the two)
    std::optional<SimTime> at;     // one failure at this time, or
    std::optional<SimTime> mtbf;   // failures at random with this mean time between them (needs `repair`)
    std::optional<SimTime> repair; // down for this long
    bool isLink() const { return !link.empty(); }
};

struct FailuresSpec {
    std::vector<FailureEventSpec> events;
    SimTime heartbeat = 100 * kMillisecond; // the monitor hears from every node and link this often
    SimTime timeout = 500 * kMillisecond;   // and declares one dead after this long without a heartbeat
    FailureRecovery recovery = FailureRecovery::Recompute;
    bool enabled() const { return !events.empty(); }
};

struct SloSpec {
    SimTime ttft = 2 * kSecond;
    SimTime tpot = 100 * kMillisecond;
};

struct RecordSpec {
    std::uint32_t maxMessages = 100000;   // beyond this the event record is a uniform sample
    std::uint32_t maxIterations = 100000; // the same for decode iterations
};

struct MetricsSpec {
    SimTime linkInterval = kSecond; // bucket width of per-link time series
};

struct Scenario {
    std::string name;
    std::string description;
    std::uint64_t seed = 1;
    Topology topology;
    ModelSpec model;
    WorkloadSpec workload;
    ServingSpec serving;
    CoherenceSpec coherence;
    FailuresSpec failures;
    SloSpec slo;
    RecordSpec record;
    MetricsSpec metrics;

    std::string sourcePath; // file it came from (empty when built in code)
    std::string json;       // canonical JSON text, stored with every run
};

const char* toString(InstanceRole);

// The instances a scenario without "serving.instances" gets: one prefill instance per node with role prefill,
// one decode instance per node with role decode, one of each for role both; all prefill ones first, each kind
// in node order, named "<role>-<node>". Nodes without an id are skipped.
std::vector<InstanceSpec> instancesFromNodeRoles(const std::vector<Node>& nodes);
const char* toString(RouterPolicy);
const char* toString(DecodeAffinity);
const char* toString(HomePolicy);
const char* toString(ReplicaPlacement);
const char* toString(TierEviction);
const char* toString(TierWrite);
const char* toString(FailureRecovery);
const char* toString(LeaseExpiry);

} // namespace coh::core
