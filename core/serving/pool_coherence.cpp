#include "core/serving/pool_coherence.h"

#include "core/coherence/invariants.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

namespace coh::core {

using coherence::ProcessorOp;
using coherence::StepResult;
using coherence::StepStatus;

PoolCoherence::PoolCoherence(const coherence::Protocol& protocol, Transport& network, EventRecorder& recorder,
                             std::vector<std::uint32_t> cacheNodes, std::uint32_t poolNode, double blockBytes,
                             double controlBytes, std::uint8_t firstKind, PoolCoherenceListener& listener)
    : BlockSetSlots(protocol, static_cast<int>(cacheNodes.size()))
    , m_protocol(protocol)
    , m_network(network)
    , m_recorder(recorder)
    , m_listener(listener)
    // Named apart from the KV path's messages, which may run the same protocol.
    , m_driver(*this, protocol, network, static_cast<int>(cacheNodes.size()),
               DriverCosts{blockBytes, controlBytes, firstKind}, "pool ")
{
    std::copy(cacheNodes.begin(), cacheNodes.end(), m_participants.cacheNodes.begin());
    m_participants.home = poolNode;
}

std::uint32_t PoolCoherence::slotOf(std::uint32_t hash)
{
    const auto [it, added] = m_slots.emplace(hash, static_cast<std::uint32_t>(m_blocks.size()));
    if (added) {
        m_blocks.emplace_back().hash = hash;
        addSlot();
    }
    return it->second;
}

void PoolCoherence::load(std::uint32_t hash, std::uint8_t cache, std::uint32_t request)
{
    enqueue(hash, cache, {ProcessorOp::Load, Job::Load, request});
}

void PoolCoherence::store(std::uint32_t hash, std::uint8_t cache, std::uint32_t request)
{
    enqueue(hash, cache, {ProcessorOp::Store, Job::Store, request});
}

void PoolCoherence::enqueue(std::uint32_t hash, std::uint8_t cache, DriverOp job)
{
    const std::uint32_t slot = slotOf(hash);
    m_driver.enqueue(slot, cache, job);
    m_driver.pump(slot);
}

Gate PoolCoherence::gate(Ref slot, std::uint8_t, const DriverOp& op) const
{
    if (op.op != ProcessorOp::Store)
        return Gate::Go;
    const Block& b = m_blocks[slot];
    if (b.stored) // the same content is home already: nothing to write
        return Gate::Skip;
    // Another instance is writing it; this store completes after that one.
    return b.storing ? Gate::Wait : Gate::Go;
}

void PoolCoherence::onIssued(Ref slot, std::uint8_t, const DriverOp& op)
{
    if (op.op == ProcessorOp::Store)
        m_blocks[slot].storing = true;
}

void PoolCoherence::onStep(Key slot, Ref, const coherence::CheckedStep& step) const
{
    if (step.violation != coherence::Violation::None)
        fail(slot, failure());
}

void PoolCoherence::onOpDone(Key slot, std::uint8_t cache, const DriverOp& op, const StepResult* step)
{
    if (op.op == ProcessorOp::Evict || !step) {
        finishJob(slot, op); // the copy is gone, or a store found the block home already
        return;
    }
    // The op is performed: a load has its data (prefill may use it now); then the copy goes.
    m_driver.enqueueFront(slot, cache, {ProcessorOp::Evict, op.kind, op.payload});
    if (op.kind == Job::Load)
        m_listener.onBlockLoaded(op.payload);
}

void PoolCoherence::finishJob(std::uint32_t slot, const DriverOp& job)
{
    Block& b = m_blocks[slot];
    if (job.kind == Job::Store && b.storing) {
        b.storing = false;
        b.stored = true;
    }
    if (b.dropWhenIdle && idle(slot))
        reset(slot);
    // The store is complete once the block is home: only now can later prompts find it in the pool.
    if (job.kind == Job::Store)
        m_listener.onBlockStored(job.payload, b.hash);
}

bool PoolCoherence::idle(std::uint32_t slot) const
{
    return m_driver.idle(driverBlock(slot)) && shape(slot).quiescent();
}

void PoolCoherence::reset(std::uint32_t slot)
{
    resetSlot(slot);
    Block& block = m_blocks[slot];
    block.stored = false;
    block.storing = false;
    block.dropWhenIdle = false;
}

void PoolCoherence::drop(std::uint32_t hash)
{
    const auto it = m_slots.find(hash);
    if (it == m_slots.end())
        return;
    if (idle(it->second))
        reset(it->second);
    else
        m_blocks[it->second].dropWhenIdle = true;
}

void PoolCoherence::onFlowDelivered(const FlowInfo& flow)
{
    const auto slot = static_cast<std::uint32_t>(flow.tag >> 16);
    const auto tag = static_cast<std::uint16_t>(flow.tag & 0xffffu);
    if (const int i = m_driver.arrive(slot, tag); i >= 0 && flow.bytes > 0) {
        MessageRecord record = recordOf(flow, m_network.routing());
        record.blockCount = 1;
        record.protocol = MessageProtocol::PrefixPool;
        driverBlock(slot).arrivals.origin(i).stamp(record);
        m_recorder.add(record);
    }
    m_driver.pump(slot);
}

void PoolCoherence::checkFinished() const
{
    for (std::uint32_t slot = 0; slot < m_blocks.size(); ++slot)
        if (!m_driver.idle(driverBlock(slot)))
            fail(slot, "the event queue is empty but a load or store still waits on the protocol (deadlock)");
}

void PoolCoherence::fail(std::uint32_t slot, const std::string& what) const
{
    throw std::runtime_error(fmt::format("coherence invariant violated under {} for prefix-pool block {}: {} [{}]",
                                         m_protocol.name, m_blocks[slot].hash, what, describeStates(shape(slot))));
}

} // namespace coh::core
