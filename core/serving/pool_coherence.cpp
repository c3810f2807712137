#include "core/serving/pool_coherence.h"

#include "core/coherence/invariants.h"

#include <fmt/format.h>
#include <stdexcept>

namespace coh::core {

using coherence::ProcessorOp;
using coherence::StepResult;
using coherence::StepStatus;

PoolCoherence::PoolCoherence(const coherence::Protocol& protocol, FlowNetwork& network, EventRecorder& recorder,
                             std::vector<std::uint32_t> cacheNodes, std::uint32_t poolNode, double blockBytes,
                             double controlBytes, std::uint8_t firstKind, PoolCoherenceListener& listener)
    : m_protocol(protocol)
    , m_network(network)
    , m_recorder(recorder)
    , m_cacheNodes(std::move(cacheNodes))
    , m_poolNode(poolNode)
    , m_blockBytes(blockBytes)
    , m_controlBytes(controlBytes)
    , m_firstKind(firstKind)
    , m_listener(listener)
    , m_protocolBlocks(protocol, static_cast<int>(m_cacheNodes.size()))
    , m_kinds(protocol, "pool ") // named apart from the KV path's messages, which may run the same protocol
{
}

std::uint32_t PoolCoherence::slotOf(std::uint32_t hash)
{
    const auto [it, added] = m_slots.emplace(hash, static_cast<std::uint32_t>(m_blocks.size()));
    if (added) {
        Block& block = m_blocks.emplace_back();
        m_protocolBlocks.add();
        block.hash = hash;
        block.jobs.resize(m_cacheNodes.size());
    }
    return it->second;
}

void PoolCoherence::load(std::uint32_t hash, std::uint8_t cache, std::uint32_t request)
{
    enqueue(hash, cache, {Job::Load, request});
}

void PoolCoherence::store(std::uint32_t hash, std::uint8_t cache, std::uint32_t request)
{
    enqueue(hash, cache, {Job::Store, request});
}

void PoolCoherence::enqueue(std::uint32_t hash, std::uint8_t cache, Pending job)
{
    const std::uint32_t slot = slotOf(hash);
    m_blocks[slot].jobs[cache].push_back(job);
    pump(slot);
}

void PoolCoherence::pump(std::uint32_t slot)
{
    for (bool progress = true; progress;) {
        progress = false;
        Block& b = m_blocks[slot];
        if (const auto step = b.arrivals.deliverOne(m_protocolBlocks, slot);
            step.result.status != StepStatus::Stalled) {
            afterStep(slot, step);
            progress = true;
        }
        for (std::uint8_t c = 0; c < m_cacheNodes.size(); ++c)
            progress |= tryIssue(slot, c);
    }
}

bool PoolCoherence::tryIssue(std::uint32_t slot, std::uint8_t cache)
{
    Block& b = m_blocks[slot];
    if (b.jobs[cache].empty() || b.issued[cache])
        return false;
    const bool isStore = b.jobs[cache].front().job == Job::Store;
    if (isStore && !b.evicting[cache]) {
        if (b.stored) { // the same content is home already: nothing to write
            finishJob(slot, cache);
            return true;
        }
        if (b.storing)
            return false; // another instance is writing it; this store completes after that one
    }
    const ProcessorOp op = b.evicting[cache] ? ProcessorOp::Evict : isStore ? ProcessorOp::Store : ProcessorOp::Load;
    // A protocol with nothing to drop in this state (no Evict transition) is done with the job.
    if (op == ProcessorOp::Evict && m_protocolBlocks.shape(slot).resolveOp(cache, op).status == StepStatus::Undefined) {
        finishJob(slot, cache);
        return true;
    }
    const coherence::CheckedStep step = m_protocolBlocks.issue(slot, cache, op);
    if (step.result.status == StepStatus::Stalled)
        return false; // a transient state: retried after the block's next step
    b.issued[cache] = true;
    if (op == ProcessorOp::Store)
        b.storing = true;
    afterStep(slot, step);
    return true;
}

void PoolCoherence::afterStep(std::uint32_t slot, const coherence::CheckedStep& checked)
{
    Block& b = m_blocks[slot];
    if (checked.violation != coherence::Violation::None)
        fail(slot, m_protocolBlocks.failure());

    const StepResult& step = checked.result;
    const coherence::BlockSystem& shape = m_protocolBlocks.shape(slot);
    for (int i = step.firstSent; i < step.firstSent + step.sentCount; ++i) {
        const coherence::Message& m = shape.message(i);
        const std::uint32_t src = m.src == coherence::kDirNode ? m_poolNode : m_cacheNodes[m.src];
        const std::uint32_t dst = m.dst == coherence::kDirNode ? m_poolNode : m_cacheNodes[m.dst];
        const double bytes = m.hasData ? m_blockBytes : m_controlBytes;
        const auto kind = static_cast<std::uint8_t>(m_firstKind + m_kinds.count(m, 1, bytes));
        const std::uint16_t tag = b.arrivals.sent(i, MessageOrigin::of(step, kind));
        // The flow comes back to this block: its slot, then the message's tag.
        m_network.send(m_network.routing().routeId(src, dst), src == dst ? 0.0 : bytes, *this,
                       (std::uint64_t{slot} << 16) | tag);
    }

    if (step.atDirectory)
        return;
    const std::uint8_t cache = step.actor;
    if (b.jobs[cache].empty() || !b.issued[cache])
        return;
    const Job job = b.jobs[cache].front().job;
    const bool evicting = b.evicting[cache];
    const bool done =
        evicting ? m_protocol.cache.states[step.to].stable : (job == Job::Load ? step.loaded : step.stored);
    if (!done)
        return;
    if (evicting) {
        finishJob(slot, cache);
        return;
    }
    // The op is performed: a load has its data (prefill may use it now); then the copy goes.
    b.evicting[cache] = true;
    b.issued[cache] = false;
    if (job == Job::Load)
        m_listener.onBlockLoaded(b.jobs[cache].front().request);
}

void PoolCoherence::finishJob(std::uint32_t slot, std::uint8_t cache)
{
    Block& b = m_blocks[slot];
    const Pending done = b.jobs[cache].front();
    b.jobs[cache].pop_front();
    b.evicting[cache] = false;
    b.issued[cache] = false;
    if (done.job == Job::Store && b.storing) {
        b.storing = false;
        b.stored = true;
    }
    if (b.dropWhenIdle && idle(slot))
        reset(slot);
    // The store is complete once the block is home: only now can later prompts find it in the pool.
    if (done.job == Job::Store)
        m_listener.onBlockStored(done.request, b.hash);
}

bool PoolCoherence::idle(std::uint32_t slot) const
{
    for (const auto& jobs : m_blocks[slot].jobs)
        if (!jobs.empty())
            return false;
    return m_protocolBlocks.shape(slot).quiescent();
}

void PoolCoherence::reset(std::uint32_t slot)
{
    m_protocolBlocks.reset(slot);
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
    Block& b = m_blocks[slot];
    const coherence::BlockSystem& shape = m_protocolBlocks.shape(slot);
    if (const int i = b.arrivals.arrive(shape, tag); i >= 0 && flow.bytes > 0) {
        MessageRecord record = recordOf(flow, m_network.routing());
        record.blockCount = 1;
        record.protocol = MessageProtocol::PrefixPool;
        b.arrivals.origin(i).stamp(record);
        m_recorder.add(record);
    }
    pump(slot);
}

void PoolCoherence::checkFinished() const
{
    for (std::uint32_t slot = 0; slot < m_blocks.size(); ++slot)
        for (const auto& jobs : m_blocks[slot].jobs)
            if (!jobs.empty())
                fail(slot, "the event queue is empty but a load or store still waits on the protocol (deadlock)");
}

void PoolCoherence::fail(std::uint32_t slot, const std::string& what) const
{
    throw std::runtime_error(fmt::format("coherence invariant violated under {} for prefix-pool block {}: {} [{}]",
                                         m_protocol.name, m_blocks[slot].hash, what,
                                         describeStates(m_protocolBlocks.shape(slot))));
}

} // namespace coh::core
