#include "core/serving/kv_tiers.h"

#include "core/coherence/protocol_registry.h"

#include <algorithm>

namespace coh::core {

namespace {

std::vector<std::string> occupancyStates(const std::vector<Tier>& tiers)
{
    std::vector<std::string> states{"none"};
    for (Tier tier : tiers)
        states.emplace_back(toString(tier));
    return states;
}

std::vector<std::uint8_t> occupancyCounted(std::size_t tiers)
{
    std::vector<std::uint8_t> counted(tiers + 1, 1);
    counted[0] = 0;
    return counted;
}

} // namespace

KvTiers::KvTiers(const Scenario& scenario, const Simulator& sim, Transport& network, EventRecorder& recorder,
                 std::span<const InstanceState> instances, std::uint8_t firstKind, KvTierListener& listener,
                 std::size_t requests)
    : m_sim(sim)
    , m_instances(instances)
    , m_listener(listener)
    , m_blockTokens(scenario.serving.blockTokens)
    , m_write(scenario.serving.kvTiers.write)
    , m_eviction(scenario.serving.kvTiers.eviction)
    , m_copies(requests)
    , m_occupancy(occupancyStates(scenario.serving.kvTiers.tiers),
                  occupancyCounted(scenario.serving.kvTiers.tiers.size()), 1, scenario.metrics.linkInterval)
    , m_nodeOccupancy(occupancyStates(scenario.serving.kvTiers.tiers),
                      occupancyCounted(scenario.serving.kvTiers.tiers.size()), scenario.topology.nodes.size(),
                      scenario.metrics.linkInterval)
{
    const Topology& topo = scenario.topology;
    const Routing& routing = network.routing();
    const double blockBytes = static_cast<double>(scenario.model.kvBytesPerToken()) * scenario.serving.blockTokens;
    std::uint8_t kind = firstKind;
    for (Tier tier : scenario.serving.kvTiers.tiers) {
        Level& level = m_levels.emplace_back();
        level.tier = tier;
        const auto named = scenario.coherence.tiers.find(tier);
        level.protocol = named != scenario.coherence.tiers.end() ? named->second : "direct";
        // Blocks each node of this tier can hold; the prefix pool keeps its part of its tier.
        std::vector<std::uint64_t> nodeBlocks(topo.nodes.size(), 0);
        for (std::uint32_t n = 0; n < topo.nodes.size(); ++n) {
            const MemoryTier* memory = topo.nodes[n].tier(tier);
            if (!memory)
                continue;
            double bytes = memory->capacityBytes;
            const PrefixPoolSpec& pool = scenario.serving.prefixPool;
            if (pool.enabled && pool.tier == tier && pool.node == topo.nodes[n].id)
                bytes -= pool.capacityBytes;
            nodeBlocks[n] = bytes > 0 ? static_cast<std::uint64_t>(bytes / blockBytes) : 0;
        }
        // Each decode instance uses the nearest node of the tier (validation made sure it reaches one).
        level.nodeOf.assign(instances.size(), 0);
        level.shareOf.assign(instances.size(), 0);
        level.usedOf.assign(instances.size(), 0);
        std::vector<std::uint32_t> users(topo.nodes.size(), 0);
        for (std::uint32_t i = 0; i < instances.size(); ++i) {
            if (instances[i].role != InstanceRole::Decode)
                continue;
            const std::uint32_t from = instances[i].nodes.front();
            std::uint32_t best = from;
            SimTime bestLatency = kTimeInfinity;
            for (std::uint32_t n = 0; n < topo.nodes.size(); ++n) {
                if (nodeBlocks[n] == 0)
                    continue;
                const Route& route = routing.route(from, n);
                if ((route.reachable || n == from) && route.latency < bestLatency) {
                    best = n;
                    bestLatency = route.latency;
                }
            }
            level.nodeOf[i] = best;
            if (nodeBlocks[best] > 0)
                ++users[best];
        }
        // An even share of the node, or less where the scenario caps what each decode instance may keep there.
        const auto cap = scenario.serving.kvTiers.capacityBytes.find(tier);
        for (std::uint32_t i = 0; i < instances.size(); ++i) {
            if (instances[i].role != InstanceRole::Decode || users[level.nodeOf[i]] == 0)
                continue;
            level.shareOf[i] = nodeBlocks[level.nodeOf[i]] / users[level.nodeOf[i]];
            if (cap != scenario.serving.kvTiers.capacityBytes.end())
                level.shareOf[i] = std::min(level.shareOf[i], static_cast<std::uint64_t>(cap->second / blockBytes));
        }
        for (std::uint32_t n = 0; n < topo.nodes.size(); ++n)
            if (users[n] > 0)
                level.nodes.push_back(topo.nodes[n].id);
        for (std::uint32_t i = 0; i < instances.size(); ++i)
            level.capacityBlocks += level.shareOf[i]; // what the decode instances may use, summed
        const coherence::Protocol* protocol =
            level.protocol == "direct" ? nullptr : &coherence::findProtocol(level.protocol, "/coherence/tiers");
        level.domain = std::make_unique<KvTierDomain>(protocol, toString(tier), network, recorder, blockBytes,
                                                      scenario.coherence.controlBytes, kind, *this);
        kind = static_cast<std::uint8_t>(kind + level.domain->kinds().size());
    }
}

KvTiers::~KvTiers() = default;

std::uint64_t KvTiers::blocksBelow(std::uint32_t instance) const
{
    std::uint64_t blocks = 0;
    for (const Level& level : m_levels)
        blocks += level.shareOf[instance];
    return blocks;
}

int KvTiers::levelWithRoom(std::uint32_t instance, std::uint32_t blocks) const
{
    for (std::size_t l = 0; l < m_levels.size(); ++l)
        if (m_levels[l].usedOf[instance] + blocks <= m_levels[l].shareOf[instance])
            return static_cast<int>(l);
    return -1;
}

TierMoveRows KvTiers::rowsOf(std::uint32_t firstBlock, std::uint32_t blocks, std::uint32_t tokens) const
{
    const std::uint64_t first = std::uint64_t{firstBlock} * m_blockTokens;
    if (tokens <= first)
        return {};
    return {static_cast<std::uint32_t>(first),
            static_cast<std::uint32_t>(std::min<std::uint64_t>(std::uint64_t{blocks} * m_blockTokens, tokens - first))};
}

void KvTiers::down(std::uint32_t request, KvTierDomain::Job job, std::uint32_t firstBlock, std::uint32_t blocks,
                   std::uint32_t tokens)
{
    Copy& copy = m_copies[request];
    Level& level = m_levels[copy.level];
    level.blocksDown += blocks;
    if (job == KvTierDomain::WriteThrough)
        ++copy.throughInFlight;
    level.domain->move(request, job, blocks, m_instances[copy.instance].nodes.front(), level.nodeOf[copy.instance],
                       rowsOf(firstBlock, blocks, tokens));
}

void KvTiers::onKvReady(std::uint32_t request, std::uint32_t instance, std::uint32_t fullBlocks,
                        std::uint32_t totalBlocks)
{
    if (m_write != TierWrite::WriteThrough)
        return;
    // The copy takes room for the whole sequence now, so its offload never has to look for any.
    const int l = levelWithRoom(instance, totalBlocks);
    if (l < 0)
        return; // no room for a copy: this sequence is written back when offloaded
    Copy& copy = m_copies[request];
    copy.level = static_cast<std::int8_t>(l);
    copy.instance = instance;
    copy.reserved = totalBlocks;
    copy.throughWrite = true;
    m_levels[l].usedOf[instance] += totalBlocks;
    copy.clean = copy.highest = fullBlocks;
    down(request, KvTierDomain::WriteThrough, 0, fullBlocks, fullBlocks * m_blockTokens);
}

void KvTiers::onBlockFilled(std::uint32_t request, std::uint32_t, std::uint32_t fullBlocks)
{
    Copy& copy = m_copies[request];
    if (!copy.throughWrite || fullBlocks <= copy.clean)
        return;
    const std::uint32_t fresh = fullBlocks - copy.clean, first = copy.clean;
    copy.clean = fullBlocks;
    copy.highest = std::max(copy.highest, fullBlocks);
    down(request, KvTierDomain::WriteThrough, first, fresh, fullBlocks * m_blockTokens);
}

bool KvTiers::offload(std::uint32_t request, std::uint32_t instance, std::uint32_t blocks, std::uint32_t tokens)
{
    Copy& copy = m_copies[request];
    if (copy.level < 0) {
        const int l = levelWithRoom(instance, blocks);
        if (l < 0)
            return false;
        copy.level = static_cast<std::int8_t>(l);
        copy.instance = instance;
        copy.reserved = blocks;
        m_levels[l].usedOf[instance] += blocks;
    }
    Level& level = m_levels[copy.level];
    ++level.offloads;
    copy.offloading = true;
    copy.offloadWritten = false;
    copy.offloadBlocks = blocks;
    copy.offloadTokens = tokens;
    copy.highest = std::max(copy.highest, blocks);
    // Write-back: everything is stale; write-through: all but the blocks written as they filled (the open tail).
    const std::uint32_t clean = std::min(copy.clean, blocks), dirty = blocks - clean;
    copy.clean = blocks;
    if (dirty == 0) {
        copy.offloadWritten = true;
        finishOffloadIfWritten(request);
        return true;
    }
    down(request, KvTierDomain::Offload, clean, dirty, tokens);
    return true;
}

void KvTiers::fetch(std::uint32_t request, std::uint32_t instance)
{
    Copy& copy = m_copies[request];
    Level& level = m_levels[copy.level];
    ++level.fetches;
    level.blocksUp += copy.offloadBlocks;
    level.domain->move(request, KvTierDomain::Fetch, copy.offloadBlocks, m_instances[instance].nodes.front(),
                       level.nodeOf[instance], rowsOf(0, copy.offloadBlocks, copy.offloadTokens));
}

void KvTiers::setBlocks(Copy& copy, std::uint32_t blocks)
{
    const auto state = static_cast<std::uint8_t>(copy.level + 1);
    const std::uint32_t node = m_levels[copy.level].nodeOf[copy.instance];
    if (blocks > copy.blocks) {
        m_occupancy.change(m_sim.now(), 0, 0, state, blocks - copy.blocks);
        m_nodeOccupancy.change(m_sim.now(), node, 0, state, blocks - copy.blocks);
    } else if (blocks < copy.blocks) {
        m_occupancy.change(m_sim.now(), 0, state, 0, copy.blocks - blocks);
        m_nodeOccupancy.change(m_sim.now(), node, state, 0, copy.blocks - blocks);
    }
    copy.blocks = blocks;
}

void KvTiers::drop(Copy& copy)
{
    if (copy.level < 0)
        return;
    setBlocks(copy, 0);
    m_levels[copy.level].usedOf[copy.instance] -= copy.reserved;
    copy = Copy{};
}

void KvTiers::onMoveDone(std::uint32_t request, std::uint8_t job, std::uint32_t blocks)
{
    Copy& copy = m_copies[request];
    if (copy.abandoned)
        return;
    switch (job) {
    case KvTierDomain::WriteThrough:
        if (copy.level < 0 || copy.throughInFlight == 0)
            return; // the sequence finished and its copy went while this write was on its way
        --copy.throughInFlight;
        setBlocks(copy, std::min(copy.blocks + blocks, copy.highest));
        finishOffloadIfWritten(request);
        return;
    case KvTierDomain::Offload:
        copy.offloadWritten = true;
        finishOffloadIfWritten(request);
        return;
    case KvTierDomain::Fetch:
        // Write-back keeps no copy of a sequence that is in HBM: its room goes to the next offload.
        if (!copy.throughWrite) {
            drop(copy);
        } else {
            copy.clean = std::min(copy.clean, copy.offloadBlocks - 1); // the open tail changes from here on
        }
        m_listener.onFetched(request);
        return;
    default:
        return;
    }
}

void KvTiers::finishOffloadIfWritten(std::uint32_t request)
{
    Copy& copy = m_copies[request];
    if (!copy.offloading || !copy.offloadWritten || copy.throughInFlight > 0)
        return;
    copy.offloading = false;
    setBlocks(copy, std::max(copy.blocks, copy.offloadBlocks));
    m_listener.onOffloaded(request);
}

void KvTiers::release(std::uint32_t request)
{
    drop(m_copies[request]);
}

void KvTiers::abandon(std::uint32_t sequence)
{
    drop(m_copies[sequence]);
    m_copies[sequence].abandoned = true;
}

void KvTiers::checkFinished() const
{
    for (const Level& level : m_levels)
        level.domain->checkFinished();
}

std::vector<MessageKindStats> KvTiers::kinds() const
{
    std::vector<MessageKindStats> kinds;
    for (const Level& level : m_levels) {
        auto k = level.domain->kinds();
        kinds.insert(kinds.end(), k.begin(), k.end());
    }
    return kinds;
}

KvTiersSummary KvTiers::summary(SimTime end) const
{
    KvTiersSummary s;
    s.enabled = true;
    s.eviction = toString(m_eviction);
    s.write = toString(m_write);
    s.preemptions = m_preemptions;
    s.offHbmMs = toMilliseconds(m_offHbm);
    const auto series = m_occupancy.series(end);
    for (const Level& level : m_levels) {
        KvTierUsage& u = s.tiers.emplace_back();
        u.tier = toString(level.tier);
        u.protocol = level.protocol;
        u.nodes = level.nodes;
        u.capacityBlocks = level.capacityBlocks;
        u.offloads = level.offloads;
        u.fetches = level.fetches;
        u.blocksDown = level.blocksDown;
        u.blocksUp = level.blocksUp;
        u.messages = level.domain->messages();
        u.bytesDown = level.domain->bytesDown();
        u.bytesUp = level.domain->bytesUp();
        for (const auto& one : series)
            if (one.state == u.tier) {
                u.peakBlocks = one.peakBlocks;
                u.occupancy = one.steps;
            }
    }
    return s;
}

} // namespace coh::core
