#include "core/scenario/replica_nodes.h"

#include "core/scenario/scenario_sections.h"

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

std::vector<std::string> replicaCandidateIds(const nlohmann::json& topology)
{
    const nlohmann::json root = {{"topology", topology}};
    ProblemList problems{std::string()}; // the editor's validation reports them; only the nodes read matter here
    ObjectReader top(problems, root, "");
    Topology read;
    readTopology(top, read);
    std::vector<std::string> ids;
    for (const std::uint32_t i : replicaCandidates(read))
        if (!read.nodes[i].id.empty()) // a node without an id cannot be listed
            ids.push_back(read.nodes[i].id);
    return ids;
}

} // namespace coh::core
