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

std::unique_ptr<RoutingPolicy> makeRoutingPolicy(RouterPolicy policy);

} // namespace coh::core
