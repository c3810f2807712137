#include "core/engine/kv_homes.h"

#include "core/base/input_error.h"

#include <algorithm>

namespace coh::core {

KvHomes::KvHomes(const Scenario& scenario, const std::vector<std::vector<std::uint32_t>>& instanceNodes)
    : m_policy(scenario.coherence.home)
{
    for (const auto& nodes : instanceNodes)
        m_hashHomes.push_back(nodes.front());
    std::sort(m_hashHomes.begin(), m_hashHomes.end());
    m_hashHomes.erase(std::unique(m_hashHomes.begin(), m_hashHomes.end()), m_hashHomes.end());
    if (m_policy == HomePolicy::Node) {
        const auto node = scenario.topology.nodeIndex(scenario.coherence.homeNode);
        if (!node)
            throw InputError(scenario.sourcePath, "/coherence/home",
                             "unknown home node '" + scenario.coherence.homeNode + "'",
                             "use a node id from /topology/nodes");
        m_homeNode = *node;
    }
}

std::uint32_t KvHomes::homeFor(std::uint64_t key, std::uint32_t allocatingNode) const
{
    switch (m_policy) {
    case HomePolicy::AllocatingNode:
        return allocatingNode;
    case HomePolicy::Hashed: {
        // Fibonacci hashing spreads consecutive keys over the candidate homes.
        const std::uint64_t h = (key + 1) * 0x9E3779B97F4A7C15ull;
        return m_hashHomes[(h >> 32) % m_hashHomes.size()];
    }
    case HomePolicy::Node:
        return m_homeNode;
    }
    return allocatingNode;
}

} // namespace coh::core
