#include "core/real/gpu_copy_bench.h"

#include "core/gpu/cuda_devices.h"
#include "core/real/gpu_nodes.h"

namespace coh::core::real {

std::vector<CopyBenchRow> runGpuCopyBench(const CopyBenchOptions& options, NodeKind sender, NodeKind receiver)
{
    const GpuInventory gpus = probeGpus();
    if (gpus.devices.empty())
        throw GpuError("real-cuda: there is no GPU to measure: " + gpus.reason);
    // Two nodes, as a run deals them: partitions of one GPU, or two GPUs where there are several.
    Topology topology;
    topology.nodes.resize(2);
    topology.nodes[0].id = "sender";
    topology.nodes[0].kind = sender;
    topology.nodes[1].id = "receiver";
    topology.nodes[1].kind = receiver;
    GpuNodes nodes(topology, RealCpuOptions{options.arenaBytes, 1, 0}, 1, gpus.devices);
    const std::size_t arena = nodes.memoryBytes(0);
    nodes.memoryBytes(1);
    CopyBenchSides sides;
    // The plain side: the region as one device copy, what the copy engine does without descriptors.
    sides.plain = [&](std::size_t offset, std::size_t bytes, std::uint64_t message) {
        const CopyPiece whole{offset, offset, bytes};
        const CopyStamp stamp{.message = message, .src = 0, .dst = 1, .bytes = bytes};
        nodes.stamp(0, whole.srcOffset, stamp, whole.bytes);
        return static_cast<double>(nodes.copy(0, 1, std::span(&whole, 1), stamp, CopyFault::None).ns);
    };
    sides.stamp = [&](const CopyPiece& first, const CopyStamp& stamp) {
        nodes.stamp(0, first.srcOffset, stamp, first.bytes);
    };
    sides.copy = [&](std::span<const CopyPiece> pieces, const CopyStamp& stamp) {
        return nodes.copy(0, 1, pieces, stamp, CopyFault::None);
    };
    return runCopyRows(options, arena, sides);
}

} // namespace coh::core::real
