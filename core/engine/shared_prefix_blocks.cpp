#include "core/engine/shared_prefix_blocks.h"

#include "core/coherence/invariants.h"
#include "core/coherence/protocol_leases.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

namespace coh::core {

using coherence::ProcessorOp;
using coherence::StepResult;

SharedPrefixBlocks::SharedPrefixBlocks(const coherence::Protocol& protocol, const Scenario& scenario,
                                       const Workload& workload, Transport& network, EventRecorder& recorder,
                                       NodeBlockStates& nodeBlocks, const KvHomes& homes,
                                       std::vector<std::uint32_t> instanceNodes, std::uint8_t firstKind,
                                       SharedPrefixListener& listener)
    : BlockSetSlots(protocol, static_cast<int>(instanceNodes.size()))
    , m_protocol(protocol)
    , m_workload(workload)
    , m_network(network)
    , m_recorder(recorder)
    , m_nodeBlocks(nodeBlocks)
    , m_homes(homes)
    , m_instanceNodes(std::move(instanceNodes))
    , m_listener(listener)
    , m_blockTokens(scenario.serving.sharedPrefix.blockTokens)
    , m_weight(scenario.serving.sharedPrefix.blockTokens / scenario.serving.blockTokens)
    , m_sequences(workload.requests.size())
    , m_driver(*this, protocol, network, static_cast<int>(m_instanceNodes.size()),
               DriverCosts{static_cast<double>(scenario.model.kvBytesPerToken()) * scenario.serving.blockTokens,
                           static_cast<double>(scenario.coherence.controlBytes), firstKind},
               "shared ")
{
    m_summary.enabled = true;
    m_summary.blockTokens = m_blockTokens;
    m_lease.ttl = scenario.coherence.lease.ttl.value_or(-1);
    m_lease.refetch = scenario.coherence.lease.onExpiry == LeaseExpiry::Refetch;
    const double blockBytes = static_cast<double>(scenario.model.kvBytesPerToken()) * m_blockTokens;
    for (std::size_t i = 0; i < scenario.serving.instances.size() && i < m_keep.size(); ++i) {
        const InstanceSpec& instance = scenario.serving.instances[i];
        if (instance.role == InstanceRole::Prefill)
            continue; // prefill's own prefix cache is serving.local_prefix_cache's
        m_decodes[i] = true;
        double bytes = 0;
        if (scenario.serving.sharedPrefix.capacityBytes) {
            bytes = *scenario.serving.sharedPrefix.capacityBytes;
        } else {
            for (const std::string& id : instance.nodes)
                if (const auto n = scenario.topology.nodeIndex(id))
                    if (const MemoryTier* hbm = scenario.topology.nodes[*n].tier(Tier::Hbm))
                        bytes += hbm->capacityBytes;
            bytes = bytes * scenario.serving.kvMemoryFraction - scenario.model.weightBytes();
        }
        m_keep[i] = bytes > 0 ? static_cast<std::uint64_t>(bytes / blockBytes) : 0;
        m_summary.capacityBlocks += m_keep[i];
    }
}

std::span<const std::uint32_t> SharedPrefixBlocks::hashesOf(std::uint32_t request) const
{
    const Request& r = m_workload.requests[request];
    const std::uint32_t full = r.promptTokens > 0 ? (r.promptTokens - 1) / m_blockTokens : 0;
    return std::span<const std::uint32_t>(m_workload.prefixHashes)
        .subspan(r.prefixOffset, std::min(r.prefixCount, full));
}

std::uint32_t SharedPrefixBlocks::sharedTokens(std::uint32_t request) const
{
    return static_cast<std::uint32_t>(hashesOf(request).size()) * m_blockTokens;
}

std::uint32_t SharedPrefixBlocks::slotOf(std::uint32_t hash, std::uint32_t position)
{
    const auto [it, added] = m_slots.emplace(hash, static_cast<std::uint32_t>(m_blocks.size()));
    if (added) {
        Block& b = m_blocks.emplace_back();
        b.hash = hash;
        b.position = position;
        std::copy(m_instanceNodes.begin(), m_instanceNodes.end(), b.participants.cacheNodes.begin());
        addSlot();
        if (m_lease.ttl >= 0)
            m_leaseAt.resize(m_blocks.size() * coherence::kMaxCaches, -1);
    }
    return it->second;
}

void SharedPrefixBlocks::hold(std::uint32_t slot, std::uint8_t cache)
{
    Block& b = m_blocks[slot];
    if (b.refs[cache]++ == 0) {
        // An idle copy is in use again: it leaves the instance's idle list.
        if (const auto it = m_idleAt.find(std::uint64_t{slot} << 4 | cache); it != m_idleAt.end()) {
            m_idle[cache].erase(it->second);
            m_idleAt.erase(it);
        }
    }
    const auto holders =
        static_cast<std::uint64_t>(std::count_if(b.refs.begin(), b.refs.end(), [](auto n) { return n > 0; }));
    m_summary.peakHolders = std::max(m_summary.peakHolders, holders);
}

void SharedPrefixBlocks::unhold(std::uint32_t slot, std::uint8_t cache)
{
    Block& b = m_blocks[slot];
    if (b.refs[cache] == 0 || --b.refs[cache] > 0)
        return;
    // Nobody at this instance uses the block now: a decode instance keeps a readable copy while it has room for idle
    // blocks (a copy another cache took, as under migratory, is not worth the room).
    if (m_keep[cache] == 0 || !readable(slot, cache)) {
        evict(slot, cache);
        return;
    }
    std::list<std::uint32_t>& idle = m_idle[cache];
    idle.push_front(slot);
    m_idleAt.emplace(std::uint64_t{slot} << 4 | cache, idle.begin());
    if (idle.size() > m_keep[cache]) {
        const std::uint32_t oldest = idle.back();
        idle.pop_back();
        m_idleAt.erase(std::uint64_t{oldest} << 4 | cache);
        // A copy another cache took since (migratory) is gone already: its Evict does nothing and drops nothing.
        m_summary.evictions += readable(oldest, cache) ? 1 : 0;
        evict(oldest, cache);
    }
}

void SharedPrefixBlocks::evict(std::uint32_t slot, std::uint8_t cache)
{
    // The copy goes as the table drops it (a write-back, if dirty).
    m_driver.request(slot, cache, DriverOp{ProcessorOp::Evict, Job::Drop, 0});
}

void SharedPrefixBlocks::write(std::uint32_t request, std::uint32_t instance)
{
    Sequence& seq = m_sequences[request];
    const auto cache = static_cast<std::uint8_t>(instance);
    const auto hashes = hashesOf(request);
    seq.prefillCache = cache;
    seq.slots.clear();
    m_summary.sharedTokens += std::uint64_t{m_blockTokens} * hashes.size();
    for (std::uint32_t i = 0; i < hashes.size(); ++i) {
        const std::uint32_t slot = slotOf(hashes[i], i);
        seq.slots.push_back(slot);
        Block& b = m_blocks[slot];
        if (!b.homed) {
            // The first instance to compute the block allocates it (coherence.home: allocating_node).
            b.participants.home = m_homes.homeFor(hashes[i], m_instanceNodes[cache]);
            b.homed = true;
        }
        b.lastSequence = request;
        hold(slot, cache);
        ++b.pendingWrites;
        m_driver.request(slot, cache, DriverOp{ProcessorOp::Store, Job::Write, request});
    }
}

std::uint32_t SharedPrefixBlocks::acquire(std::uint32_t request, std::uint32_t instance)
{
    Sequence& seq = m_sequences[request];
    seq.decodeCache = static_cast<std::uint8_t>(instance);
    seq.checkedAt = kNever;
    std::uint32_t hits = 0;
    for (const std::uint32_t slot : seq.slots) {
        hold(slot, seq.decodeCache);
        ++m_summary.acquires;
        if (readAt(slot, seq.decodeCache, request)) {
            ++m_summary.acquireHits;
            ++hits;
        }
    }
    return hits;
}

std::uint32_t SharedPrefixBlocks::read(std::uint32_t request)
{
    Sequence& seq = m_sequences[request];
    const std::uint64_t before = m_changes[seq.decodeCache];
    const std::uint64_t staleBefore = m_summary.staleReads;
    std::uint32_t hits = 0;
    seq.leaseExpiry = kTimeInfinity; // checkLease() sets it again
    seq.steadyLeasedReads = 0;
    seq.readExpired = false;
    for (const std::uint32_t slot : seq.slots) {
        ++m_summary.reads;
        if (m_lease.ttl >= 0)
            checkLease(slot, seq);
        if (readAt(slot, seq.decodeCache, request))
            ++hits;
        else
            ++m_summary.readMisses;
    }
    // Only a step that hit every block current, with nothing changed meanwhile, lets the next ones skip the pass.
    seq.checkedAt = hits == seq.slots.size() && m_summary.staleReads == staleBefore ? before : kNever;
    return hits;
}

bool SharedPrefixBlocks::readAt(std::uint32_t slot, std::uint8_t cache, std::uint32_t sequence)
{
    Block& b = m_blocks[slot];
    if (m_driver.idle(driverBlock(slot), cache) && readable(slot, cache)) {
        // Under a strong protocol a readable copy is current: the invariants, checked after every step, say so.
        if (m_protocol.consistency != coherence::Consistency::Strong)
            m_summary.staleReads += staleValue(slot, shape(slot).line(cache).value) ? 1 : 0;
        return true;
    }
    b.waiters.push_back({cache, sequence});
    b.lastSequence = sequence;
    const auto bit = static_cast<std::uint16_t>(1u << cache);
    if (!(b.loading & bit)) { // one load serves every sequence at this instance waiting for the block
        b.loading |= bit;
        m_driver.request(slot, cache, DriverOp{ProcessorOp::Load, Job::Read, sequence});
    }
    return false;
}

void SharedPrefixBlocks::checkLease(std::uint32_t slot, Sequence& seq)
{
    const std::uint8_t cache = seq.decodeCache;
    if (!shape(slot).leased(cache) || !m_driver.idle(driverBlock(slot), cache))
        return;
    const SimTime now = m_network.now();
    const SimTime expiry = m_leaseAt[std::size_t{slot} * coherence::kMaxCaches + cache] + m_lease.ttl;
    if (now < expiry) {
        m_lease.leasedReads += m_weight;
        seq.steadyLeasedReads += m_weight;
        seq.leaseExpiry = std::min(seq.leaseExpiry, expiry);
        return;
    }
    if (m_lease.refetch) {
        // As the table releases a leased copy (its Evict sends nothing): the read that follows asks the home again,
        // for every sequence at this instance.
        m_lease.refetches += m_weight;
        onStep(slot, slot, issue(slot, cache, ProcessorOp::Evict));
        return;
    }
    m_lease.leasedReads += m_weight;
    m_lease.expiredReads += m_weight;
    seq.leaseExpiry = now;
    seq.readExpired = true;
}

bool SharedPrefixBlocks::readable(std::uint32_t slot, std::uint8_t cache) const
{
    // The table says what a hit is: a load that hits reads the copy and changes nothing.
    return m_protocol.cache.compiled.hits(shape(slot).line(cache).state, static_cast<int>(ProcessorOp::Load));
}

bool SharedPrefixBlocks::staleValue(std::uint32_t slot, coherence::Value value) const
{
    const coherence::BlockSystem& now = shape(slot);
    if (now.tooStale(value))
        fail(slot, "a load returned a version the protocol does not allow");
    return value != now.latest();
}

std::uint32_t SharedPrefixBlocks::heldAt(std::uint32_t request, std::uint32_t instance) const
{
    std::uint32_t held = 0;
    for (const std::uint32_t slot : m_sequences[request].slots)
        held += readable(slot, static_cast<std::uint8_t>(instance)) ? 1 : 0;
    return held;
}

void SharedPrefixBlocks::release(std::uint32_t request)
{
    Sequence& seq = m_sequences[request];
    // Last block first, as vLLM frees a request's blocks: the leading blocks, which more prompts share, are the last
    // idle ones to be dropped for room.
    for (auto it = seq.slots.rbegin(); it != seq.slots.rend(); ++it) {
        const std::uint32_t slot = *it;
        if (seq.prefillCache != kNone)
            unhold(slot, seq.prefillCache);
        if (seq.decodeCache != kNone)
            unhold(slot, seq.decodeCache);
    }
    seq.slots.clear();
    seq.slots.shrink_to_fit();
}

Gate SharedPrefixBlocks::gate(Ref slot, std::uint8_t, const DriverOp& op) const
{
    const Block& b = m_blocks[slot];
    if (op.op == ProcessorOp::Store) {
        if (b.written) // the same content exists: nothing to write
            return Gate::Skip;
        return b.writing ? Gate::Wait : Gate::Go; // another instance writes it; this one completes after
    }
    // A read waits for the block's content: a load before its first write would read nothing.
    if (op.op == ProcessorOp::Load && !b.written && b.pendingWrites > 0)
        return Gate::Wait;
    return Gate::Go;
}

void SharedPrefixBlocks::onIssued(Ref slot, std::uint8_t, const DriverOp& op)
{
    if (op.op == ProcessorOp::Store)
        m_blocks[slot].writing = true;
}

void SharedPrefixBlocks::onStep(Key slot, Ref, const coherence::CheckedStep& checked)
{
    const StepResult& step = checked.result;
    if (checked.violation != coherence::Violation::None)
        fail(slot, failure());
    if (step.atDirectory)
        return;
    // Anything that happens to a copy may take a reader's hit away: its sequences look at every block again.
    ++m_changes[step.actor];
    if (m_lease.ttl >= 0 && m_decodes[step.actor] && step.from != step.to) {
        SimTime& at = m_leaseAt[std::size_t{slot} * coherence::kMaxCaches + step.actor];
        switch (coherence::leaseChange(m_protocol, step.from, step.to)) {
        case coherence::LeaseChange::Granted:
            at = m_network.now();
            m_lease.grants += m_weight;
            break;
        case coherence::LeaseChange::Ended:
            at = -1;
            break;
        case coherence::LeaseChange::None:
            break;
        }
    }
    m_nodeBlocks.change(m_network.now(), m_instanceNodes[step.actor], step.from, step.to, m_weight);
}

void SharedPrefixBlocks::onOpDone(Key slot, std::uint8_t cache, const DriverOp& op, const StepResult* step)
{
    Block& b = m_blocks[slot];
    if (op.kind == Job::Write) {
        --b.pendingWrites;
        if (step) {
            ++m_summary.writes;
            b.writing = false;
            b.written = true;
        } else {
            ++m_summary.writesSkipped;
        }
        return;
    }
    if (op.kind != Job::Read)
        return;
    b.loading &= static_cast<std::uint16_t>(~(1u << cache));
    // The value the load returned (a table whose loads keep no copy, as unified memory, leaves none in the line),
    // against the latest write; a version the protocol does not allow failed the run in onStep already.
    const bool stale = step && step->hasValue && step->value != latest(slot);
    const FlowInfo* transfer = m_delivery && m_deliveryData ? m_delivery : nullptr;
    // Waiters at this cache, in the order they came; the listener may start a step that queues new ones.
    std::vector<Waiter> done;
    std::erase_if(b.waiters, [&](const Waiter& w) {
        if (w.cache != cache)
            return false;
        done.push_back(w);
        return true;
    });
    m_summary.staleReads += stale ? done.size() : 0;
    for (const Waiter& w : done)
        m_listener.onSharedRead(w.sequence, transfer);
}

void SharedPrefixBlocks::onFlowDelivered(const FlowInfo& flow)
{
    const auto slot = static_cast<std::uint32_t>(flow.tag >> 16);
    const auto tag = static_cast<std::uint16_t>(flow.tag & 0xffffu);
    m_delivery = nullptr;
    if (const int i = m_driver.arrive(slot, tag); i >= 0) {
        const coherence::Message& m = shape(slot).message(i);
        m_delivery = &flow;
        m_deliveryData = m.hasData;
        if (flow.bytes > 0) {
            const Block& b = m_blocks[slot];
            MessageRecord record = recordOf(flow, m_network.routing());
            record.request = b.lastSequence;
            record.firstBlock = b.position * m_weight;
            record.blockCount = m_weight;
            driverBlock(slot).arrivals.origin(i).stamp(record);
            m_recorder.add(record);
        }
    }
    m_driver.pump(slot);
    m_delivery = nullptr;
}

void SharedPrefixBlocks::checkFinished() const
{
    for (std::uint32_t slot = 0; slot < m_blocks.size(); ++slot)
        if (!m_driver.idle(driverBlock(slot)))
            fail(slot, "the event queue is empty but an op still waits on the protocol (deadlock)");
}

SharedPrefixSummary SharedPrefixBlocks::summary() const
{
    SharedPrefixSummary s = m_summary;
    s.blocks = m_blocks.size();
    s.transfers = m_driver.transfers() / m_weight;
    s.bytes = m_driver.crossBytes();
    return s;
}

void SharedPrefixBlocks::fail(std::uint32_t slot, const std::string& what) const
{
    throw std::runtime_error(fmt::format("coherence invariant violated under {} for shared prefix block {}: {} [{}]",
                                         m_protocol.name, m_blocks[slot].hash, what, describeStates(shape(slot))));
}

} // namespace coh::core
