#pragma once
// The real-cpu backend's nodes: one worker thread per topology node that sends, receives or computes, started at its
// first job, each with its own arena (docs/real-backend.md#what-each-node-runs-on-the-mapping). The copy transport
// and the measured compute share them, so a node's copies and its decode steps run on the same thread and memory.
#include "core/real/node_resources.h"
#include "core/scenario/scenario.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace coh::core::real {

class NodeWorkers final : public NodeResources {
  public:
    NodeWorkers(const Topology& topology, const RealCpuOptions& options, std::uint64_t seed);
    ~NodeWorkers() override;

    // The node's worker, started now if it had none.
    NodeWorker& operator[](std::uint32_t node);

    std::string name() const override { return "real-cpu"; }
    const RealCpuOptions& options() const override { return m_options; }
    std::size_t memoryBytes(std::uint32_t node) override { return (*this)[node].arena().size(); }
    std::uint32_t payloadChecksum(std::uint32_t node, std::span<const CopyPiece> pieces, CopySide side) override
    {
        return real::payloadChecksum((*this)[node].arena(), pieces, side);
    }
    void readBytes(std::uint32_t node, std::size_t offset, std::span<std::byte> out) override;
    std::int64_t firstDifference(std::uint32_t src, std::uint32_t dst, std::span<const CopyPiece> pieces) override
    {
        return real::firstDifference((*this)[src].arena(), (*this)[dst].arena(), pieces);
    }
    // fp16 or fp32 pools (kvElementBytes) the worker allocated and filled (first touch), the CPU kernel run on the
    // worker.
    NodeAttention& attention(std::uint32_t node, const PagedKvShape& shape, std::size_t modelElementBytes) override;
    std::vector<BackendNodeMapping> mapping() const override;

  protected:
    void stampMemory(std::uint32_t node, std::size_t offset, const CopyStamp& stamp, std::size_t bytes) override
    {
        (*this)[node].arena().stamp(offset, stamp, bytes);
    }
    CopyResult copyPieces(std::uint32_t src, std::uint32_t dst, std::span<const CopyPiece> pieces,
                          const CopyStamp& stamp, CopyFault fault) override
    {
        const NodeArena& from = (*this)[src].arena();
        return (*this)[dst].copyFrom(from, pieces, stamp, fault);
    }
    void flipMemoryByte(std::uint32_t node, std::size_t offset) override { (*this)[node].arena().flip(offset); }
    void writeMemory(std::uint32_t node, std::size_t offset, std::span<const std::byte> bytes) override;

  private:
    const Topology& m_topology;
    RealCpuOptions m_options;
    std::uint64_t m_seed;
    std::vector<std::unique_ptr<NodeWorker>> m_workers; // per node
    std::vector<std::unique_ptr<NodeAttention>> m_attention;
};

// The pool a node attends over: K and V together as large as `poolBytes` allows in blocks of `shape` (at least one)
// of elements of `elementBytes`.
std::uint32_t poolBlocks(const PagedKvShape& shape, std::size_t poolBytes, std::size_t elementBytes);
// Makes the pools `toBlock` blocks of `blockFloats` long, blocks [fromBlock, toBlock) holding grownBlockValue
// (kv_rows.h: values in [-1, 1] of no sequence, keyed by block and place, the same on every backend; fp16 holds them
// rounded). A pool is made with fromBlock 0 and grown with its old length, so a block reads the same however the pool
// came by it. Blocks before fromBlock are kept. Throws std::invalid_argument for a fromBlock past the blocks the pools
// hold or past toBlock, and std::bad_alloc where the memory is not there (K, made before V, may then be the larger).
template <class T>
void fillBlocks(std::vector<T>& k, std::vector<T>& v, std::uint32_t fromBlock, std::uint32_t toBlock,
                std::size_t blockFloats);
extern template void fillBlocks(std::vector<float>&, std::vector<float>&, std::uint32_t, std::uint32_t, std::size_t);
extern template void fillBlocks(std::vector<Half>&, std::vector<Half>&, std::uint32_t, std::uint32_t, std::size_t);

} // namespace coh::core::real
