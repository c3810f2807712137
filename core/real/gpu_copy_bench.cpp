#include "core/real/gpu_copy_bench.h"

#include "core/gpu/cuda_devices.h"
#include "core/real/gpu_nodes.h"

#include <algorithm>
#include <iterator>
#include <vector>

namespace coh::core::real {

std::vector<CopyBenchRow> runGpuCopyBench(const CopyBenchOptions& options, NodeKind sender, NodeKind receiver)
{
    const GpuInventory gpus = probeGpus();
    if (gpus.devices.empty())
        throw GpuError("real-cuda: there is no GPU to measure: " + gpus.reason);
    // The nodes as a run deals them: partitions of one GPU, or GPUs of their own where there are several. The plain
    // side copies between a sender and a receiver of its own (CopyBenchSides): the third and fourth nodes.
    Topology topology;
    topology.nodes.resize(4);
    for (const std::uint32_t n : {0u, 2u}) {
        topology.nodes[n].id = n == 0 ? "sender" : "plain-sender";
        topology.nodes[n].kind = sender;
        topology.nodes[n + 1].id = n == 0 ? "receiver" : "plain-receiver";
        topology.nodes[n + 1].kind = receiver;
    }
    // The plain pair on the same GPUs as the backend's: two for copies between GPUs (memories are dealt in turn),
    // one where a side is host memory (host memories take a turn of their own).
    const bool host = hostMemoryOnGpus(sender) || hostMemoryOnGpus(receiver);
    const std::vector<GpuDevice> devices(
        gpus.devices.begin(), gpus.devices.begin() + std::min<std::ptrdiff_t>(host ? 1 : 2, std::ssize(gpus.devices)));
    GpuNodes nodes(topology, RealCpuOptions{options.arenaBytes, 1, 0}, 1, devices);
    // Every memory made now, in node order (so dealt over the GPUs as a run deals them), not in a timed copy.
    const std::size_t arena = nodes.memoryBytes(0);
    for (std::uint32_t n = 1; n < topology.nodes.size(); ++n)
        nodes.memoryBytes(n);
    CopyBenchSides sides;
    // The plain side: the region as one device copy, what the copy engine does without descriptors.
    sides.plain = [&](std::size_t offset, std::size_t bytes, std::uint64_t message) {
        const CopyPiece whole{offset, offset, bytes};
        CopyStamp stamp{.message = message, .src = 2, .dst = 3, .bytes = bytes};
        stamp.checksum = nodes.payloadChecksum(2, std::span(&whole, 1), CopySide::Source);
        nodes.stamp(2, whole.srcOffset, stamp, whole.bytes);
        return static_cast<double>(nodes.copy(2, 3, std::span(&whole, 1), stamp, CopyFault::None).ns);
    };
    sides.seal = [&](std::span<const CopyPiece> pieces, CopyStamp& stamp) {
        stamp.checksum = nodes.payloadChecksum(0, pieces, CopySide::Source);
        nodes.stamp(0, pieces.front().srcOffset, stamp, pieces.front().bytes);
    };
    sides.copy = [&](std::span<const CopyPiece> pieces, const CopyStamp& stamp) {
        return nodes.copy(0, 1, pieces, stamp, CopyFault::None);
    };
    sides.landed = [&](std::span<const CopyPiece> pieces) {
        return nodes.payloadChecksum(1, pieces, CopySide::Destination);
    };
    return runCopyRows(options, arena, sides);
}

} // namespace coh::core::real
