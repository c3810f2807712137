#pragma once
// Which parts a node of each kind has, as the scenario format defines them. One table for the loader (it refuses
// a part the kind does not have) and the editor (it shows only the fields of the parts the kind has).
#include "core/scenario/topology.h"

#include <string>
#include <vector>

namespace coh::core {

// The optional parts of a node, each one key of the node's JSON object.
enum class NodePart {
    Compute, // "compute": peak_flops, memory_bandwidth (what serving needs)
    Memory,  // "memory": tiers with capacity and bandwidth
};

const char* nodePartKey(NodePart part); // "compute", "memory"
bool nodeKindHas(NodeKind kind, NodePart part);
// The kinds that have the part, by name ("gpu, accelerator, cpu_socket"), for messages.
std::string kindsWith(NodePart part);
// Every part, for walking the table.
std::vector<NodePart> nodeParts();

} // namespace coh::core
