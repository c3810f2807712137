#include "core/real/node_workers.h"

#include <fmt/format.h>

namespace coh::core::real {

NodeWorkers::NodeWorkers(const Topology& topology, const RealCpuOptions& options, std::uint64_t seed)
    : m_topology(topology)
    , m_options(options)
    , m_seed(seed)
    , m_workers(topology.nodes.size())
    , m_computing(topology.nodes.size(), 0)
{
}

NodeWorkers::~NodeWorkers() = default;

NodeWorker& NodeWorkers::operator[](std::uint32_t node)
{
    auto& w = m_workers[node];
    // Each node's arena gets its own content, so a copy from the wrong sender differs from its source.
    if (!w)
        w = std::make_unique<NodeWorker>(m_options.arenaBytes, m_seed * 1000003 + node);
    return *w;
}

std::vector<BackendNodeMapping> NodeWorkers::mapping() const
{
    std::vector<BackendNodeMapping> out;
    std::size_t order = 0;
    for (std::uint32_t node = 0; node < m_workers.size(); ++node) {
        if (!m_workers[node])
            continue;
        const std::size_t size = m_workers[node]->arena().size();
        const std::string arena =
            size >= (1u << 20) ? fmt::format("{} MiB", size >> 20) : fmt::format("{} KiB", (size + 1023) >> 10);
        out.push_back(
            {m_topology.nodes[node].id, fmt::format("cpu worker thread {}, {} arena it touched first{}", order++, arena,
                                                    m_computing[node] ? "; runs its decode attention" : "")});
    }
    return out;
}

} // namespace coh::core::real
