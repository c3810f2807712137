#include "core/engine/coherent_kv.h"

#include "core/coherence/invariants.h"
#include "core/coherence/protocol_leases.h"

#include <algorithm>
#include <cassert>
#include <fmt/format.h>
#include <stdexcept>

namespace coh::core {

using coherence::ProcessorOp;
using coherence::StepResult;
using coherence::StepStatus;

namespace {

// Decode reads every block at the KV transfer, except that an append-only protocol's open tail is acquired for
// writing: decode appends to it next, and a read would seal it.
ProcessorOp decodeAcquireOp(const coherence::Protocol& protocol, int tailGroup, int group)
{
    return protocol.acquireTailForWrite && group == tailGroup ? ProcessorOp::Store : ProcessorOp::Load;
}

} // namespace

CoherentKv::CoherentKv(const coherence::Protocol& protocol, const Scenario& scenario, Transport& network,
                       EventRecorder& recorder, std::vector<std::vector<std::uint32_t>> instanceNodes,
                       std::size_t requests, const Workload* prefixes)
    : m_protocol(protocol)
    , m_network(network)
    , m_recorder(recorder)
    , m_instanceNodes(std::move(instanceNodes))
    , m_homes(scenario, m_instanceNodes)
    , m_spec(scenario.coherence)
    , m_caches(static_cast<std::uint8_t>(kFirstReplica + scenario.serving.replication.factor - 1))
    , m_placer(scenario, network.routing())
    , m_blockTokens(scenario.serving.blockTokens)
    , m_blockBytes(static_cast<double>(scenario.model.kvBytesPerToken()) * scenario.serving.blockTokens)
    , m_sequences(requests)
    , m_freshGroup{coherence::BlockSystem(protocol, m_caches), 0, 1}
    , m_driver(*this, protocol, network, m_caches,
               DriverCosts{m_blockBytes, static_cast<double>(m_spec.controlBytes), 0})
    , m_nodeBlocks(protocol, scenario.topology.nodes.size(), scenario.metrics.linkInterval)
    , m_replicaNodesUsed(scenario.topology.nodes.size(), false)
{
    m_replication.factor = scenario.serving.replication.factor;
    m_replication.placement = toString(scenario.serving.replication.placement);
    for (const Node& node : scenario.topology.nodes)
        m_nodeIds.push_back(node.id);
    if (protocol.consistency == coherence::Consistency::BoundedStaleness) {
        m_maxVersions = protocol.stalenessBound;
        if (m_spec.staleness.maxVersions)
            m_maxVersions = std::min<int>(m_maxVersions, static_cast<int>(*m_spec.staleness.maxVersions));
        m_maxAge = m_spec.staleness.maxAge.value_or(-1);
    }
    m_lease.ttl = m_spec.lease.ttl.value_or(-1);
    m_lease.refetch = m_spec.lease.onExpiry == LeaseExpiry::Refetch;
    m_staleness.boundVersions = m_maxVersions;
    m_staleness.boundAge = m_maxAge;
    m_staleness.readsByVersionsBehind.assign(static_cast<std::size_t>(m_maxVersions) + 1, 0);
    if (prefixes && scenario.serving.sharedPrefix.enabled) {
        // Cache i of a shared block is instance i; its kinds follow the KV path's own.
        std::vector<std::uint32_t> nodes;
        for (const auto& instance : m_instanceNodes)
            nodes.push_back(instance.front());
        m_shared = std::make_unique<SharedPrefixBlocks>(protocol, scenario, *prefixes, network, recorder, m_nodeBlocks,
                                                        m_homes, std::move(nodes),
                                                        static_cast<std::uint8_t>(m_driver.kinds().size()), *this);
    }
}

CoherentKv::~CoherentKv() = default;

void CoherentKv::addGroup(Sequence& seq, std::uint32_t firstBlock, std::uint32_t blocks, bool inLastSlot) const
{
    // Copied straight into place: a Group is ~1.7 KB, and building it apart first would copy it twice.
    if (inLastSlot)
        seq.groups.back() = m_freshGroup;
    else
        seq.groups.push_back(m_freshGroup);
    seq.groups.back().firstBlock = firstBlock;
    seq.groups.back().blocks = blocks;
}

void CoherentKv::prefillWrite(std::uint32_t request, std::uint32_t instance, std::uint32_t tokens)
{
    if (m_shared) {
        m_sequences[request].sharedTokens = m_shared->sharedTokens(request);
        m_shared->write(request, instance);
    }
    writeAt(request, m_instanceNodes[instance].front(), tokens);
}

void CoherentKv::restoreAt(std::uint32_t sequence, std::uint32_t node, std::uint32_t tokens)
{
    writeAt(sequence, node, tokens);
}

void CoherentKv::writeAt(std::uint32_t request, std::uint32_t node, std::uint32_t tokens)
{
    Sequence& seq = m_sequences[request];
    seq.participants.cacheNodes[kPrefillCache] = node;
    seq.participants.home = m_homes.homeFor(request, node);
    seq.tokens = tokens;
    tokens -= seq.sharedTokens; // the shared prefix blocks' are written there (SharedPrefixBlocks)
    const std::uint32_t full = tokens / m_blockTokens;
    seq.groups.reserve(4);
    if (full > 0)
        addGroup(seq, 0, full, false);
    if (tokens % m_blockTokens != 0) {
        seq.tailGroup = static_cast<int>(seq.groups.size());
        seq.tailBlock = full;
        addGroup(seq, full, 1, false);
    }
    for (int g = 0; g < static_cast<int>(seq.groups.size()); ++g)
        requestOp(request, g, kPrefillCache, ProcessorOp::Store);
}

void CoherentKv::acquireForDecode(std::uint32_t request, std::uint32_t instance, std::uint32_t)
{
    Sequence& seq = m_sequences[request];
    seq.participants.cacheNodes[kDecodeCache] = m_instanceNodes[instance].front();
    const std::vector<std::uint32_t>& replicas = m_placer.place(seq.participants.cacheNodes[kDecodeCache]);
    for (std::size_t i = 0; i < replicas.size(); ++i) {
        seq.participants.cacheNodes[kFirstReplica + i] = replicas[i];
        m_replicaNodesUsed[replicas[i]] = true;
    }
    seq.replicasPlaced = true;
    seq.waiter = Waiter::Read;
    seq.waiting = static_cast<std::uint32_t>(seq.groups.size());
    m_synchronous = true;
    if (m_shared) {
        // Every shared block counts as a wait until it is known to hit: a miss may complete before acquire returns.
        seq.waiting += m_shared->blocks(request);
        seq.waiting -= m_shared->acquire(request, instance);
    }
    for (int g = 0; g < static_cast<int>(seq.groups.size()); ++g) {
        // Prefill's write happens before decode's read: a read issued earlier would race the write
        // permission to the home and read the block before the KV was in it.
        if (!m_driver.idle(seq.groups[g].driver, kPrefillCache))
            seq.groups[g].acquireAfterPrefill = true;
        else
            requestOp(request, g, kDecodeCache, decodeAcquireOp(m_protocol, seq.tailGroup, g));
    }
    // Groups prefill still writes are fetched once that write is performed (onOpDone).
    if (m_caches > kFirstReplica)
        for (int g = 0; g < static_cast<int>(seq.groups.size()); ++g)
            if (!seq.groups[g].acquireAfterPrefill)
                refreshReplicas(request, g, false);
    m_synchronous = false;
    if (seq.waiting == 0) {
        seq.waiter = Waiter::None;
        if (listener())
            listener()->onKvReady(request);
    }
}

bool CoherentKv::beginDecodeStep(std::uint32_t request, std::uint32_t, std::uint32_t tokens)
{
    Sequence& seq = m_sequences[request];
    const std::uint32_t block = (tokens - 1 - seq.sharedTokens) / m_blockTokens; // where the new token goes
    seq.tokens = tokens;
    ++m_staleness.decodeSteps;
    if (seq.steady && block == seq.tailBlock && m_network.now() < seq.leaseExpiry &&
        (!m_shared || m_shared->steady(request, m_network.now()))) {
        // The store hits the tail, as on the last step (nothing has arrived since); the reads hit fresh copies
        // whose leases, if any, still hold.
        Group& tail = seq.groups[seq.tailGroup];
        tail.system.storeHit(kDecodeCache);
        tail.latestAt = m_network.now();
        m_staleness.reads += seq.steadyReads;
        m_staleness.readsByVersionsBehind[0] += seq.steadyReads;
        m_lease.leasedReads += seq.steadyLeasedReads;
        if (m_shared)
            m_shared->countSteadyRead(request);
        return true;
    }
    if (seq.tailGroup < 0 || block != seq.tailBlock) {
        // A merged tail leaves its slot (always the last) free for the new block: reset it in place.
        const int closed = seq.tailGroup;
        const bool merged = closeTail(seq);
        addGroup(seq, block, 1, merged);
        seq.tailGroup = static_cast<int>(seq.groups.size()) - 1;
        seq.tailBlock = block;
        // A closed block is no longer the open tail: an append-only protocol's replicas may read it now.
        if (!merged && closed >= 0 && m_caches > kFirstReplica)
            refreshReplicas(request, closed, false);
    }
    seq.waiter = Waiter::Step;
    seq.waiting = static_cast<std::uint32_t>(seq.groups.size());
    seq.waitStart = m_network.now();
    seq.lastTransfer = 0;
    seq.stepStale = false;
    seq.stepStaleBlocks = 0;
    seq.steadyReads = 0;
    seq.steadyLeasedReads = 0;
    seq.leaseExpiry = kTimeInfinity; // checkLease() and the grants to come set it again
    seq.stepExpired = false;
    m_synchronous = true;
    bool allHits = true;
    if (m_shared) {
        // As in acquireForDecode: every shared block is a wait until it is known to hit.
        const std::uint32_t shared = m_shared->blocks(request);
        seq.waiting += shared;
        const std::uint32_t hits = m_shared->read(request);
        seq.waiting -= hits;
        allHits = hits == shared;
        if (m_shared->readExpired(request)) {
            seq.stepExpired = true;
            ++m_lease.expiredSteps;
        }
    }
    for (int g = 0; g < static_cast<int>(seq.groups.size()); ++g) {
        const bool tail = g == seq.tailGroup;
        if (!tail)
            seq.steadyReads += seq.groups[g].blocks;
        if (!tail && m_lease.ttl >= 0)
            checkLease(request, g);
        allHits &= requestOp(request, g, kDecodeCache, tail ? ProcessorOp::Store : ProcessorOp::Load);
    }
    m_synchronous = false;
    // A stale replica is refreshed by a message still to come, so the next step must look at it again.
    seq.steady = allHits && !seq.stepStale;
    if (seq.waiting == 0) {
        seq.waiter = Waiter::None;
        return true;
    }
    return false;
}

bool CoherentKv::closeTail(Sequence& seq)
{
    if (seq.tailGroup < 0)
        return false;
    // A filled block joins a quiescent group in exactly the same protocol state, so long sequences keep a
    // handful of groups instead of one interpreter per block.
    Group& tail = seq.groups[seq.tailGroup];
    const auto same = [&](const Group& g) {
        if (!g.system.quiescent() || !m_driver.idle(g.driver))
            return false;
        for (int c = 0; c < m_caches; ++c)
            if (g.system.line(c).state != tail.system.line(c).state)
                return false;
        const auto& a = g.system.directory();
        const auto& b = tail.system.directory();
        // Decode's leases expire per group, so blocks granted at different times stay apart.
        return a.state == b.state && a.owner == b.owner && a.sharers == b.sharers && g.leaseAt == tail.leaseAt;
    };
    const bool idle = tail.system.quiescent() && m_driver.idle(tail.driver);
    const int tailGroup = seq.tailGroup;
    seq.tailGroup = -1;
    // The tail is always the last group, so merging it never moves another group.
    for (int g = 0; idle && tailGroup == static_cast<int>(seq.groups.size()) - 1 && g < tailGroup; ++g) {
        if (same(seq.groups[g])) {
            Group& into = seq.groups[g];
            into.oneRun = into.oneRun && tail.oneRun && tail.firstBlock == into.firstBlock + into.blocks;
            into.blocks += tail.blocks;
            return true;
        }
    }
    return false;
}

bool CoherentKv::requestOp(std::uint32_t request, int group, std::uint8_t cache, ProcessorOp op)
{
    Group& g = m_sequences[request].groups[group];
    // Decode steps are almost all hits: the table says so (tryHit) and they skip the interpreter.
    if (m_driver.idle(g.driver, cache) && g.system.tryHit(cache, op)) {
        if (op == ProcessorOp::Store) {
            g.latestAt = m_network.now();
        } else if (g.system.tooStale(g.system.line(cache).value)) {
            fail(request, g, "a load hit returned a stale version");
        } else if (cache == kDecodeCache && readMustWait(request, g, g.system.line(cache).value)) {
            // Beyond the reader's bound: the load waits for the update already on its way to this replica.
            m_driver.hold({request, group}, cache, DriverOp{op});
            return false;
        }
        if (cache == kDecodeCache && m_sequences[request].waiter != Waiter::None)
            opDone(request);
        return true;
    }
    requestMiss(request, group, cache, op);
    return false;
}

void CoherentKv::requestMiss(std::uint32_t request, int group, std::uint8_t cache, ProcessorOp op)
{
    m_driver.request({request, group}, cache, DriverOp{op});
}

inline void CoherentKv::onStep(Key key, Ref r, const coherence::CheckedStep& checked)
{
    const StepResult& step = checked.result;
    Group& g = *r.group;
    if (const auto v = coherence::checkAfterStep(g.system, step); v != coherence::Violation::None)
        fail(key.request, g, coherence::describeViolation(v, g.system, &step));
    if (step.stored)
        g.latestAt = m_network.now();
    if (!step.atDirectory)
        m_nodeBlocks.change(m_network.now(), r.seq->participants.cacheNodes[step.actor], step.from, step.to, g.blocks);
    if (m_lease.ttl >= 0 && step.actor == kDecodeCache && !step.atDirectory && step.from != step.to)
        trackLease(*r.seq, g, step);
    if (m_caches > kFirstReplica && step.sentCount > 0)
        countReplicaMessages(*r.seq, g, step);
}

void CoherentKv::trackLease(Sequence& seq, Group& group, const StepResult& step)
{
    switch (coherence::leaseChange(m_protocol, step.from, step.to)) {
    case coherence::LeaseChange::Granted:
        group.leaseAt = m_network.now();
        m_lease.grants += group.blocks;
        seq.leaseExpiry = std::min(seq.leaseExpiry, group.leaseAt + m_lease.ttl);
        break;
    case coherence::LeaseChange::Ended:
        group.leaseAt = -1;
        break;
    case coherence::LeaseChange::None:
        break;
    }
}

void CoherentKv::checkLease(std::uint32_t request, int group)
{
    Sequence& seq = m_sequences[request];
    Group& g = seq.groups[group];
    if (!g.system.leased(kDecodeCache) || !m_driver.idle(g.driver, kDecodeCache))
        return;
    const SimTime expiry = g.leaseAt + m_lease.ttl;
    if (m_network.now() < expiry) {
        m_lease.leasedReads += g.blocks;
        seq.steadyLeasedReads += g.blocks;
        seq.leaseExpiry = std::min(seq.leaseExpiry, expiry);
        return;
    }
    if (m_lease.refetch) {
        // The copy goes as the table releases it (TableBuilder checks a leased state's Evict sends nothing), so
        // the read that follows misses and asks the home for a new lease.
        m_lease.refetches += g.blocks;
        onStep({request, group}, {&seq, &g}, {g.system.issue(kDecodeCache, ProcessorOp::Evict, 0)});
        return;
    }
    // Trust: the reader keeps using a copy the home may have reclaimed. Every later step looks again.
    m_lease.leasedReads += g.blocks;
    m_lease.expiredReads += g.blocks;
    seq.leaseExpiry = m_network.now();
    if (!seq.stepExpired) {
        seq.stepExpired = true;
        ++m_lease.expiredSteps;
    }
}

void CoherentKv::countReplicaMessages(const Sequence& seq, const Group& g, const StepResult& step)
{
    const auto replica = [](std::uint8_t controller) {
        return controller != coherence::kDirNode && controller >= kFirstReplica;
    };
    for (int i = step.firstSent; i < step.firstSent + step.sentCount; ++i) {
        const coherence::Message& m = g.system.message(i);
        if (!replica(m.src) && !replica(m.dst))
            continue;
        m_replication.messages += g.blocks;
        m_replication.dataMessages += m.hasData ? g.blocks : 0;
        if (seq.participants.nodeOf(m.src) == seq.participants.nodeOf(m.dst))
            continue;
        (m.hasData ? m_replication.dataBytes : m_replication.controlBytes) +=
            (m.hasData ? m_blockBytes : static_cast<double>(m_spec.controlBytes)) * g.blocks;
    }
}

void CoherentKv::refreshReplicas(std::uint32_t request, int group, bool pumping)
{
    Sequence& seq = m_sequences[request];
    if (!seq.replicasPlaced || seq.released)
        return;
    // Under an append-only protocol a read seals the block, and decode still appends to the open tail.
    if (m_protocol.acquireTailForWrite && group == seq.tailGroup)
        return;
    for (std::uint8_t c = kFirstReplica; c < m_caches; ++c) {
        Group& g = seq.groups[group];
        if (!m_driver.idle(g.driver, c) ||
            m_protocol.cache.states[g.system.line(c).state].permission != coherence::Permission::None)
            continue;
        const auto bit = static_cast<std::uint16_t>(1u << c);
        (g.replicasFetched & bit ? m_replication.refetches : m_replication.fetches) += g.blocks;
        g.replicasFetched |= bit;
        if (pumping)
            m_driver.enqueue({request, group}, c, DriverOp{ProcessorOp::Load});
        else
            m_driver.request({request, group}, c, DriverOp{ProcessorOp::Load});
    }
}

bool CoherentKv::mayComplete(Key key, Ref r, std::uint8_t cache, const DriverOp& op, const StepResult& step)
{
    // A load beyond the reader's bound waits for the update on its way (mayCompleteHeld).
    return !(op.op == ProcessorOp::Load && cache == kDecodeCache && readMustWait(key.request, *r.group, step.value));
}

bool CoherentKv::mayCompleteHeld(Key key, Ref r, std::uint8_t cache)
{
    // A waiting load completes once the update has brought its replica within the bound.
    Group& g = *r.group;
    const coherence::CacheLine& line = g.system.line(cache);
    if (!line.dataValid)
        return false;
    const int behind = versionsBehind(g.system, line.value);
    if (beyondBound(g, behind))
        return false;
    countRead(key.request, g, behind);
    return true;
}

void CoherentKv::onOpDone(Key key, std::uint8_t cache, const DriverOp& op, const StepResult*)
{
    Sequence& seq = m_sequences[key.request];
    Group& g = seq.groups[key.group];
    if (cache == kPrefillCache && g.acquireAfterPrefill) {
        // The pump running now issues it next.
        g.acquireAfterPrefill = false;
        m_driver.enqueue(key, kDecodeCache, DriverOp{decodeAcquireOp(m_protocol, seq.tailGroup, key.group)});
    }
    // A performed write may have taken the replicas' copies (the table's invalidations): they load it again.
    if (op.op == ProcessorOp::Store && m_caches > kFirstReplica)
        refreshReplicas(key.request, key.group, true);
    if (cache == kDecodeCache && seq.waiter != Waiter::None)
        opDone(key.request);
}

void CoherentKv::opDone(std::uint32_t request)
{
    Sequence& seq = m_sequences[request];
    if (seq.waiting == 0 || --seq.waiting > 0)
        return;
    const Waiter waiter = seq.waiter;
    seq.waiter = Waiter::None;
    // Work that completes inside acquireForDecode() or beginDecodeStep() is reported by those calls.
    if (waiter == Waiter::Step && m_delivery.dataToDecode && m_delivery.request == request)
        seq.lastTransfer = m_delivery.end - std::max(m_delivery.start, seq.waitStart);
    if (m_synchronous || !listener())
        return;
    if (waiter == Waiter::Read)
        listener()->onKvReady(request);
    else
        listener()->onStepReady(request);
}

void CoherentKv::onFlowDelivered(const FlowInfo& flow)
{
    const auto request = static_cast<std::uint32_t>(flow.tag >> 32);
    const int group = static_cast<int>((flow.tag >> 16) & 0xffff);
    const auto tag = static_cast<std::uint16_t>(flow.tag & 0xffff);
    m_sequences[request].steady = false;
    if (const int i = m_driver.arrive({request, group}, tag); i >= 0) {
        const Group& g = m_sequences[request].groups[group];
        const coherence::Message& m = g.system.message(i);
        m_delivery = Delivery{request, m.hasData && m.dst == kDecodeCache, flow.start, flow.delivered};
        if (flow.bytes > 0) {
            MessageRecord record = recordOf(flow, m_network.routing());
            record.request = request;
            record.firstBlock = g.firstBlock;
            record.blockCount = g.blocks;
            g.driver.arrivals.origin(i).stamp(record);
            m_recorder.add(record);
        }
    }
    m_driver.pump({request, group});
    m_delivery = Delivery{};
    freeIfIdle(request);
}

void CoherentKv::onSharedRead(std::uint32_t sequence, const FlowInfo* transfer)
{
    // The block's data that ended the wait was wire time, the rest of it coherence stall (as for own blocks).
    if (transfer)
        m_delivery = Delivery{sequence, true, transfer->start, transfer->delivered};
    opDone(sequence);
    m_delivery = Delivery{};
}

void CoherentKv::release(std::uint32_t request)
{
    // A finished sequence's KV is dead: its copies are dropped without writebacks. Shared blocks stay while other
    // sequences at the same instance use them.
    if (m_shared)
        m_shared->release(request);
    m_sequences[request].released = true;
    freeIfIdle(request);
}

void CoherentKv::freeIfQuiet(std::uint32_t request)
{
    Sequence& seq = m_sequences[request];
    for (const auto& g : seq.groups)
        if (g.system.messageCount() > 0)
            return;
    // The copies go with the sequence.
    const std::uint8_t gone = m_protocol.cache.initial;
    // No op is queued either: the sequence's last step is done and every message is in (queued ops would leak
    // the driver's pool nodes). An abandoned sequence may still have ops queued: it goes once they are done.
    if (!std::all_of(seq.groups.begin(), seq.groups.end(), [&](const Group& g) { return m_driver.idle(g.driver); }))
        return;
    const std::uint8_t caches = seq.replicasPlaced ? m_caches : kFirstReplica;
    for (const auto& g : seq.groups)
        for (std::uint8_t c = 0; c < caches; ++c)
            m_nodeBlocks.change(m_network.now(), seq.participants.cacheNodes[c], g.system.line(c).state, gone,
                                g.blocks);
    seq.groups.clear();
    seq.groups.shrink_to_fit();
}

std::uint32_t CoherentKv::addSequence()
{
    m_sequences.emplace_back();
    return static_cast<std::uint32_t>(m_sequences.size() - 1);
}

void CoherentKv::abandon(std::uint32_t sequence)
{
    // Its ops and messages finish among its (dead or living) participants, but nobody waits for them.
    Sequence& seq = m_sequences[sequence];
    seq.waiter = Waiter::None;
    seq.waiting = 0;
    release(sequence);
}

std::uint32_t CoherentKv::validTokens(const Sequence& seq, std::uint8_t cache, std::uint32_t tokens) const
{
    // A group's smallest block is the one it was made for (blocks join groups as they fill), so every full block
    // before the first block of the earliest stale group is current at the cache.
    std::uint32_t firstStale = UINT32_MAX;
    std::uint32_t tail = 0; // tokens of the open tail block the copy holds
    for (std::size_t g = 0; g < seq.groups.size(); ++g) {
        const Group& group = seq.groups[g];
        const coherence::CacheLine& line = group.system.line(cache);
        const bool readable =
            line.dataValid && m_protocol.cache.states[line.state].permission != coherence::Permission::None;
        const int behind = readable ? versionsBehind(group.system, line.value) : 0;
        if (static_cast<int>(g) == seq.tailGroup) {
            // Each append to the open tail is one version: a copy `behind` versions old lacks that many tokens.
            const std::uint32_t written = tokens - std::min(tokens, seq.tailBlock * m_blockTokens);
            if (readable)
                tail = written - std::min(written, static_cast<std::uint32_t>(behind));
        } else if (!readable || behind > 0) {
            firstStale = std::min(firstStale, group.firstBlock);
        }
    }
    if (seq.tailGroup < 0)
        return firstStale == UINT32_MAX ? tokens : std::min(tokens, firstStale * m_blockTokens);
    if (firstStale < seq.tailBlock)
        return firstStale * m_blockTokens;
    return std::min(tokens, seq.tailBlock * m_blockTokens) + tail;
}

SurvivingCopy CoherentKv::survivingCopy(std::uint32_t sequence, std::uint32_t tokens,
                                        const std::vector<std::uint8_t>& down) const
{
    const Sequence& seq = m_sequences[sequence];
    SurvivingCopy best;
    if (seq.groups.empty())
        return best;
    // The decode cache's node is the one that failed (or its sequence would not be recovering); the prefill
    // cache and the replicas may still hold it.
    const std::uint8_t caches = seq.replicasPlaced ? m_caches : kDecodeCache;
    for (std::uint8_t c = 0; c < caches; ++c) {
        const std::uint32_t node = seq.participants.cacheNodes[c];
        if (c == kDecodeCache || down[node] || (seq.lostCaches >> c & 1u))
            continue;
        const std::uint32_t held = validTokens(seq, c, tokens);
        if (held > best.tokens)
            best = {node, held};
    }
    return best;
}

void CoherentKv::nodeLost(std::uint32_t node)
{
    for (Sequence& seq : m_sequences) {
        if (seq.groups.empty())
            continue;
        const std::uint8_t caches = seq.replicasPlaced ? m_caches : kDecodeCache;
        for (std::uint8_t c = 0; c < caches; ++c)
            if (seq.participants.cacheNodes[c] == node)
                seq.lostCaches |= static_cast<std::uint16_t>(1u << c);
    }
}

KvStats CoherentKv::stats() const
{
    KvStats s;
    s.transfers = m_driver.transfers();
    s.bytes = m_driver.crossBytes();
    s.protocol = m_protocol.name;
    s.kinds = m_driver.kinds();
    s.upgrades = m_driver.upgrades();
    s.staleness = m_staleness;
    s.staleAgesUs = m_staleAgesUs;
    s.lease = m_lease;
    s.replication = m_replication;
    if (m_shared) {
        // The shared blocks are the KV path's too: their data and kinds count with its own.
        const SharedPrefixSummary shared = m_shared->summary();
        s.transfers += shared.transfers * (shared.blockTokens / m_blockTokens);
        s.bytes += shared.bytes;
        s.kinds.insert(s.kinds.end(), m_shared->kinds().begin(), m_shared->kinds().end());
        // Decode's leased reads of shared copies are decode's leased reads too.
        const LeaseSummary& leases = m_shared->leases();
        s.lease.grants += leases.grants;
        s.lease.leasedReads += leases.leasedReads;
        s.lease.expiredReads += leases.expiredReads;
        s.lease.refetches += leases.refetches;
        s.sharedPrefix = shared;
    }
    for (std::size_t n = 0; n < m_replicaNodesUsed.size(); ++n)
        if (m_replicaNodesUsed[n])
            s.replication.nodes.push_back(m_nodeIds[n]);
    return s;
}

int CoherentKv::versionsBehind(const coherence::BlockSystem& system, coherence::Value value) const
{
    if (m_protocol.consistency == coherence::Consistency::Strong)
        return value == system.latest() ? 0 : 1;
    // Bounded staleness numbers versions mod bound + 2 (see Protocol::modelValues).
    const int mod = m_protocol.modelValues();
    return (system.latest() - value + mod) % mod;
}

bool CoherentKv::beyondBound(const Group& group, int behind) const
{
    if (behind == 0)
        return false;
    return behind > m_maxVersions || (m_maxAge >= 0 && m_network.now() - group.latestAt > m_maxAge);
}

bool CoherentKv::readMustWait(std::uint32_t request, Group& group, coherence::Value value)
{
    const int behind = versionsBehind(group.system, value);
    if (beyondBound(group, behind)) {
        m_staleness.readerWaits += group.blocks;
        return true;
    }
    countRead(request, group, behind);
    return false;
}

void CoherentKv::countRead(std::uint32_t request, const Group& group, int versionsBehindLatest)
{
    const auto behind = static_cast<std::size_t>(versionsBehindLatest);
    m_staleness.reads += group.blocks;
    m_staleness.readsByVersionsBehind[behind] += group.blocks;
    if (behind == 0)
        return;
    Sequence& seq = m_sequences[request];
    m_staleness.staleReads += group.blocks;
    seq.staleReads += group.blocks;
    // Exact for one version behind, the most lazy-causal allows: the read version was superseded by the latest.
    m_staleAgesUs.push_back(static_cast<double>(m_network.now() - group.latestAt) / 1e3);
    if (seq.waiter == Waiter::Step)
        seq.stepStaleBlocks += group.blocks;
    if (seq.waiter == Waiter::Step && !seq.stepStale) {
        seq.stepStale = true;
        ++seq.staleSteps;
        ++m_staleness.staleSteps;
    }
}

void CoherentKv::checkFinished() const
{
    if (m_shared)
        m_shared->checkFinished();
    for (std::uint32_t r = 0; r < m_sequences.size(); ++r) {
        const Sequence& seq = m_sequences[r];
        if (seq.waiter != Waiter::None)
            fail(r, seq.groups.front(),
                 "the event queue is empty but the request still waits on the protocol (deadlock)");
    }
}

void CoherentKv::fail(std::uint32_t request, const Group& group, const std::string& what) const
{
    throw std::runtime_error(fmt::format("coherence invariant violated under {} for request {}: {} [{}]",
                                         m_protocol.name, request, what, describeStates(group.system)));
}

} // namespace coh::core
