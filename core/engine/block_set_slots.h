#pragma once
// The blocks of a ProtocolDriver client kept by slot in one BlockSet (the prefix pool's, the shared prefix blocks):
// each slot's protocol state in the set, its driver queues and messages in flight beside it. The driver's view of
// a slot (resolve, driverBlock, shape, issue, deliverOne: see protocol_driver.h) lives here once; a client inherits
// it and adds what its ops mean.
#include "core/coherence/block_set.h"
#include "core/engine/protocol_driver.h"

#include <cstdint>
#include <deque>

namespace coh::core {

template <int N> class BlockSetSlots {
  public:
    using Key = std::uint32_t;
    using Ref = std::uint32_t; // slots never move

    BlockSetSlots(const coherence::Protocol& protocol, int caches)
        : m_protocolBlocks(protocol, caches)
    {
    }

    static Ref resolve(Key slot) { return slot; }
    DriverBlock<N>& driverBlock(Ref slot) { return m_drivers[slot]; }
    const DriverBlock<N>& driverBlock(Ref slot) const { return m_drivers[slot]; }
    const coherence::BlockSystem& shape(Ref slot) const { return m_protocolBlocks.shape(slot); }
    coherence::CheckedStep issue(Ref slot, std::uint8_t cache, coherence::ProcessorOp op)
    {
        return m_protocolBlocks.issue(slot, cache, op);
    }
    coherence::CheckedStep deliverOne(Ref slot) { return m_drivers[slot].arrivals.deliverOne(m_protocolBlocks, slot); }
    // The slot's latest written value, absolute (as a step's value is under either executor; shape()'s counts from
    // the latest write under the automaton).
    coherence::Value latest(Ref slot) const { return m_protocolBlocks.latest(slot); }

  protected:
    // A new slot, every controller initial and nothing queued; its index.
    std::uint32_t addSlot()
    {
        m_drivers.emplace_back();
        return m_protocolBlocks.add();
    }
    // Every controller initial again (its queues must be empty).
    void resetSlot(std::uint32_t slot) { m_protocolBlocks.reset(slot); }
    // What the last violation broke, in words.
    const std::string& failure() const { return m_protocolBlocks.failure(); }

  private:
    coherence::BlockSet m_protocolBlocks;
    std::deque<DriverBlock<N>> m_drivers; // a deque: a slot's queues never move
};

} // namespace coh::core
