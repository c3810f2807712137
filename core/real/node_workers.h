#pragma once
// The worker threads of a real-cpu run: one per topology node that sends, receives or computes, started at its first
// job, each with its own arena (docs/real-backend.md#what-each-node-runs-on-the-mapping). The copy transport and the
// measured compute share them, so a node's copies and its decode steps run on the same thread and memory.
#include "core/net/backend_summary.h"
#include "core/real/node_worker.h"
#include "core/scenario/scenario.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace coh::core::real {

struct RealCpuOptions {
    std::size_t arenaBytes = std::size_t{64} << 20; // per node: larger than a last-level cache, so copies reach DRAM
    std::uint32_t layers = 1; // decode attention layers run for real per step; the step's time scales to the model's
    // A message is copied in pieces of this many bytes, each to its own place on each side, as a copy engine takes
    // one descriptor per piece of a paged cache; 0: a message is one contiguous region. A run takes one layer's K and
    // V of a block (descriptorBytesFor) unless told otherwise.
    std::size_t descriptorBytes = 0;
};

class NodeWorkers {
  public:
    NodeWorkers(const Topology& topology, const RealCpuOptions& options, std::uint64_t seed);
    ~NodeWorkers();

    // The node's worker, started now if it had none.
    NodeWorker& operator[](std::uint32_t node);
    // The node runs decode steps too (the mapping says so).
    void markComputing(std::uint32_t node) { m_computing[node] = 1; }
    const RealCpuOptions& options() const { return m_options; }

    // The nodes that have a worker, in topology order, and what plays each.
    std::vector<BackendNodeMapping> mapping() const;

  private:
    const Topology& m_topology;
    RealCpuOptions m_options;
    std::uint64_t m_seed;
    std::vector<std::unique_ptr<NodeWorker>> m_workers; // per node
    std::vector<std::uint8_t> m_computing;
};

} // namespace coh::core::real
