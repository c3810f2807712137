#pragma once
// Where a request goes: to a prefill instance when it arrives, to a decode instance when its prefill is done.
// A policy reads the cluster through ClusterView alone and routes only to instances that are up; it may keep
// state of its own (a round-robin cursor). Ties are broken by instance order so runs stay deterministic.
#include "core/scenario/scenario.h"
#include "core/serving/cluster_view.h"

#include <cstdint>
#include <memory>

namespace coh::core {

class RoutingPolicy {
  public:
    virtual ~RoutingPolicy() = default;
    // The instance for `request`, or kNoInstance when no instance of the role is up.
    virtual std::uint32_t pickPrefill(const ClusterView& cluster, std::uint32_t request) = 0;
    virtual std::uint32_t pickDecode(const ClusterView& cluster, std::uint32_t request) = 0;
};

// `round_robin`: each role's instances in turn, skipping those that are down.
class RoundRobinPolicy final : public RoutingPolicy {
  public:
    std::uint32_t pickPrefill(const ClusterView& cluster, std::uint32_t request) override;
    std::uint32_t pickDecode(const ClusterView& cluster, std::uint32_t request) override;

  private:
    std::size_t m_prefillCursor = 0, m_decodeCursor = 0;
};

// `least_loaded`: the prefill instance with the fewest prompt tokens queued or running (they set the wait), the
// decode instance holding the fewest sequences; ties go to the first.
class LeastLoadedPolicy final : public RoutingPolicy {
  public:
    std::uint32_t pickPrefill(const ClusterView& cluster, std::uint32_t request) override;
    std::uint32_t pickDecode(const ClusterView& cluster, std::uint32_t request) override;
};

// `cache_aware`: the prefill instance with the lowest overlap_weight x (prompt tokens it would compute, its local
// prefix cache holding the rest) + (prompt tokens queued or running there), as Dynamo's KV router weighs prefill
// blocks against load. When that instance already holds more than max_imbalance x the mean prefill load, the
// least-loaded one takes the request instead, so affinity cannot pile every request onto one worker. Decode:
// with shared prefix blocks (serving.shared_prefix), the decode instance that holds most of the prompt's shared
// blocks (it reads them without a transfer), fewer sequences breaking ties, unless it already holds max_imbalance x
// the mean decode load (at least max_imbalance sequences); otherwise least_loaded (a decode instance that shares
// nothing reuses no KV across requests: the whole sequence is transferred).
class CacheAwarePolicy final : public RoutingPolicy {
  public:
    explicit CacheAwarePolicy(const RouterSpec& spec);
    std::uint32_t pickPrefill(const ClusterView& cluster, std::uint32_t request) override;
    std::uint32_t pickDecode(const ClusterView& cluster, std::uint32_t request) override;

  private:
    double m_overlapWeight, m_maxImbalance;
    LeastLoadedPolicy m_balance;
};

// decode_affinity `same_node`: decode on the decode instance of the node that prefilled (role "both": the KV
// stays where it was computed) when it is up; otherwise, and for prefill, the wrapped policy decides.
class SameNodeDecode final : public RoutingPolicy {
  public:
    explicit SameNodeDecode(std::unique_ptr<RoutingPolicy> router);
    std::uint32_t pickPrefill(const ClusterView& cluster, std::uint32_t request) override;
    std::uint32_t pickDecode(const ClusterView& cluster, std::uint32_t request) override;

  private:
    std::unique_ptr<RoutingPolicy> m_router;
};

std::unique_ptr<RoutingPolicy> makeRoutingPolicy(const RouterSpec& router, DecodeAffinity affinity);

} // namespace coh::core
