#include "core/engine/replica_placement.h"

#include "core/base/input_error.h"
#include "core/scenario/replica_nodes.h"

#include <algorithm>
#include <fmt/format.h>
#include <limits>

namespace coh::core {

ReplicaPlacer::ReplicaPlacer(const Scenario& scenario, const Routing& routing)
    : m_spec(scenario.serving.replication)
    , m_topology(scenario.topology)
    , m_file(scenario.sourcePath)
    , m_routing(routing)
    , m_candidates(replicaCandidates(m_topology))
    , m_byDecodeNode(m_topology.nodes.size())
{
    if (m_spec.placement == ReplicaPlacement::Fixed) {
        m_candidates.clear();
        for (const auto& id : m_spec.nodes)
            if (const auto node = m_topology.nodeIndex(id))
                m_candidates.push_back(*node);
    }
}

const std::vector<std::uint32_t>& ReplicaPlacer::place(std::uint32_t decodeNode)
{
    std::vector<std::uint32_t>& nodes = m_byDecodeNode[decodeNode];
    if (nodes.empty() && replicas() > 0)
        nodes = choose(decodeNode);
    return nodes;
}

std::vector<std::uint32_t> ReplicaPlacer::choose(std::uint32_t decodeNode) const
{
    std::vector<std::uint32_t> pool;
    for (std::uint32_t node : m_candidates)
        if (node != decodeNode && m_routing.route(decodeNode, node).reachable)
            pool.push_back(node);
    std::vector<std::uint32_t> chosen;
    switch (m_spec.placement) {
    case ReplicaPlacement::Fixed:
        chosen.assign(pool.begin(), pool.begin() + std::min<std::ptrdiff_t>(pool.size(), replicas()));
        break;
    case ReplicaPlacement::Nearest:
        std::stable_sort(pool.begin(), pool.end(), [&](std::uint32_t a, std::uint32_t b) {
            return m_routing.route(decodeNode, a).latency < m_routing.route(decodeNode, b).latency;
        });
        chosen.assign(pool.begin(), pool.begin() + std::min<std::ptrdiff_t>(pool.size(), replicas()));
        break;
    case ReplicaPlacement::Spread:
        // Farthest-point: each pick maximises its distance to the nearest copy already placed.
        while (chosen.size() < replicas() && !pool.empty()) {
            auto best = pool.end();
            SimTime bestDistance = -1;
            for (auto it = pool.begin(); it != pool.end(); ++it) {
                SimTime distance = m_routing.route(decodeNode, *it).latency;
                for (std::uint32_t c : chosen)
                    distance = std::min(distance, m_routing.route(c, *it).latency);
                if (distance > bestDistance) {
                    bestDistance = distance;
                    best = it;
                }
            }
            chosen.push_back(*best);
            pool.erase(best);
        }
        break;
    }
    if (chosen.size() < replicas())
        throw InputError(
            m_file, "/serving/replication",
            fmt::format("a sequence decoded on '{}' needs {} replica nodes, but only {} qualifying nodes reach it",
                        m_topology.nodes[decodeNode].id, replicas(), chosen.size()),
            "lower the factor, list more nodes, or link more nodes with memory to the decode nodes");
    return chosen;
}

} // namespace coh::core
