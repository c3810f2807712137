#pragma once
// KvMemory driven by a coherence protocol table: every KV access of the serving engine becomes a processor
// op at a cache (P0 = the request's prefill instance, P1 = its decode instance) and every message the table
// sends crosses the network as a flow between the nodes of the controllers (the directory sits at the
// block's home). ProtocolDriver runs the ops and messages; this class keeps the sequences, their groups, the
// decode steps' waits and the staleness of decode's reads. The prefill -> decode "transfer" is P1's read miss, and a
// decode step stalls for as long as its reads and its append to the tail block wait on the protocol.
//
// Blocks with identical histories share one interpreter instance (a group): all blocks written by prefill
// form one group, the open tail block another, and each block filled by decode joins a group in the same
// protocol state. A group's messages count and weigh once per block. Invariants (SWMR, data value, no lost
// write, protocol errors) are checked after every step and fail the run loudly.
//
// Replicas (serving.replication, factor R) are caches P2 .. P(R) of every block, on the nodes ReplicaPlacer picks
// for the decode node. A replica loads each block that has been written and that it has no readable copy of:
// once decode is placed and prefill's write of the block is performed, and again after every performed write
// that took its copy (invalidate-and-refetch). What a write does to a replica is the table's: an invalidation
// protocol invalidates it (the writer's store waits for its Inv-Ack), an update protocol pushes the update and
// the copy stays readable. Under an append-only protocol (acquireTailForWrite) a read seals the block, so the
// open tail is loaded once it is closed.
//
// Shared prefix blocks (serving.shared_prefix, given the workload): a sequence's full prefix blocks live in
// SharedPrefixBlocks, one coherent block per hash id for every sequence, and its own groups start after them.
#include "core/coherence/block_system.h"
#include "core/engine/event_recorder.h"
#include "core/engine/kv_homes.h"
#include "core/engine/kv_memory.h"
#include "core/engine/node_block_states.h"
#include "core/engine/protocol_driver.h"
#include "core/engine/replica_placement.h"
#include "core/engine/shared_prefix_blocks.h"
#include "core/net/transport.h"
#include "core/scenario/scenario.h"

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

namespace coh::core {

class CoherentKv final : public KvMemory, public FlowEndpoint, public SharedPrefixListener {
  public:
    // `prefixes`: the workload whose prefix hash ids serving.shared_prefix shares (null: none shared).
    CoherentKv(const coherence::Protocol& protocol, const Scenario& scenario, Transport& network,
               EventRecorder& recorder, std::vector<std::vector<std::uint32_t>> instanceNodes, std::size_t requests,
               const Workload* prefixes = nullptr);
    ~CoherentKv() override;

    void prefillWrite(std::uint32_t request, std::uint32_t instance, std::uint32_t tokens) override;
    void acquireForDecode(std::uint32_t request, std::uint32_t instance, std::uint32_t tokens) override;
    bool beginDecodeStep(std::uint32_t request, std::uint32_t instance, std::uint32_t tokens) override;
    void release(std::uint32_t request) override;
    std::uint32_t addSequence() override;
    void abandon(std::uint32_t sequence) override;
    // The prefill cache's copy, or a replica's: the longest run of blocks from the start whose copy is readable
    // and current there, and of the open tail what it holds (a lazy copy some versions behind holds that many
    // tokens less).
    SurvivingCopy survivingCopy(std::uint32_t sequence, std::uint32_t tokens,
                                const std::vector<std::uint8_t>& down) const override;
    void restoreAt(std::uint32_t sequence, std::uint32_t node, std::uint32_t tokens) override;
    void nodeLost(std::uint32_t node) override;
    KvStats stats() const override;
    SimTime lastStepTransfer(std::uint32_t request) const override { return m_sequences[request].lastTransfer; }
    SequenceStaleness staleness(std::uint32_t request) const override
    {
        return {m_sequences[request].staleReads, m_sequences[request].staleSteps};
    }
    std::uint32_t stepStaleBlocks(std::uint32_t request) const override { return m_sequences[request].stepStaleBlocks; }
    void checkFinished() const override;
    std::uint32_t sharedBlocksHeld(std::uint32_t sequence, std::uint32_t instance) const override
    {
        return m_shared ? m_shared->heldAt(sequence, instance) : 0;
    }
    bool sharesPrefixBlocks() const override { return m_shared != nullptr; }
    std::vector<NodeBlocksSeries> nodeBlocks(SimTime end) const override { return m_nodeBlocks.series(end); }

    void onFlowDelivered(const FlowInfo& flow) override;
    // A data message carries its group's tokens, where the group's blocks are one run of them; control messages and
    // groups of blocks from here and there carry none.
    std::optional<KvPayload> payloadOf(std::uint64_t tag) const override;
    void onSharedRead(std::uint32_t sequence, const FlowInfo* transfer) override;

