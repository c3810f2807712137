#include "core/serving/routing_policy.h"

namespace coh::core {

namespace {

std::uint32_t nextUp(const ClusterView& cluster, const std::vector<std::uint32_t>& pool, std::size_t& cursor)
{
    for (std::size_t tried = 0; tried < pool.size(); ++tried) {
        const std::uint32_t candidate = pool[cursor];
        cursor = (cursor + 1) % pool.size();
        if (cluster.isUp(candidate))
            return candidate;
    }
    return kNoInstance;
}

template <class Load>
std::uint32_t leastLoaded(const ClusterView& cluster, const std::vector<std::uint32_t>& pool, Load load)
{
    std::uint32_t best = kNoInstance;
    for (auto i : pool)
        if (cluster.isUp(i) && (best == kNoInstance || load(i) < load(best)))
            best = i;
    return best;
}

} // namespace

std::uint32_t RoundRobinPolicy::pickPrefill(const ClusterView& cluster, std::uint32_t)
{
    return nextUp(cluster, cluster.prefillInstances(), m_prefillCursor);
}

std::uint32_t RoundRobinPolicy::pickDecode(const ClusterView& cluster, std::uint32_t)
{
    return nextUp(cluster, cluster.decodeInstances(), m_decodeCursor);
}

std::uint32_t LeastLoadedPolicy::pickPrefill(const ClusterView& cluster, std::uint32_t)
{
    return leastLoaded(cluster, cluster.prefillInstances(), [&](auto i) { return cluster.promptTokensQueued(i); });
}

std::uint32_t LeastLoadedPolicy::pickDecode(const ClusterView& cluster, std::uint32_t)
{
    return leastLoaded(cluster, cluster.decodeInstances(), [&](auto i) { return cluster.load(i); });
}

std::unique_ptr<RoutingPolicy> makeRoutingPolicy(RouterPolicy policy)
{
    switch (policy) {
    case RouterPolicy::RoundRobin:
        return std::make_unique<RoundRobinPolicy>();
    case RouterPolicy::LeastLoaded:
        return std::make_unique<LeastLoadedPolicy>();
    }
    return std::make_unique<RoundRobinPolicy>();
}

} // namespace coh::core
