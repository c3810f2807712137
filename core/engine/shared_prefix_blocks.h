#pragma once
// serving.shared_prefix: the trace's prefix blocks (hash ids) as coherent blocks of the decode protocol. Each full
// prefix block of a prompt is one block of a BlockSet whose caches are the engine's instances (cache i = instance
// i, at its first node) and whose home follows coherence.home; ProtocolDriver runs it. So one block has many
// sharers: every instance whose sequences use it holds one copy, and a sequence decoded where its prefix is held
// already reads it without a transfer.
//
// What the ops are:
// - prefill's write: a Store at its instance, the block's first computation only. Blocks are named by their
//   content's hash, so a prefill that computes a block again writes nothing (Gate::Skip); one that computes it
//   while another write is under way waits for that write.
// - decode's acquire and each decode step's read: a Load at the decode instance; a copy that is readable there is
//   a hit (the table's tryHit), anything else waits for the protocol (a miss: a migratory table, for one, moves
//   the block to each reader in turn). Loads of one block at one instance are one op, however many sequences wait.
// - an instance holds the block while some sequence there uses it (its prefill wrote it, or its decode reads it).
//   When the last one is released, a decode instance keeps the copy among its idle blocks (serving.shared_prefix
//   capacity, least recently used out first, as vLLM's prefix caching keeps freed blocks), and a prefill instance
//   drops it: a copy goes through the table's Evict.
// Whoever waits is told through SharedPrefixListener. The invariants are checked after every step.
#include "core/engine/block_set_slots.h"
#include "core/engine/event_recorder.h"
#include "core/engine/kv_homes.h"
#include "core/engine/node_block_states.h"
#include "core/engine/protocol_driver.h"
#include "core/engine/run_result.h"
#include "core/net/transport.h"
#include "core/scenario/scenario.h"
#include "core/workload/request.h"

#include <array>
#include <cstdint>
#include <deque>
#include <list>
#include <span>
#include <unordered_map>
#include <vector>

namespace coh::core {

class SharedPrefixListener {
  public:
    virtual ~SharedPrefixListener() = default;
    // A load the sequence waited on is performed; `transfer` is the delivery that ended it (start, end), when its
    // data came to the reader.
    virtual void onSharedRead(std::uint32_t sequence, const FlowInfo* transfer) = 0;
};

class SharedPrefixBlocks final : public FlowEndpoint, private BlockSetSlots<coherence::kMaxCaches> {
  public:
    // `instanceNodes[i]`: instance i's node (its cache's); message kinds are recorded from `firstKind`.
    SharedPrefixBlocks(const coherence::Protocol& protocol, const Scenario& scenario, const Workload& workload,
                       Transport& network, EventRecorder& recorder, NodeBlockStates& nodeBlocks, const KvHomes& homes,
                       std::vector<std::uint32_t> instanceNodes, std::uint8_t firstKind,
                       SharedPrefixListener& listener);

    // Tokens at the start of the request's prompt kept in shared blocks: its full prefix blocks, leaving at least
    // the prompt's last token to the sequence's own blocks.
    std::uint32_t sharedTokens(std::uint32_t request) const;
    // Prefill at `instance` has computed the request's prompt: it holds the shared blocks and writes the new ones.
    void write(std::uint32_t request, std::uint32_t instance);
    // The request's shared blocks.
    std::uint32_t blocks(std::uint32_t request) const
    {
        return static_cast<std::uint32_t>(m_sequences[request].slots.size());
    }
    // Decode at `instance` takes the request's shared blocks: returns how many hit. Each of the others completes
    // with an onSharedRead, possibly before this returns, so the caller counts all blocks() as waits first.
    std::uint32_t acquire(std::uint32_t request, std::uint32_t instance);
    // A decode step reads the request's shared blocks: returns how many hit (the others as acquire()).
    std::uint32_t read(std::uint32_t request);
    // The request's blocks (known once write() ran) that `instance` holds readable now: a load there would hit.
    std::uint32_t heldAt(std::uint32_t request, std::uint32_t instance) const;
    // A step at `now` would hit every shared block as the last one did (nothing changed at the decode instance
    // since, and no lease it read under has expired).
    bool steady(std::uint32_t request, SimTime now) const
    {
        const Sequence& seq = m_sequences[request];
        return seq.slots.empty() || (seq.checkedAt == m_changes[seq.decodeCache] && now < seq.leaseExpiry);
    }
    // Counts a steady step's reads (see steady()).
    void countSteadyRead(std::uint32_t request)
    {
        m_summary.reads += m_sequences[request].slots.size();
        m_lease.leasedReads += m_sequences[request].steadyLeasedReads;
    }
    // coherence.lease: the last read() read a copy whose lease had expired (trust), and what decode's reads of
    // shared copies under a lease came to (KV blocks; expired steps are the caller's, who counts steps).
    bool readExpired(std::uint32_t request) const { return m_sequences[request].readExpired; }
    const LeaseSummary& leases() const { return m_lease; }
    // The request is done: its instances stop holding its blocks for it.
    void release(std::uint32_t request);

    void onFlowDelivered(const FlowInfo& flow) override;
    // Throws when an op still waits on the protocol once the event queue is empty (a deadlock).
    void checkFinished() const;

    const std::vector<MessageKindStats>& kinds() const { return m_driver.kinds(); }
    SharedPrefixSummary summary() const;