  private:
    friend class ProtocolDriver<CoherentKv>;
    // The roles of a sequence's participants, as cache indices of the table: prefill, decode, then the replicas.
    static constexpr std::uint8_t kPrefillCache = 0, kDecodeCache = 1, kFirstReplica = 2;
    static constexpr int kMaxKvCaches = coherence::kMaxCaches;
    enum class Waiter : std::uint8_t { None, Read, Step };

    struct Group {
        coherence::BlockSystem system;
        std::uint32_t firstBlock = 0; // the block it was made for; blocks that join later need not follow it
        std::uint32_t blocks = 1;
        DriverBlock<kMaxKvCaches> driver;  // its ops per cache and messages in flight
        std::uint16_t replicasFetched = 0; // bit per replica cache: it has loaded this group once
        bool acquireAfterPrefill = false;  // decode's acquire waits for prefill's write of this group
        SimTime latestAt = 0;              // when the latest version was written (the age of a stale read)
        SimTime leaseAt = -1;              // when decode's copy came under its lease (coherence.lease); -1: none
        bool oneRun = true;                // its blocks are firstBlock and the ones after it: one run of tokens
    };
    struct Sequence {
        std::vector<Group> groups;
        int tailGroup = -1;             // the open tail block's group, if any
        std::uint32_t tailBlock = 0;    // index of the open tail block in the sequence
        Participants participants;      // P0 at prefill's node, P1 at decode's, the replicas', the home
        std::uint32_t sharedTokens = 0; // tokens before its first block, in shared prefix blocks
        std::uint32_t tokens = 0;       // its tokens as last written: by prefill, then by each decode step
        bool replicasPlaced = false;    // the replicas' nodes are known (decode is placed)
        std::uint32_t waiting = 0;      // ops the current read or step still waits on
        Waiter waiter = Waiter::None;
        bool released = false;
        std::uint16_t lostCaches = 0; // bit per cache: a node failure took its copies (survivingCopy skips them)
        // Every block hit at P1 on the last step and nothing has arrived since: the next step within the same
        // tail block hits too (only P1 touches the blocks now), so it costs O(1) instead of a pass per group.
        bool steady = false;
        std::uint32_t steadyReads = 0;       // blocks a steady step reads
        std::uint32_t steadyLeasedReads = 0; // of those, copies decode holds under a lease
        SimTime leaseExpiry = kTimeInfinity; // no steady step from then on: a lease expires (coherence.lease)
        bool stepExpired = false;            // the current step read a copy whose lease had expired (trust)
        SimTime waitStart = 0;               // when the current decode step began
        SimTime lastTransfer = 0;            // see lastStepTransfer()
        bool stepStale = false;              // the current step read a stale version
        std::uint32_t stepStaleBlocks = 0;   // of its blocks, how many
        std::uint64_t staleReads = 0;
        std::uint32_t staleSteps = 0;
    };
    // The flow being delivered, so the op it completes can tell data wire time from coherence stall.
    struct Delivery {
        std::uint32_t request = 0;
        bool dataToDecode = false;
        SimTime start = 0, end = 0;
    };

    // ProtocolDriver's view of a group (see protocol_driver.h).
    struct Key {
        std::uint32_t request = 0;
        int group = 0;
    };
    struct Ref {
        Sequence* seq;
        Group* group;
    };
    Ref resolve(Key key)
    {
        Sequence& seq = m_sequences[key.request];
        return {&seq, &seq.groups[key.group]};
    }
    static DriverBlock<kMaxKvCaches>& driverBlock(Ref r) { return r.group->driver; }
    static const coherence::BlockSystem& shape(Ref r) { return r.group->system; }
    static coherence::CheckedStep issue(Ref r, std::uint8_t cache, coherence::ProcessorOp op)
    {
        coherence::BlockSystem& system = r.group->system;
        return {system.issue(cache, op, static_cast<coherence::Value>(system.latest() + 1))};
    }
    static coherence::CheckedStep deliverOne(Ref r) { return {r.group->driver.arrivals.deliverOne(r.group->system)}; }
    static std::uint32_t weight(Ref r) { return r.group->blocks; }
    static const Participants& participants(Ref r) { return r.seq->participants; }
    FlowEndpoint& endpoint() { return *this; }
    static std::uint64_t flowTag(Key key, std::uint16_t tag)
    {
        return (std::uint64_t{key.request} << 32) | (std::uint64_t(key.group) << 16) | tag;
    }
    static Gate gate(Ref, std::uint8_t, const DriverOp&) { return Gate::Go; }
    static void onIssued(Ref, std::uint8_t, const DriverOp&) {}
    // Every step of every group passes here: inlined into the driver's step.
    [[gnu::always_inline]] void onStep(Key key, Ref r, const coherence::CheckedStep& step);
    bool mayComplete(Key key, Ref r, std::uint8_t cache, const DriverOp& op, const coherence::StepResult& step);
    bool mayCompleteHeld(Key key, Ref r, std::uint8_t cache);
    void onOpDone(Key key, std::uint8_t cache, const DriverOp& op, const coherence::StepResult* step);

