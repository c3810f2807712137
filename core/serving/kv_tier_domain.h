#pragma once
// One memory tier below HBM as a coherence domain of decode KV (serving.kv_tiers): each move of a sequence's blocks
// is one transaction on a block of the tier protocol's BlockSet standing for all of them (the move's weight), its
// one cache the decode instance's HBM, its home the tier's node; the block starts over once the move is done. A
// write-down (offload or write-through) is a Store and then an Evict (the data goes home), a fetch a Load and then an
// Evict; every message the table sends is a flow between the two nodes, and the invariants are checked after every
// step. Under "direct" (no protocol) a move is one plain copy. This is the lower half of a two-level hierarchy: while a
// sequence is in HBM its blocks follow the decode protocol (CoherentKv) as before; where in the node's memory they sit
// is this domain's business.
#include "core/coherence/block_set.h"
#include "core/engine/event_recorder.h"
#include "core/engine/protocol_driver.h"
#include "core/engine/run_result.h"
#include "core/net/transport.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace coh::core {

class KvTierMoveListener {
  public:
    virtual ~KvTierMoveListener() = default;
    // The move `job` (KvTierDomain::Job) of `blocks` blocks of `request` has finished: its data is where it was sent.
    virtual void onMoveDone(std::uint32_t request, std::uint8_t job, std::uint32_t blocks) = 0;
};

// The tokens a move's blocks hold: a run of the sequence's, from `firstToken`. Its data messages carry their rows
// (FlowEndpoint::payloadOf) for a real backend to write, check on landing and hand to the decode pool; none (0 tokens)
// where the blocks hold no token yet.
struct TierMoveRows {
    std::uint32_t firstToken = 0;
    std::uint32_t tokens = 0;
};

class KvTierDomain final : public FlowEndpoint {
  public:
    enum Job : std::uint8_t { Offload, WriteThrough, Fetch };

    // `protocol`: the tier's table, or none for plain copies. Message kinds are recorded from `firstKind`, named
    // after `tierName`.
    KvTierDomain(const coherence::Protocol* protocol, const std::string& tierName, Transport& network,
                 EventRecorder& recorder, double blockBytes, double controlBytes, std::uint8_t firstKind,
                 KvTierMoveListener& listener);

    // Moves `blocks` blocks of `request` (its KV sequence), holding `rows`, between its decode node and the tier's
    // node `tierNode`.
    void move(std::uint32_t request, Job job, std::uint32_t blocks, std::uint32_t decodeNode, std::uint32_t tierNode,
              TierMoveRows rows);
    void onFlowDelivered(const FlowInfo& flow) override;
    // Every data message of a move, either way, holds the move's rows as the sequence has them when it is sent.
    std::optional<KvPayload> payloadOf(std::uint64_t tag) const override;
    // Throws when a move still waits on the protocol once the event queue is empty (a deadlock).
    void checkFinished() const;

    std::vector<MessageKindStats> kinds() const;
    std::uint64_t messages() const; // every message of its moves, per block
    double bytesDown() const { return m_bytesDown; }
    double bytesUp() const { return m_bytesUp; }

  private:
    friend class ProtocolDriver<KvTierDomain>;
    struct Slot { // the protocol state is m_blocks' block of the same index
        std::uint32_t request = 0;
        DriverBlock<1> driver;
        Participants participants; // cache 0 at the decode node, the home at the tier's node
        std::uint32_t weight = 1;  // blocks the move stands for
        TierMoveRows rows;
        bool done = false; // the move is over: the slot is free once no message is in flight
    };

    // ProtocolDriver's view of a sequence's tier block (see protocol_driver.h): its slot.
    using Key = std::uint32_t;
    using Ref = std::uint32_t; // slots never move
    static Ref resolve(Key slot) { return slot; }
    DriverBlock<1>& driverBlock(Ref slot) { return m_slots[slot].driver; }
    const coherence::BlockSystem& shape(Ref slot) const { return m_blocks->shape(slot); }
    coherence::CheckedStep issue(Ref slot, std::uint8_t cache, coherence::ProcessorOp op)
    {
        return m_blocks->issue(slot, cache, op);
    }
    coherence::CheckedStep deliverOne(Ref slot) { return m_slots[slot].driver.arrivals.deliverOne(*m_blocks, slot); }
    std::uint32_t weight(Ref slot) const { return m_slots[slot].weight; }
    const Participants& participants(Ref slot) const { return m_slots[slot].participants; }
    FlowEndpoint& endpoint() { return *this; }
    static std::uint64_t flowTag(Key slot, std::uint16_t tag) { return (std::uint64_t{slot} << 16) | tag; }
    static Gate gate(Ref, std::uint8_t, const DriverOp&) { return Gate::Go; }
    void onIssued(Ref slot, std::uint8_t, const DriverOp& op);
    void onStep(Key slot, Ref, const coherence::CheckedStep& step) const;
    static bool mayComplete(Key, Ref, std::uint8_t, const DriverOp&, const coherence::StepResult&) { return true; }
    static bool mayCompleteHeld(Key, Ref, std::uint8_t) { return true; } // nothing is held
    void onOpDone(Key slot, std::uint8_t cache, const DriverOp& op, const coherence::StepResult* step);

    std::uint32_t newSlot(std::uint32_t request);
    void freeIfIdle(std::uint32_t slot);
    [[noreturn]] void fail(std::uint32_t slot, const std::string& what) const;

    const coherence::Protocol* m_protocol;
    Transport& m_network;
    EventRecorder& m_recorder;
    KvTierMoveListener& m_listener;
    double m_blockBytes;
    std::uint8_t m_firstKind;
    std::vector<MessageKindStats> m_copyKinds; // plain copies: down, up
    std::optional<KvPayload> m_sendingCopy;    // what the plain copy move() is sending holds (payloadOf)
    std::vector<Slot> m_slots;
    std::vector<std::uint32_t> m_freeSlots;
    std::unique_ptr<coherence::BlockSet> m_blocks;
    std::unique_ptr<ProtocolDriver<KvTierDomain>> m_driver;
    double m_bytesDown = 0, m_bytesUp = 0;
};

} // namespace coh::core