  private:
    friend class ProtocolDriver<SharedPrefixBlocks>;
    static constexpr std::uint8_t kNone = 0xff;
    static constexpr std::uint64_t kNever = ~std::uint64_t{0};
    enum Job : std::uint8_t { Write, Read, Drop };
    struct Waiter {
        std::uint8_t cache;
        std::uint32_t sequence;
    };
    struct Block { // the protocol state and driver queues are BlockSetSlots' slot of the same index
        std::uint32_t hash = 0;
        std::uint32_t position = 0; // its index among a prompt's prefix blocks
        Participants participants;
        std::array<std::uint32_t, coherence::kMaxCaches> refs{}; // per cache: sequences there using it
        std::uint16_t loading = 0;                               // bit per cache: a Load is queued there
        std::uint32_t pendingWrites = 0;                         // Stores queued and not done
        bool writing = false;                                    // a Store went through the table
        bool written = false;                                    // its content exists (the first Store is done)
        bool homed = false;                                      // its home is chosen
        std::uint32_t lastSequence = 0;                          // for message records
        std::vector<Waiter> waiters;                             // sequences waiting on a Load, with its cache
    };
    struct Sequence {
        std::vector<std::uint32_t> slots;                       // its shared blocks, in prompt order
        std::uint8_t prefillCache = kNone, decodeCache = kNone; // kNone: not there (yet)
        std::uint64_t checkedAt = kNever;    // m_changes[decodeCache] when a step last hit every block current
        SimTime leaseExpiry = kTimeInfinity; // the earliest expiry of a lease the last read() read under
        std::uint64_t steadyLeasedReads = 0; // KV blocks of leased copies a steady step reads
        bool readExpired = false;            // the last read() read an expired copy (trust)
    };

    // ProtocolDriver's view of a block (see protocol_driver.h): its slot, as BlockSetSlots keeps it, and:
    std::uint32_t weight(Ref) const { return m_weight; }
    const Participants& participants(Ref slot) const { return m_blocks[slot].participants; }
    FlowEndpoint& endpoint() { return *this; }
    static std::uint64_t flowTag(Key slot, std::uint16_t tag) { return (std::uint64_t{slot} << 16) | tag; }
    Gate gate(Ref slot, std::uint8_t cache, const DriverOp& op) const;
    void onIssued(Ref slot, std::uint8_t, const DriverOp& op);
    void onStep(Key slot, Ref, const coherence::CheckedStep& step);
    static bool mayComplete(Key, Ref, std::uint8_t, const DriverOp&, const coherence::StepResult&) { return true; }
    static bool mayCompleteHeld(Key, Ref, std::uint8_t) { return true; } // nothing is held
    void onOpDone(Key slot, std::uint8_t cache, const DriverOp& op, const coherence::StepResult* step);

    std::span<const std::uint32_t> hashesOf(std::uint32_t request) const;
    std::uint32_t slotOf(std::uint32_t hash, std::uint32_t position);
    void hold(std::uint32_t slot, std::uint8_t cache);
    void unhold(std::uint32_t slot, std::uint8_t cache);
    void evict(std::uint32_t slot, std::uint8_t cache);
    // Reads the block at the decode cache: true on a hit; else the sequence waits for a Load.
    bool readAt(std::uint32_t slot, std::uint8_t cache, std::uint32_t sequence);
    // A load at `cache` would hit: its copy is readable (the table's hit flag).
    bool readable(std::uint32_t slot, std::uint8_t cache) const;
    // Counts a read of `value`: true when it is older than the latest write (the protocol allows it, or fails).
    bool staleValue(std::uint32_t slot, coherence::Value value) const;
    // coherence.lease, before a step reads the block at the sequence's decode cache: counts a read of a leased copy
    // and acts on an expired one as CoherentKv::checkLease does (refetch drops it silently, trust counts the read).
    void checkLease(std::uint32_t slot, Sequence& seq);
    [[noreturn]] void fail(std::uint32_t slot, const std::string& what) const;

    const coherence::Protocol& m_protocol;
    const Workload& m_workload;
    Transport& m_network;
    EventRecorder& m_recorder;
    NodeBlockStates& m_nodeBlocks;
    const KvHomes& m_homes;
    std::vector<std::uint32_t> m_instanceNodes;
    SharedPrefixListener& m_listener;
    std::uint32_t m_blockTokens;                              // tokens per prefix block
    std::uint32_t m_weight;                                   // KV blocks per prefix block
    std::deque<Block> m_blocks;                               // a deque: blocks never move
    std::unordered_map<std::uint32_t, std::uint32_t> m_slots; // hash -> index into m_blocks
    std::vector<Sequence> m_sequences;
    // Per cache: how many idle blocks it keeps, and those it keeps, the most recently used first (`m_idleAt` finds a
    // (slot, cache) in its list).
    std::array<std::uint64_t, coherence::kMaxCaches> m_keep{};
    std::array<std::list<std::uint32_t>, coherence::kMaxCaches> m_idle;
    std::unordered_map<std::uint64_t, std::list<std::uint32_t>::iterator> m_idleAt;
    // Per cache: steps that touched its copy of any block. A sequence whose decode cache saw none since its last
    // step hits every shared block again (a hit changes nothing), so a steady step costs O(1).
    std::array<std::uint64_t, coherence::kMaxCaches> m_changes{};
    // coherence.lease (ttl -1: leases never expire, nothing tracked): per slot and cache, when the copy came under
    // its lease; which caches are decode instances' (only their leases are read).
    LeaseSummary m_lease;
    std::vector<SimTime> m_leaseAt;
    std::array<bool, coherence::kMaxCaches> m_decodes{};
    ProtocolDriver<SharedPrefixBlocks> m_driver;
    const FlowInfo* m_delivery = nullptr; // the flow being delivered, for the waiters' transfer time
    bool m_deliveryData = false;          // it carries the block's data
    SharedPrefixSummary m_summary;
};

} // namespace coh::core
