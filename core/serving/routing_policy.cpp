#include "core/serving/routing_policy.h"

#include <algorithm>

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

CacheAwarePolicy::CacheAwarePolicy(const RouterSpec& spec)
    : m_overlapWeight(spec.overlapWeight)
    , m_maxImbalance(spec.maxImbalance)
{
}

std::uint32_t CacheAwarePolicy::pickPrefill(const ClusterView& cluster, std::uint32_t request)
{
    std::uint32_t best = kNoInstance;
    double bestCost = 0, totalLoad = 0;
    std::uint32_t up = 0;
    for (auto i : cluster.prefillInstances()) {
        if (!cluster.isUp(i))
            continue;
        const auto load = static_cast<double>(cluster.promptTokensQueued(i));
        const double cost = m_overlapWeight * cluster.promptTokensToCompute(i, request) + load;
        totalLoad += load;
        ++up;
        if (best == kNoInstance || cost < bestCost) {
            best = i;
            bestCost = cost;
        }
    }
    if (best == kNoInstance)
        return best;
    // An instance already holding more than its share: affinity would only make its queue longer.
    if (static_cast<double>(cluster.promptTokensQueued(best)) > m_maxImbalance * totalLoad / up)
        return m_balance.pickPrefill(cluster, request);
    return best;
}

std::uint32_t CacheAwarePolicy::pickDecode(const ClusterView& cluster, std::uint32_t request)
{
    // Without shared prefix blocks every decode instance reads the whole prompt from prefill alike: balance load.
    if (!cluster.sharesPrefixBlocks())
        return m_balance.pickDecode(cluster, request);
    // The instance holding most of the prompt's shared blocks reads them without a transfer; ties go to the less
    // loaded one.
    std::uint32_t best = kNoInstance, bestHeld = 0;
    double totalLoad = 0;
    std::uint32_t up = 0;
    for (auto i : cluster.decodeInstances()) {
        if (!cluster.isUp(i))
            continue;
        totalLoad += cluster.load(i);
        ++up;
        const std::uint32_t held = cluster.sharedPrefixBlocksHeld(i, request);
        if (held > bestHeld ||
            (held == bestHeld && best != kNoInstance && held > 0 && cluster.load(i) < cluster.load(best))) {
            best = i;
            bestHeld = held;
        }
    }
    if (best == kNoInstance)
        return m_balance.pickDecode(cluster, request);
    // An instance already holding max_imbalance x the mean load (at least max_imbalance sequences) gets no more
    // for affinity's sake.
    if (cluster.load(best) >= m_maxImbalance * std::max(1.0, totalLoad / up))
        return m_balance.pickDecode(cluster, request);
    return best;
}

SameNodeDecode::SameNodeDecode(std::unique_ptr<RoutingPolicy> router)
    : m_router(std::move(router))
{
}

std::uint32_t SameNodeDecode::pickPrefill(const ClusterView& cluster, std::uint32_t request)
{
    return m_router->pickPrefill(cluster, request);
}

std::uint32_t SameNodeDecode::pickDecode(const ClusterView& cluster, std::uint32_t request)
{
    const std::uint32_t colocated = cluster.colocatedDecode(cluster.prefilledOn(request));
    if (colocated != kNoInstance && cluster.isUp(colocated))
        return colocated;
    return m_router->pickDecode(cluster, request);
}

namespace {

std::unique_ptr<RoutingPolicy> makeRouter(const RouterSpec& router)
{
    switch (router.policy) {
    case RouterPolicy::RoundRobin:
        return std::make_unique<RoundRobinPolicy>();
    case RouterPolicy::LeastLoaded:
        return std::make_unique<LeastLoadedPolicy>();
    case RouterPolicy::CacheAware:
        return std::make_unique<CacheAwarePolicy>(router);
    }
    return std::make_unique<RoundRobinPolicy>();
}

} // namespace

std::unique_ptr<RoutingPolicy> makeRoutingPolicy(const RouterSpec& router, DecodeAffinity affinity)
{
    auto policy = makeRouter(router);
    if (affinity == DecodeAffinity::SameNode)
        return std::make_unique<SameNodeDecode>(std::move(policy));
    return policy;
}

} // namespace coh::core
