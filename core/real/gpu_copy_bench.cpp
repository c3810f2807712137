#include "core/real/gpu_copy_bench.h"

#include "core/gpu/cuda_devices.h"
#include "core/real/arena_slots.h"
#include "core/real/bench_clock.h"
#include "core/real/gpu_nodes.h"

#include <algorithm>
#include <memory>

namespace coh::core::real {

std::vector<CopyBenchRow> runGpuCopyBench(const CopyBenchOptions& options)
{
    const GpuInventory gpus = probeGpus();
    if (gpus.devices.empty())
        throw GpuError("real-cuda: there is no GPU to measure: " + gpus.reason);
    // Two nodes, as a run deals them: partitions of one GPU, or two GPUs where there are several.
    Topology topology;
    topology.nodes.resize(2);
    topology.nodes[0].id = "sender";
    topology.nodes[1].id = "receiver";
    GpuNodes nodes(topology, RealCpuOptions{options.arenaBytes, 1, 0}, 1, gpus.devices);
    const std::size_t arena = nodes.memoryBytes(0);
    nodes.memoryBytes(1);
    std::unique_ptr<ArenaSlots> slots;
    if (options.descriptorBytes > 0 && options.descriptorBytes < arena)
        slots = std::make_unique<ArenaSlots>(arena, options.descriptorBytes, 4);

    std::vector<CopyBenchRow> rows;
    std::uint64_t message = 0;
    std::vector<CopyPiece> pieces;
    for (const std::size_t bytes : options.sizes) {
        std::vector<double> plainNs, copyNs, messageNs;
        std::size_t offset = 0;
        for (int round = 0; round < std::max(1, options.rounds); ++round) {
            // The region as one device copy: what the copy engine does without descriptors.
            const CopyPiece whole{offset, offset, bytes};
            CopyStamp stamp{.message = ++message, .src = 0, .dst = 1, .bytes = bytes};
            nodes.stamp(0, whole.srcOffset, stamp, whole.bytes);
            const CopyResult plain = nodes.copy(0, 1, std::span(&whole, 1), stamp, CopyFault::None);
            checkBenchCopy(plain, bytes);
            plainNs.push_back(static_cast<double>(std::max<std::int64_t>(1, plain.ns)));

            // The run's copy: in descriptors scattered over slots on both sides, or as the same region.
            benchPieces(pieces, slots.get(), options.descriptorBytes, offset, bytes);
            stamp.message = ++message;
            nodes.stamp(0, pieces.front().srcOffset, stamp, pieces.front().bytes);
            const auto start = BenchClock::now();
            const CopyResult result = nodes.copy(0, 1, pieces, stamp, CopyFault::None);
            checkBenchCopy(result, bytes);
            messageNs.push_back(nsSince(start));
            copyNs.push_back(static_cast<double>(std::max<std::int64_t>(1, result.ns)));
            offset = nextOffset(offset, bytes, arena);
        }
        const std::size_t descriptors = slots ? (bytes + options.descriptorBytes - 1) / options.descriptorBytes : 1;
        rows.push_back({bytes, median(plainNs), median(copyNs), median(messageNs), descriptors});
    }
    return rows;
}

} // namespace coh::core::real
