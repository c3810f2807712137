#include "core/serving/local_prefix_cache.h"

#include <algorithm>

namespace coh::core {

LocalPrefixCache::LocalPrefixCache(const Scenario& scenario, const Workload& workload,
                                   std::span<const InstanceState> instances)
    : m_workload(workload)
    , m_blockTokens(scenario.serving.localPrefixCache.blockTokens)
{
    const double blockBytes = static_cast<double>(scenario.model.kvBytesPerToken()) * m_blockTokens;
    m_caches.reserve(instances.size());
    m_summary.enabled = true;
    for (const auto& inst : instances) {
        double bytes = scenario.serving.localPrefixCache.capacityBytes;
        if (bytes <= 0)
            bytes = inst.hw.hbmBytes * scenario.serving.kvMemoryFraction - scenario.model.weightBytes();
        const bool keeps = inst.role == InstanceRole::Prefill && bytes > 0;
        const auto blocks = keeps ? static_cast<std::uint64_t>(bytes / blockBytes) : std::uint64_t{0};
        m_caches.emplace_back(blocks);
        m_summary.capacityBlocks += blocks;
    }
}

std::span<const std::uint32_t> LocalPrefixCache::hashesOf(std::uint32_t request) const
{
    const Request& r = m_workload.requests[request];
    return std::span<const std::uint32_t>(m_workload.prefixHashes).subspan(r.prefixOffset, r.prefixCount);
}

std::uint32_t LocalPrefixCache::tokensOf(std::uint32_t blocks, std::uint32_t request) const
{
    const std::uint32_t prompt = m_workload.requests[request].promptTokens;
    return static_cast<std::uint32_t>(
        std::min<std::uint64_t>(std::uint64_t{blocks} * m_blockTokens, prompt > 0 ? prompt - 1 : 0));
}

std::uint32_t LocalPrefixCache::heldTokens(std::uint32_t instance, std::uint32_t request) const
{
    // A prefix is only reusable up to its first missing block: later blocks' KV depends on it.
    const PrefixPool& cache = m_caches[instance];
    std::uint32_t blocks = 0;
    for (auto hash : hashesOf(request)) {
        if (!cache.contains(hash))
            break;
        ++blocks;
    }
    return tokensOf(blocks, request);
}

std::uint32_t LocalPrefixCache::hit(std::uint32_t request, std::uint32_t instance)
{
    const std::uint32_t tokens = tokensOf(m_caches[instance].leadingHits(hashesOf(request)), request);
    m_summary.promptTokens += m_workload.requests[request].promptTokens;
    m_summary.hitTokens += tokens;
    return tokens;
}

void LocalPrefixCache::store(std::uint32_t request, std::uint32_t instance)
{
    for (auto hash : hashesOf(request))
        m_caches[instance].store(hash);
}

LocalPrefixSummary LocalPrefixCache::summary() const
{
    LocalPrefixSummary s = m_summary;
    for (const auto& cache : m_caches) {
        s.blocksHeld += cache.size();
        s.evictions += cache.evictions();
    }
    return s;
}

} // namespace coh::core
