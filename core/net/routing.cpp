#include "core/net/routing.h"

#include "core/net/simulation_limit.h"

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/dijkstra_shortest_paths.hpp>
#include <boost/graph/filtered_graph.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <limits>

namespace coh::core {
namespace {

struct EdgeProps {
    std::uint64_t weight = 0;
    std::uint32_t channel = 0;
};
using BoostGraph = boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS, boost::no_property, EdgeProps>;

// Latency first; the +1 per hop prefers fewer hops among equal-latency paths (latency is scaled so the
// hop count can never outweigh a nanosecond).
constexpr std::uint64_t kLatencyScale = 4096;
std::uint64_t edgeWeight(SimTime latency)
{
    return static_cast<std::uint64_t>(latency) * kLatencyScale + 1;
}

// The edges of links that are up, for Dijkstra once a link is down.
struct LinkUp {
    const BoostGraph* graph = nullptr;
    const std::vector<std::uint8_t>* down = nullptr;
    bool operator()(BoostGraph::edge_descriptor e) const { return !(*down)[linkOfChannel((*graph)[e].channel)]; }
};

} // namespace

struct Routing::Graph {
    explicit Graph(std::uint32_t nodes)
        : graph(nodes)
    {
    }
    BoostGraph graph;
};

Routing::Routing(const Topology& topology)
    : m_nodes(static_cast<std::uint32_t>(topology.nodes.size()))
    , m_graph(std::make_unique<Graph>(m_nodes))
    , m_trees(m_nodes)
{
    m_linkDown.assign(topology.links.size(), 0);
    // Every path's weight must fit in 64 bits: bounding the sum over all links bounds every simple path.
    const std::uint64_t maxTotal = (std::numeric_limits<std::uint64_t>::max() - topology.links.size()) / kLatencyScale;
    std::uint64_t total = 0;
    for (std::uint32_t l = 0; l < topology.links.size(); ++l) {
        const Link& link = topology.links[l];
        m_linkLatency.push_back(link.latency);
        m_linkBytesPerNs.push_back(link.bandwidthBytesPerSec * 1e-9);
        const auto latency = static_cast<std::uint64_t>(std::max<SimTime>(link.latency, 0));
        if (latency > maxTotal - total)
            throw SimulationLimitError(l, "latency",
                                       fmt::format("link '{}': a latency of {} ns takes the links' latencies past "
                                                   "the {} ns that routing can add up",
                                                   link.id, link.latency, maxTotal));
        total += latency;
        auto a = topology.nodeIndex(link.a), b = topology.nodeIndex(link.b);
        if (!a || !b)
            continue; // validation reports unknown nodes; routing just ignores such a link
        boost::add_edge(*a, *b, EdgeProps{edgeWeight(link.latency), channelOf(l, true)}, m_graph->graph);
        boost::add_edge(*b, *a, EdgeProps{edgeWeight(link.latency), channelOf(l, false)}, m_graph->graph);
    }
}

Routing::~Routing() = default;

const Routing::Tree& Routing::treeOf(std::uint32_t src) const
{
    std::unique_ptr<Tree>& slot = m_trees[src];
    if (slot)
        return *slot;
    const BoostGraph& graph = m_graph->graph;
    std::vector<BoostGraph::vertex_descriptor> pred(m_nodes);
    std::vector<std::uint64_t> dist(m_nodes);
    const auto weights = boost::get(&EdgeProps::weight, graph);
    if (m_epoch == 0) {
        boost::dijkstra_shortest_paths(
            graph, src, boost::predecessor_map(pred.data()).distance_map(dist.data()).weight_map(weights));
    } else {
        const boost::filtered_graph<BoostGraph, LinkUp> up(graph, LinkUp{&graph, &m_linkDown});
        boost::dijkstra_shortest_paths(
            up, src, boost::predecessor_map(pred.data()).distance_map(dist.data()).weight_map(weights));
    }
    slot = std::make_unique<Tree>();
    slot->pred.assign(pred.begin(), pred.end());
    slot->ids.assign(m_nodes, kNoRoute);
    ++m_cachedSources;
    return *slot;
}

std::uint32_t Routing::addRoute(std::uint32_t src, std::uint32_t dst) const
{
    const Tree& tree = treeOf(src);
    const auto id = static_cast<std::uint32_t>(m_routes.size());
    auto route = std::make_unique<Route>();
    build(src, dst, tree, *route);
    if (const std::uint32_t earlier = sameAsEarlier(*route); earlier != kNoRoute) {
        m_trees[src]->ids[dst] = earlier;
        return earlier;
    }
    if (m_epoch != 0)
        m_earlier[std::uint64_t{src} << 32 | dst].push_back(id);
    m_routes.push_back(std::move(route));
    m_trees[src]->ids[dst] = id;
    return id;
}

std::uint32_t Routing::sameAsEarlier(const Route& route) const
{
    const auto it = m_earlier.find(std::uint64_t{route.src} << 32 | route.dst);
    if (it == m_earlier.end())
        return kNoRoute;
    for (auto id : it->second)
        if (m_routes[id]->reachable == route.reachable && m_routes[id]->channels == route.channels)
            return id;
    return kNoRoute;
}

void Routing::setLinkDown(std::uint32_t link, bool down)
{
    if ((m_linkDown[link] != 0) == down)
        return;
    m_linkDown[link] = down ? 1 : 0;
    ++m_epoch;
    // Every tree may change. The routes built so far stay (flows and the event record refer to them by id) and
    // are remembered per pair, so a path found again keeps its id.
    for (auto& tree : m_trees) {
        if (!tree)
            continue;
        for (std::uint32_t dst = 0; dst < m_nodes; ++dst) {
            const std::uint32_t id = tree->ids[dst];
            if (id == kNoRoute)
                continue;
            auto& ids = m_earlier[std::uint64_t{m_routes[id]->src} << 32 | dst];
            if (std::find(ids.begin(), ids.end(), id) == ids.end())
                ids.push_back(id);
        }
        tree.reset();
    }
    m_cachedSources = 0;
}

void Routing::build(std::uint32_t src, std::uint32_t dst, const Tree& tree, Route& r) const
{
    r.src = src;
    r.dst = dst;
    r.reachable = dst == src || tree.pred[dst] != dst;
    r.bottleneckBytesPerNs = std::numeric_limits<double>::infinity();
    if (!r.reachable || dst == src)
        return;
    const BoostGraph& graph = m_graph->graph;
    // Walk predecessors back; pick the lowest-weight (then lowest-channel) edge between each pair.
    for (std::uint32_t v = dst; v != src; v = tree.pred[v]) {
        const std::uint32_t u = tree.pred[v];
        std::uint64_t bestWeight = std::numeric_limits<std::uint64_t>::max();
        std::uint32_t bestChannel = 0;
        for (auto [e, end] = boost::out_edges(u, graph); e != end; ++e) {
            if (boost::target(*e, graph) != v)
                continue;
            const EdgeProps& p = graph[*e];
            if (m_linkDown[linkOfChannel(p.channel)])
                continue;
            if (p.weight < bestWeight || (p.weight == bestWeight && p.channel < bestChannel)) {
                bestWeight = p.weight;
                bestChannel = p.channel;
            }
        }
        r.channels.push_back(bestChannel);
        r.latency += m_linkLatency[linkOfChannel(bestChannel)];
        r.bottleneckBytesPerNs = std::min(r.bottleneckBytesPerNs, m_linkBytesPerNs[linkOfChannel(bestChannel)]);
    }
    std::reverse(r.channels.begin(), r.channels.end());
}

} // namespace coh::core
