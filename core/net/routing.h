#pragma once
// Shortest-latency routes between every pair of nodes (Dijkstra over Boost.Graph), computed once per run.
#include "core/scenario/topology.h"

#include <cstdint>
#include <vector>

namespace coh::core {

// A link direction: links are full duplex, each direction is its own bandwidth resource.
inline constexpr std::uint32_t channelOf(std::uint32_t link, bool forward) { return link * 2 + (forward ? 0 : 1); }
inline constexpr std::uint32_t linkOfChannel(std::uint32_t channel) { return channel / 2; }
inline constexpr bool isForwardChannel(std::uint32_t channel) { return channel % 2 == 0; }

struct Route {
    std::uint32_t src = 0, dst = 0;
    std::vector<std::uint32_t> channels; // directed hops in order; empty when src == dst
    SimTime latency = 0;                 // sum of hop latencies
    bool reachable = false;
};

class Routing {
public:
    explicit Routing(const Topology& topology);

    std::uint32_t nodeCount() const { return m_nodes; }
    // Index of the route src -> dst; routes are numbered so the event record can refer to them.
    std::uint32_t routeId(std::uint32_t src, std::uint32_t dst) const { return src * m_nodes + dst; }
    const Route& route(std::uint32_t src, std::uint32_t dst) const { return m_routes[routeId(src, dst)]; }
    const Route& route(std::uint32_t id) const { return m_routes[id]; }
    const std::vector<Route>& routes() const { return m_routes; }

private:
    std::uint32_t m_nodes = 0;
    std::vector<Route> m_routes; // m_nodes x m_nodes
};

} // namespace coh::core
