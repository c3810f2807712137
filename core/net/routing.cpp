#include "core/net/routing.h"

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/dijkstra_shortest_paths.hpp>

#include <algorithm>
#include <limits>

namespace coh::core {
namespace {

struct EdgeProps {
    std::uint64_t weight = 0;
    std::uint32_t channel = 0;
};
using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS, boost::no_property, EdgeProps>;

// Latency first; the +1 per hop prefers fewer hops among equal-latency paths (latency is scaled so the
// hop count can never outweigh a nanosecond).
std::uint64_t edgeWeight(SimTime latency) { return static_cast<std::uint64_t>(latency) * 4096 + 1; }

} // namespace

Routing::Routing(const Topology& topology)
    : m_nodes(static_cast<std::uint32_t>(topology.nodes.size()))
{
    Graph graph(m_nodes);
    for (std::uint32_t l = 0; l < topology.links.size(); ++l) {
        const Link& link = topology.links[l];
        auto a = topology.nodeIndex(link.a), b = topology.nodeIndex(link.b);
        if (!a || !b)
            continue; // validation reports unknown nodes; routing just ignores such a link
        boost::add_edge(*a, *b, EdgeProps{edgeWeight(link.latency), channelOf(l, true)}, graph);
        boost::add_edge(*b, *a, EdgeProps{edgeWeight(link.latency), channelOf(l, false)}, graph);
    }

    m_routes.resize(static_cast<std::size_t>(m_nodes) * m_nodes);
    std::vector<Graph::vertex_descriptor> pred(m_nodes);
    std::vector<std::uint64_t> dist(m_nodes);
    std::vector<Graph::edge_descriptor> predEdge(m_nodes);
    for (std::uint32_t src = 0; src < m_nodes; ++src) {
        boost::dijkstra_shortest_paths(
            graph, src,
            boost::predecessor_map(pred.data())
                .distance_map(dist.data())
                .weight_map(boost::get(&EdgeProps::weight, graph)));
        for (std::uint32_t dst = 0; dst < m_nodes; ++dst) {
            Route& r = m_routes[routeId(src, dst)];
            r.src = src;
            r.dst = dst;
            r.reachable = dst == src || pred[dst] != dst;
            if (!r.reachable || dst == src)
                continue;
            // Walk predecessors back; pick the lowest-weight (then lowest-channel) edge between each pair.
            for (auto v = dst; v != src; v = pred[v]) {
                auto u = pred[v];
                std::uint64_t bestWeight = std::numeric_limits<std::uint64_t>::max();
                std::uint32_t bestChannel = 0;
                for (auto [e, end] = boost::out_edges(u, graph); e != end; ++e) {
                    if (boost::target(*e, graph) != v)
                        continue;
                    const EdgeProps& p = graph[*e];
                    if (p.weight < bestWeight || (p.weight == bestWeight && p.channel < bestChannel)) {
                        bestWeight = p.weight;
                        bestChannel = p.channel;
                    }
                }
                r.channels.push_back(bestChannel);
                r.latency += topology.links[linkOfChannel(bestChannel)].latency;
            }
            std::reverse(r.channels.begin(), r.channels.end());
        }
    }
}

} // namespace coh::core
