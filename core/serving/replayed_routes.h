#pragma once
// Each request routed where another run routed it (compare-real --real-routes): the simulator set against a real run
// then differs from it in what things cost, not in where requests went. A load-aware router decides on the state it
// sees, and a few percent of time earlier or later sends a request to another instance; at a few dozen requests that
// alone moves a p99 by a third (docs/real-backend.md#routed-as-the-real-run).
#include "core/engine/run_result.h"
#include "core/serving/routing_policy.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace coh::core {

// Where one request was prefilled and decoded; kNoInstance where the run did not route it there (it failed, or a
// failure moved it).
struct RequestRoute {
    std::uint32_t prefill = kNoInstance;
    std::uint32_t decode = kNoInstance;
};

// Each request's instances as `run` routed them, by request id. A request given up, or one a failure hit (whose
// instances the run chose again), has none: the replaying run routes it by its own router.
std::vector<RequestRoute> routesOf(const RunResult& run);

// How many routing decisions went as the real run made them, and why the others did not, as every view says it
// (`cohsim runs show`, compare-real, History, reports): "47 of 50 routing decisions as the real run made them, 3 by
// the scenario's router (requests the real run gave up or a failure moved, or whose instance was down)".
std::string describeReplayedRoutes(const ReplayedRoutesSummary& routes);

// Routes each request to its recorded instance while that instance is up and of the role asked; otherwise (no route,
// an instance down, an index the scenario does not have) the wrapped policy's choice. The wrapped policy is asked every
// time, so that its state moves as in the recorded run.
class ReplayedRoutes final : public RoutingPolicy {
  public:
    ReplayedRoutes(std::vector<RequestRoute> routes, std::unique_ptr<RoutingPolicy> router);
    std::uint32_t pickPrefill(const ClusterView& cluster, std::uint32_t request) override;
    std::uint32_t pickDecode(const ClusterView& cluster, std::uint32_t request) override;
    // Requests sent where the recorded run sent them, and those the wrapped policy routed instead.
    std::uint64_t replayed() const { return m_replayed; }
    std::uint64_t routedAnew() const { return m_routedAnew; }

  private:
    using RouterPick = std::uint32_t (RoutingPolicy::*)(const ClusterView&, std::uint32_t);
    // The recorded instance on `side` of the request's route where it is one of `role` and up, else `router`'s.
    std::uint32_t route(const ClusterView& cluster, std::uint32_t request, std::uint32_t RequestRoute::*side,
                        const std::vector<std::uint32_t>& role, RouterPick router);

    std::vector<RequestRoute> m_routes;
    std::unique_ptr<RoutingPolicy> m_router;
    std::uint64_t m_replayed = 0, m_routedAnew = 0;
};

} // namespace coh::core
