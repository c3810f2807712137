#pragma once
// Which nodes may hold a replica of a sequence's KV (serving.replication): a node with a memory tier that keeps
// KV blocks for serving, HBM (a GPU's or an accelerator's), host DRAM or a CXL memory device. Storage is a spill
// tier, not a copy a reader can use, and switches hold no memory.
#include "core/scenario/topology.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace coh::core {

bool canHoldKvReplica(const Node& node);

// The indices of the qualifying nodes, in topology order.
std::vector<std::uint32_t> replicaCandidates(const Topology& topology);

// The ids of the qualifying nodes of a scenario's "topology" JSON as the loader reads it, in order; a node the
// loader refuses part of is judged on what it reads (an editor offers these before the scenario validates).
std::vector<std::string> replicaCandidateIds(const nlohmann::json& topology);

} // namespace coh::core
