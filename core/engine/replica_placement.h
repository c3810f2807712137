#pragma once
// Where a sequence's replicas live (serving.replication): for each decode node, the factor - 1 other nodes that
// keep a copy of every block, chosen once per decode node by the scenario's placement policy over the nodes that
// can hold KV (replica_nodes.h), by route latency:
//   spread   the candidate farthest from every copy placed so far (the decode node first): copies land on other
//            sockets and hosts before they share one, which is what survives a failure;
//   nearest  the candidates closest to the decode node: the cheapest copies to keep current;
//   fixed    the scenario's list in order, the decode node skipped.
// Ties go to the lower node index, so placement is deterministic.
#include "core/net/routing.h"
#include "core/scenario/scenario.h"

#include <cstdint>
#include <string>
#include <vector>

namespace coh::core {

class ReplicaPlacer {
  public:
    ReplicaPlacer(const Scenario& scenario, const Routing& routing);

    std::uint32_t replicas() const { return m_spec.factor - 1; }
    // The replica nodes of a sequence decoded at `decodeNode`, in placement order (computed on first use).
    const std::vector<std::uint32_t>& place(std::uint32_t decodeNode);

  private:
    std::vector<std::uint32_t> choose(std::uint32_t decodeNode) const;

    ReplicationSpec m_spec;
    const Topology& m_topology;
    std::string m_file; // the scenario's, for errors
    const Routing& m_routing;
    std::vector<std::uint32_t> m_candidates;
    std::vector<std::vector<std::uint32_t>> m_byDecodeNode; // empty until placed
};

} // namespace coh::core
