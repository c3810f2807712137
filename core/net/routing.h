#pragma once
// Shortest-latency routes (Dijkstra over Boost.Graph), computed when first asked for: one shortest-path tree per
// source that sends, one route per pair that is used. Memory follows the traffic, not the square of the nodes.
#include "core/scenario/topology.h"

#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

namespace coh::core {

// A link direction: links are full duplex, each direction is its own bandwidth resource.
inline constexpr std::uint32_t channelOf(std::uint32_t link, bool forward)
{
    return link * 2 + (forward ? 0 : 1);
}
inline constexpr std::uint32_t linkOfChannel(std::uint32_t channel)
{
    return channel / 2;
}
inline constexpr bool isForwardChannel(std::uint32_t channel)
{
    return channel % 2 == 0;
}

struct Route {
    std::uint32_t src = 0, dst = 0;
    std::vector<std::uint32_t> channels; // directed hops in order; empty when src == dst
    SimTime latency = 0;                 // sum of hop latencies
    double bottleneckBytesPerNs = 0;     // the smallest bandwidth along the hops; infinite when there are none
    bool reachable = false;
};

class Routing {
  public:
    explicit Routing(const Topology& topology);
    ~Routing();
    Routing(const Routing&) = delete;
    Routing& operator=(const Routing&) = delete;

    std::uint32_t nodeCount() const { return m_nodes; }
    // The id of the route src -> dst, numbered in the order routes are first asked for, so the event record can
    // refer to them. The first call from a source runs Dijkstra from it; later ones are a lookup. The cache
    // makes these calls logically const but not thread-safe: a Routing belongs to one run.
    std::uint32_t routeId(std::uint32_t src, std::uint32_t dst) const
    {
        // Every message asks: the cached case is inline, three loads.
        if (const Tree* tree = m_trees[src].get(); tree && tree->ids[dst] != kNoRoute)
            return tree->ids[dst];
        return addRoute(src, dst);
    }
    const Route& route(std::uint32_t src, std::uint32_t dst) const { return route(routeId(src, dst)); }
    // A route by an id routeId() returned; references stay valid for the Routing's life.
    const Route& route(std::uint32_t id) const { return *m_routes[id]; }

    // Link failures: a link routing knows to be down is avoided by every route asked for from now on (a route
    // across it that is still in use keeps its id and its channels). Routes are recomputed when asked for; one
    // equal to an earlier route between the same nodes gets that route's id back, so failures that come and go
    // do not grow the routes. A pair the down links cut apart gets a route that is not reachable.
    void setLinkDown(std::uint32_t link, bool down);
    bool linkDown(std::uint32_t link) const { return m_linkDown[link] != 0; }
    // Changes whenever a link goes down or comes back: 0 while none ever has.
    std::uint32_t epoch() const { return m_epoch; }
    // The id of the route a message from route `id`'s source to its destination takes now.
    std::uint32_t current(std::uint32_t id) const
    {
        return m_epoch == 0 ? id : routeId(m_routes[id]->src, m_routes[id]->dst);
    }

    // What has been computed so far: the sources with a shortest-path tree, and the routes built from them.
    std::size_t cachedSources() const { return m_cachedSources; }
    std::size_t cachedRoutes() const { return m_routes.size(); }

  private:
    static constexpr std::uint32_t kNoRoute = ~std::uint32_t{0};
    struct Graph;
    // One source's shortest-path tree (its predecessor per node) and the ids of the routes built from it so far.
    struct Tree {
        std::vector<std::uint32_t> pred;
        std::vector<std::uint32_t> ids; // per destination; kNoRoute until asked for
    };
    std::uint32_t addRoute(std::uint32_t src, std::uint32_t dst) const;
    const Tree& treeOf(std::uint32_t src) const;
    void build(std::uint32_t src, std::uint32_t dst, const Tree& tree, Route& route) const;

    // An earlier route of the same pair and channels, or kNoRoute.
    std::uint32_t sameAsEarlier(const Route& route) const;

    std::uint32_t m_nodes = 0;
    std::vector<std::uint8_t> m_linkDown; // per link
    std::uint32_t m_epoch = 0;
    // After a link change: the routes built so far, per (source, destination), for sameAsEarlier().
    mutable std::unordered_map<std::uint64_t, std::vector<std::uint32_t>> m_earlier;
    std::vector<SimTime> m_linkLatency;
    std::vector<double> m_linkBytesPerNs;
    std::unique_ptr<Graph> m_graph;
    mutable std::vector<std::unique_ptr<Tree>> m_trees; // per source; null until it first sends
    mutable std::size_t m_cachedSources = 0;
    mutable std::vector<std::unique_ptr<Route>> m_routes; // by id; each allocated once, so references stay valid
};

} // namespace coh::core