    // Returns true when the op was a hit (done at once, nothing sent); a miss goes to the driver.
    bool requestOp(std::uint32_t request, int group, std::uint8_t cache, coherence::ProcessorOp op);
    // Out of line, so that requestOp (the hit path) stays small enough to inline into the decode step.
    [[gnu::noinline]] void requestMiss(std::uint32_t request, int group, std::uint8_t cache, coherence::ProcessorOp op);
    // P0 at `node` writes the sequence's first `tokens` tokens (prefill's write, or a restore from a copy).
    void writeAt(std::uint32_t request, std::uint32_t node, std::uint32_t tokens);
    // Tokens from the sequence's start whose KV cache `cache` holds readable and current.
    std::uint32_t validTokens(const Sequence& seq, std::uint8_t cache, std::uint32_t tokens) const;
    // A group nobody has touched for `blocks` blocks from `firstBlock`, appended or put in the last slot.
    void addGroup(Sequence& seq, std::uint32_t firstBlock, std::uint32_t blocks, bool inLastSlot) const;
    void opDone(std::uint32_t request);
    // Versions the value is behind the group's latest write.
    int versionsBehind(const coherence::BlockSystem& system, coherence::Value value) const;
    bool beyondBound(const Group& group, int versionsBehindLatest) const;
    // Counts a decode read of `value`; true when it is beyond the staleness bound and must wait for the update.
    bool readMustWait(std::uint32_t request, Group& group, coherence::Value value);
    void countRead(std::uint32_t request, const Group& group, int versionsBehindLatest);
    bool closeTail(Sequence& seq); // true when the tail merged into another group (its slot is free)
    // coherence.lease: before decode's step reads `group`, counts a read of a leased copy and acts on an expired
    // lease: `refetch` drops the copy (silently, as the table's release) so the read asks the home again; `trust`
    // reads it and counts the read. Only for a group whose decode cache has no op in flight.
    void checkLease(std::uint32_t request, int group);
    // The step put decode's copy under a lease, or took it out of one.
    void trackLease(Sequence& seq, Group& group, const coherence::StepResult& step);
    // Queues a load at each replica that has no readable copy of the written group (see the header comment);
    // `pumping`: called from inside the driver's pump, which runs it.
    void refreshReplicas(std::uint32_t request, int group, bool pumping);
    void countReplicaMessages(const Sequence& seq, const Group& group, const coherence::StepResult& step);
    // Asked after every delivery, so the common answer (not released yet) is inline.
    void freeIfIdle(std::uint32_t request)
    {
        if (m_sequences[request].released)
            freeIfQuiet(request);
    }
    void freeIfQuiet(std::uint32_t request); // a released sequence's copies go once no message is in flight
    [[noreturn]] void fail(std::uint32_t request, const Group& group, const std::string& what) const;

    const coherence::Protocol& m_protocol;
    Transport& m_network;
    EventRecorder& m_recorder;
    std::vector<std::vector<std::uint32_t>> m_instanceNodes;
    KvHomes m_homes;
    CoherenceSpec m_spec;
    std::uint8_t m_caches; // prefill, decode and the replicas
    ReplicaPlacer m_placer;
    std::uint32_t m_blockTokens;
    double m_blockBytes;
    std::vector<Sequence> m_sequences;
    Group m_freshGroup; // a block nobody has touched: copied, never constructed, per new block
    ProtocolDriver<CoherentKv> m_driver;
    bool m_synchronous = false; // inside acquireForDecode / beginDecodeStep: no listener callbacks

    Delivery m_delivery;
    int m_maxVersions = 0; // reader bound in versions (the protocol's own, or the scenario's tighter one)
    SimTime m_maxAge = -1; // reader bound in age, -1: none
    StalenessSummary m_staleness;
    LeaseSummary m_lease; // its ttl and policy are coherence.lease's (ttl -1: leases never expire, nothing tracked)
    std::vector<double> m_staleAgesUs;
    NodeBlockStates m_nodeBlocks;
    ReplicationSummary m_replication;
    std::vector<bool> m_replicaNodesUsed;
    std::vector<std::string> m_nodeIds;
    std::unique_ptr<SharedPrefixBlocks> m_shared; // serving.shared_prefix
};

} // namespace coh::core
