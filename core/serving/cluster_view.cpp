#include "core/serving/cluster_view.h"

#include "core/engine/kv_memory.h"
#include "core/serving/local_prefix_cache.h"

#include <algorithm>

namespace coh::core {

ClusterView::ClusterView(const std::vector<InstanceState>& instances, const Workload& workload,
                         const std::vector<RequestMetrics>& metrics)
    : m_instances(instances)
    , m_workload(workload)
    , m_metrics(metrics)
    , m_colocated(instances.size(), kNoInstance)
{
    for (std::uint32_t i = 0; i < instances.size(); ++i)
        (instances[i].role == InstanceRole::Prefill ? m_prefill : m_decode).push_back(i);
    for (auto p : m_prefill)
        for (auto d : m_decode)
            if (instances[d].nodes == instances[p].nodes) {
                m_colocated[p] = d;
                break;
            }
}

std::uint32_t ClusterView::promptTokensToCompute(std::uint32_t instance, std::uint32_t request) const
{
    return promptTokens(request) - (m_local ? m_local->heldTokens(instance, request) : 0);
}

bool ClusterView::sharesPrefixBlocks() const
{
    return m_kv && m_kv->sharesPrefixBlocks();
}

std::uint32_t ClusterView::sharedPrefixBlocksHeld(std::uint32_t instance, std::uint32_t request) const
{
    // Runs that share prefix blocks have no failures, so a request's KV sequence is the request's own id.
    return m_kv ? m_kv->sharedBlocksHeld(request, instance) : 0;
}

std::span<const std::uint32_t> ClusterView::prefixBlocks(std::uint32_t request) const
{
    const Request& r = m_workload.requests[request];
    return std::span<const std::uint32_t>(m_workload.prefixHashes).subspan(r.prefixOffset, r.prefixCount);
}

std::uint32_t ClusterView::heldPrefixBlocks(std::uint32_t instance, std::uint32_t request) const
{
    const auto wanted = prefixBlocks(request);
    std::uint32_t best = 0;
    for (auto held : m_instances[instance].held) {
        const auto blocks = prefixBlocks(held);
        const auto shared = std::mismatch(wanted.begin(), wanted.end(), blocks.begin(), blocks.end()).first;
        best = std::max(best, static_cast<std::uint32_t>(shared - wanted.begin()));
    }
    return best;
}

} // namespace coh::core
