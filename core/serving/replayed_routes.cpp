#include "core/serving/replayed_routes.h"

#include <fmt/format.h>

#include <algorithm>

namespace coh::core {

std::vector<RequestRoute> routesOf(const RunResult& run)
{
    std::vector<RequestRoute> routes;
    for (const RequestMetrics& m : run.requests) {
        if (m.id >= routes.size())
            routes.resize(std::size_t{m.id} + 1);
        if (!m.failed && m.failureHits == 0)
            routes[m.id] = {m.prefillInstance, m.decodeInstance};
    }
    return routes;
}

ReplayedRoutes::ReplayedRoutes(std::vector<RequestRoute> routes, std::unique_ptr<RoutingPolicy> router)
    : m_routes(std::move(routes))
    , m_router(std::move(router))
{
}

std::uint32_t ReplayedRoutes::route(const ClusterView& cluster, std::uint32_t request,
                                    std::uint32_t RequestRoute::*side, const std::vector<std::uint32_t>& role,
                                    RouterPick router)
{
    // The router decides every time, so that its own state (a round-robin cursor) moves as it did in the recorded run
    // and stands where it would for the requests it routes itself.
    const std::uint32_t own = ((*m_router).*router)(cluster, request);
    const std::uint32_t recorded = request < m_routes.size() ? m_routes[request].*side : kNoInstance;
    if (recorded != kNoInstance && std::find(role.begin(), role.end(), recorded) != role.end() &&
        cluster.isUp(recorded)) {
        ++m_replayed;
        return recorded;
    }
    ++m_routedAnew;
    return own;
}

std::uint32_t ReplayedRoutes::pickPrefill(const ClusterView& cluster, std::uint32_t request)
{
    return route(cluster, request, &RequestRoute::prefill, cluster.prefillInstances(), &RoutingPolicy::pickPrefill);
}

std::uint32_t ReplayedRoutes::pickDecode(const ClusterView& cluster, std::uint32_t request)
{
    return route(cluster, request, &RequestRoute::decode, cluster.decodeInstances(), &RoutingPolicy::pickDecode);
}

std::string describeReplayedRoutes(const ReplayedRoutesSummary& routes)
{
    std::string text =
        fmt::format("{} of {} routing decisions as the real run made them", routes.replayed, routes.decisions());
    if (routes.routedAnew > 0)
        text += fmt::format(", {} by the scenario's router (requests the real run gave up or a failure moved, or whose "
                            "instance was down)",
                            routes.routedAnew);
    return text;
}

} // namespace coh::core
