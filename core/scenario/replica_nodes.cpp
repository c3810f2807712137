#include "core/scenario/replica_nodes.h"

namespace coh::core {

bool canHoldKvReplica(const Node& node)
{
    for (const MemoryTier& m : node.memory)
        if (m.tier != Tier::Storage && m.capacityBytes > 0)
            return true;
    return false;
}

std::vector<std::uint32_t> replicaCandidates(const Topology& topology)
{
    std::vector<std::uint32_t> nodes;
    for (std::uint32_t i = 0; i < topology.nodes.size(); ++i)
        if (canHoldKvReplica(topology.nodes[i]))
            nodes.push_back(i);
    return nodes;
}

} // namespace coh::core
