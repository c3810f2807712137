#pragma once
// The real-cuda backend's nodes (docs/real-backend.md#real-cuda): each topology node that sends, receives or computes
// is a partition of a GPU, made at its first job: its own device memory (filled on the device) and stream. Nodes go
// to the GPUs in turn, so on a machine with one GPU every node is a partition of it, and with as many GPUs as nodes
// each node has a GPU of its own. A node whose memory is the host's (hostMemoryOnGpus) gets pinned host memory
// instead, with a stream on the GPU it was dealt: what a GPU copies to or from it crosses the bus (PCIe, NVLink-C2C)
// by DMA, as an offload to host DRAM or CXL memory does. A copy is the receiver's copy engine's (cudaMemcpyAsync, or
// cudaMemcpyPeerAsync between GPUs), one per contiguous piece, timed with CUDA events; a decode step is the CUDA paged
// attention over the node's fp16 pool, timed the same way.
#include "core/gpu/cuda_devices.h"
#include "core/gpu/gpu_memory.h"
#include "core/real/node_resources.h"
#include "core/scenario/topology.h"

#include <memory>
#include <vector>

namespace coh::core::real {

// On real-cuda, the nodes whose memory is the host's: CPU sockets (their DRAM), CXL memory and storage (its staging
// buffer in host memory). GPUs and accelerators get device memory; switches, none.
inline bool hostMemoryOnGpus(NodeKind kind)
{
    return kind == NodeKind::CpuSocket || kind == NodeKind::CxlMemory || kind == NodeKind::Storage;
}

class GpuNodes final : public NodeResources {
  public:
    // `devices`: probeGpus()'s, at least one (the backend refuses the scenario first when there is none).
    GpuNodes(const Topology& topology, const RealCpuOptions& options, std::uint64_t seed,
             std::vector<GpuDevice> devices);
    ~GpuNodes() override;

    std::string name() const override { return "real-cuda"; }
    const RealCpuOptions& options() const override { return m_options; }
    std::size_t memoryBytes(std::uint32_t node) override { return memory(node).size(); }
    // fp16 pools on the node's GPU (the CUDA kernel's element, whatever the model's), the CUDA kernel.
    // Read back to the host in chunks and summed there.
    std::uint32_t payloadChecksum(std::uint32_t node, std::span<const CopyPiece> pieces, CopySide side) override;
    void readBytes(std::uint32_t node, std::size_t offset, std::span<std::byte> out) override
    {
        memory(node).read(offset, out.data(), out.size());
    }
    std::int64_t firstDifference(std::uint32_t src, std::uint32_t dst, std::span<const CopyPiece> pieces) override;
    NodeAttention& attention(std::uint32_t node, const PagedKvShape& shape, std::size_t modelElementBytes) override;
    std::vector<BackendNodeMapping> mapping() const override;

  protected:
    void stampMemory(std::uint32_t node, std::size_t offset, const CopyStamp& stamp, std::size_t bytes) override;
    CopyResult copyPieces(std::uint32_t src, std::uint32_t dst, std::span<const CopyPiece> pieces,
                          const CopyStamp& stamp, CopyFault fault) override;
    void flipMemoryByte(std::uint32_t node, std::size_t offset) override;
    void writeMemory(std::uint32_t node, std::size_t offset, std::span<const std::byte> bytes) override
    {
        memory(node).write(offset, bytes.data(), bytes.size());
    }

  private:
    GpuMemory& memory(std::uint32_t node);

    const Topology& m_topology;
    RealCpuOptions m_options;
    std::uint64_t m_seed;
    std::vector<GpuDevice> m_devices;
    std::vector<std::unique_ptr<GpuMemory>> m_memories; // per node
    std::vector<int> m_partition; // per node: its place among the device memories on its GPU, -1: none or host memory
    std::vector<int> m_perDevice; // per GPU: the partitions made on it
    std::vector<std::unique_ptr<NodeAttention>> m_attention;
    std::size_t m_partitions = 0;   // nodes given device memory so far
    std::size_t m_hostMemories = 0; // nodes given pinned host memory so far
};

} // namespace coh::core::real
