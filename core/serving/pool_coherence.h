#pragma once
// The prefix pool's blocks under a tier protocol (coherence.tiers): a BlockSet with one block per pool block,
// its caches the prefill instances, its directory and memory at the pool's node, run by ProtocolDriver. A load is
// a Load op and then an Evict
// (the instance drops its replica once its prefill has the KV), a store a Store op and then an Evict (the block
// goes home to the pool). Every message the table sends is a flow between the nodes; the invariants are
// checked after every step and a violation fails the run.
#include "core/engine/block_set_slots.h"
#include "core/engine/event_recorder.h"
#include "core/engine/protocol_driver.h"
#include "core/engine/run_result.h"
#include "core/net/transport.h"

#include <array>
#include <cstdint>
#include <deque>
#include <unordered_map>
#include <vector>

namespace coh::core {

class PoolCoherenceListener {
  public:
    virtual ~PoolCoherenceListener() = default;
    virtual void onBlockLoaded(std::uint32_t request) = 0;
    virtual void onBlockStored(std::uint32_t request, std::uint32_t hash) = 0;
};

class PoolCoherence final : public FlowEndpoint, private BlockSetSlots<coherence::kMaxCaches> {
  public:
    // `cacheNodes[c]` is the node of cache c (a prefill instance); message kinds are recorded from `firstKind`.
    PoolCoherence(const coherence::Protocol& protocol, Transport& network, EventRecorder& recorder,
                  std::vector<std::uint32_t> cacheNodes, std::uint32_t poolNode, double blockBytes, double controlBytes,
                  std::uint8_t firstKind, PoolCoherenceListener& listener);

    void load(std::uint32_t hash, std::uint8_t cache, std::uint32_t request);
    // Blocks are named by their content's hash, so a block already stored (or being stored by another
    // instance) is not written again: the later store completes when the first one has.
    void store(std::uint32_t hash, std::uint8_t cache, std::uint32_t request);
    // The pool evicted the block: its protocol state starts over (at once, or once its last job is done).
    void drop(std::uint32_t hash);

    void onFlowDelivered(const FlowInfo& flow) override;
    // Throws when a load or store still waits on the protocol once the event queue is empty (a deadlock).
    void checkFinished() const;

    const std::vector<MessageKindStats>& kinds() const { return m_driver.kinds(); }

  private:
    friend class ProtocolDriver<PoolCoherence>;
    enum Job : std::uint8_t { Load, Store }; // a job is its op, then an Evict
    struct Block { // the protocol state and driver queues are BlockSetSlots' slot of the same index
        std::uint32_t hash = 0;
        bool storing = false;      // a cache's store of this block is under way
        bool stored = false;       // the block is home (since the last drop)
        bool dropWhenIdle = false; // drop() came while jobs were running
    };

    // ProtocolDriver's view of a block (see protocol_driver.h): its slot, as BlockSetSlots keeps it, and:
    static std::uint32_t weight(Ref) { return 1; }
    const Participants& participants(Ref) const { return m_participants; }
    FlowEndpoint& endpoint() { return *this; }
    static std::uint64_t flowTag(Key slot, std::uint16_t tag) { return (std::uint64_t{slot} << 16) | tag; }
    Gate gate(Ref slot, std::uint8_t cache, const DriverOp& op) const;
    void onIssued(Ref slot, std::uint8_t, const DriverOp& op);
    void onStep(Key slot, Ref, const coherence::CheckedStep& step) const;
    static bool mayComplete(Key, Ref, std::uint8_t, const DriverOp&, const coherence::StepResult&) { return true; }
    static bool mayCompleteHeld(Key, Ref, std::uint8_t) { return true; } // nothing is held
    void onOpDone(Key slot, std::uint8_t cache, const DriverOp& op, const coherence::StepResult* step);

    std::uint32_t slotOf(std::uint32_t hash);
    void enqueue(std::uint32_t hash, std::uint8_t cache, DriverOp job);
    void finishJob(std::uint32_t slot, const DriverOp& job);
    bool idle(std::uint32_t slot) const;
    void reset(std::uint32_t slot);
    [[noreturn]] void fail(std::uint32_t slot, const std::string& what) const;

    const coherence::Protocol& m_protocol;
    Transport& m_network;
    EventRecorder& m_recorder;
    Participants m_participants; // the prefill instances' nodes, the pool's node as the home
    PoolCoherenceListener& m_listener;
    std::deque<Block> m_blocks;                               // a deque: blocks never move
    std::unordered_map<std::uint32_t, std::uint32_t> m_slots; // hash -> index into m_blocks
    ProtocolDriver<PoolCoherence> m_driver;
};

} // namespace coh::core
