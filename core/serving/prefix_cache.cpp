#include "core/serving/prefix_cache.h"

#include "core/coherence/protocol_registry.h"

#include <algorithm>

namespace coh::core {

namespace {

// A plain copy's tag: whether it is a store, the prefill instance a load goes to, and the request.
constexpr std::uint64_t kStoreFlow = std::uint64_t{1} << 63;

std::uint64_t tagOf(bool store, std::uint32_t instance, std::uint32_t request)
{
    return (store ? kStoreFlow : 0) | (std::uint64_t{instance} << 32) | request;
}

} // namespace

std::string prefixPoolProtocol(const Scenario& scenario)
{
    const auto tier = scenario.coherence.tiers.find(scenario.serving.prefixPool.tier);
    return tier != scenario.coherence.tiers.end() ? tier->second : scenario.coherence.prefill;
}

PrefixCache::PrefixCache(const Scenario& scenario, const Workload& workload, Transport& network,
                         EventRecorder& recorder, PrefixLoadListener& listener, std::uint8_t firstKind,
                         const std::vector<std::pair<std::uint32_t, std::uint32_t>>& prefillNodes)
    : m_workload(workload)
    , m_network(network)
    , m_recorder(recorder)
    , m_listener(listener)
    , m_firstKind(firstKind)
    , m_blockTokens(scenario.serving.prefixPool.blockTokens)
    , m_bytesPerToken(static_cast<double>(scenario.model.kvBytesPerToken()))
    , m_pool(static_cast<std::uint64_t>(scenario.serving.prefixPool.capacityBytes /
                                        (m_bytesPerToken * scenario.serving.prefixPool.blockTokens)))
    , m_hitBlocks(workload.requests.size(), 0)
{
    m_poolNode = scenario.topology.nodeIndex(scenario.serving.prefixPool.node).value_or(0);
    m_kinds.push_back({"Prefix-Load", true, 0, 0, "data"});
    m_kinds.push_back({"Prefix-Store", true, 0, 0, "data"});
    m_summary.enabled = true;
    m_summary.capacityBlocks =
        static_cast<std::uint64_t>(scenario.serving.prefixPool.capacityBytes / (m_bytesPerToken * m_blockTokens));

    const std::string protocol = prefixPoolProtocol(scenario);
    m_summary.protocol = protocol;
    if (protocol == "direct")
        return;
    std::vector<std::uint32_t> cacheNodes;
    for (const auto& [instance, node] : prefillNodes) {
        if (m_cacheOf.size() <= instance)
            m_cacheOf.resize(instance + 1, -1);
        m_cacheOf[instance] = static_cast<std::int16_t>(cacheNodes.size());
        cacheNodes.push_back(node);
    }
    m_blocksLoading.assign(workload.requests.size(), 0);
    m_loadInstance.assign(workload.requests.size(), 0);
    m_coherence = std::make_unique<PoolCoherence>(coherence::findProtocol(protocol, "/coherence/tiers"), network,
                                                  recorder, std::move(cacheNodes), m_poolNode,
                                                  m_bytesPerToken * m_blockTokens, scenario.coherence.controlBytes,
                                                  static_cast<std::uint8_t>(firstKind + m_kinds.size()), *this);
}

std::span<const std::uint32_t> PrefixCache::hashesOf(std::uint32_t request) const
{
    const Request& r = m_workload.requests[request];
    return std::span<const std::uint32_t>(m_workload.prefixHashes).subspan(r.prefixOffset, r.prefixCount);
}

std::uint32_t PrefixCache::startLoad(std::uint32_t request, std::uint32_t instance, std::uint32_t node)
{
    const std::uint32_t prompt = m_workload.requests[request].promptTokens;
    m_summary.promptTokens += prompt;
    const std::uint32_t blocks = m_pool.leadingHits(hashesOf(request));
    m_hitBlocks[request] = blocks;
    const auto tokens = static_cast<std::uint32_t>(
        std::min<std::uint64_t>(std::uint64_t{blocks} * m_blockTokens, prompt > 0 ? prompt - 1 : 0));
    if (tokens == 0)
        return 0;
    const double bytes = tokens * m_bytesPerToken;
    m_summary.hitTokens += tokens;
    m_summary.loadBytes += bytes;
    if (m_coherence) {
        // Block by block under the tier's protocol; the batch waits for the last one.
        const std::uint32_t loads = (tokens + m_blockTokens - 1) / m_blockTokens;
        m_blocksLoading[request] = loads;
        m_loadInstance[request] = instance;
        const auto hashes = hashesOf(request);
        for (std::uint32_t i = 0; i < loads; ++i)
            m_coherence->load(hashes[i], static_cast<std::uint8_t>(m_cacheOf[instance]), request);
        return tokens;
    }
    m_kinds[0].count += 1;
    m_kinds[0].bytes += bytes;
    m_network.send(m_network.routing().routeId(m_poolNode, node), node == m_poolNode ? 0.0 : bytes, *this,
                   tagOf(false, instance, request));
    return tokens;
}

void PrefixCache::store(std::uint32_t request, std::uint32_t instance, std::uint32_t node)
{
    const auto hashes = hashesOf(request);
    const std::uint32_t fresh = static_cast<std::uint32_t>(hashes.size()) - m_hitBlocks[request];
    // The blocks after the hits, the last one as long as what is left of the prompt.
    const std::uint64_t from = std::uint64_t{m_hitBlocks[request]} * m_blockTokens;
    const std::uint64_t prompt = m_workload.requests[request].promptTokens;
    if (fresh == 0 || from >= prompt)
        return;
    const double bytes =
        static_cast<double>(std::min<std::uint64_t>(prompt - from, std::uint64_t{fresh} * m_blockTokens)) *
        m_bytesPerToken;
    m_summary.storeBytes += bytes;
    if (m_coherence) {
        for (std::size_t i = m_hitBlocks[request]; i < hashes.size(); ++i)
            m_coherence->store(hashes[i], static_cast<std::uint8_t>(m_cacheOf[instance]), request);
        return;
    }
    m_kinds[1].count += 1;
    m_kinds[1].bytes += bytes;
    m_network.send(m_network.routing().routeId(node, m_poolNode), node == m_poolNode ? 0.0 : bytes, *this,
                   tagOf(true, 0, request));
}

void PrefixCache::onFlowDelivered(const FlowInfo& flow)
{
    const bool isStore = flow.tag & kStoreFlow;
    const auto request = static_cast<std::uint32_t>(flow.tag & 0xffffffffu);
    if (flow.bytes > 0) {
        MessageRecord m = recordOf(flow, m_network.routing());
        m.kind = static_cast<std::uint8_t>(m_firstKind + (isStore ? 1 : 0));
        m.request = request;
        m.blockCount = static_cast<std::uint32_t>(flow.bytes / m_bytesPerToken + m_blockTokens - 1) / m_blockTokens;
        m_recorder.add(m);
    }
    if (!isStore) {
        m_listener.onPrefixLoaded(static_cast<std::uint32_t>((flow.tag >> 32) & 0x7fffffffu));
        return;
    }
    // Only now are the blocks in the pool for later prompts.
    const auto hashes = hashesOf(request);
    for (std::size_t i = m_hitBlocks[request]; i < hashes.size(); ++i)
        m_pool.store(hashes[i]);
}

void PrefixCache::onBlockLoaded(std::uint32_t request)
{
    if (--m_blocksLoading[request] == 0)
        m_listener.onPrefixLoaded(m_loadInstance[request]);
}

void PrefixCache::onBlockStored(std::uint32_t, std::uint32_t hash)
{
    // A block the pool evicts leaves the protocol's home too: a later store of it starts afresh.
    if (const auto evicted = m_pool.store(hash))
        m_coherence->drop(*evicted);
}

void PrefixCache::checkFinished() const
{
    if (m_coherence)
        m_coherence->checkFinished();
}

std::vector<MessageKindStats> PrefixCache::kinds() const
{
    std::vector<MessageKindStats> kinds = m_kinds;
    if (m_coherence)
        kinds.insert(kinds.end(), m_coherence->kinds().begin(), m_coherence->kinds().end());
    return kinds;
}

PrefixPoolSummary PrefixCache::summary() const
{
    PrefixPoolSummary s = m_summary;
    s.evictions = m_pool.evictions();
    s.blocksHeld = m_pool.size();
    return s;
}

} // namespace coh::core
