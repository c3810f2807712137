#include "core/real/gpu_attention_bench.h"

#include "core/real/bench_clock.h"
#include "core/real/node_workers.h" // fillBlocks

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

namespace coh::core::real {

std::vector<GpuAttentionBenchRow> runGpuAttentionBench(const GpuAttentionBenchOptions& options)
{
    const GpuKvShape& shape = options.shape;
    std::mt19937 rng(1);
    std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
    const auto fill = [&](std::vector<float>& v) {
        for (auto& x : v)
            x = uniform(rng);
    };
    const std::size_t blockBytes = 2 * shape.blockElements() * 2; // K and V, fp16
    const auto blocks = static_cast<std::uint32_t>(std::max<std::size_t>(1, options.poolBytes / blockBytes));
    // The values a real-cuda node's pool holds (fillBlocks), uploaded as fp16.
    std::vector<float> k, v;
    fillBlocks(k, v, 0, blocks, shape.blockElements());
    GpuPagedAttention attention(options.device, shape, k, v);
    // Scattered block tables, as a paged pool hands them out; a step larger than the pool wraps it.
    std::vector<std::uint32_t> order(blocks);
    std::iota(order.begin(), order.end(), 0u);
    std::shuffle(order.begin(), order.end(), rng);
    std::uint32_t cursor = 0;
    const float scale = 1.0f / std::sqrt(static_cast<float>(shape.headDim));

    std::vector<GpuAttentionBenchRow> rows;
    for (const std::uint32_t context : options.contexts) {
        const std::uint32_t perSequence = (context + shape.blockTokens - 1) / shape.blockTokens;
        GpuAttentionBatch batch;
        for (std::uint32_t s = 0; s < options.sequences; ++s) {
            batch.tableOffsets.push_back(s * perSequence);
            batch.contexts.push_back(context);
        }
        batch.tables.resize(std::size_t{perSequence} * options.sequences);
        std::vector<float> q(std::size_t{options.sequences} * shape.queryHeads * shape.headDim);
        fill(q);
        std::vector<double> attentionMs, copyMs;
        double kvBytes = 0;
        for (int round = 0; round < std::max(1, options.rounds); ++round) {
            // Each round reads the blocks after the last round's, as consecutive decode steps do.
            for (auto& b : batch.tables) {
                b = order[cursor];
                cursor = (cursor + 1) % blocks;
            }
            const GpuAttentionRun run = attention.run(q, batch, scale, 1);
            kvBytes = run.kvBytes;
            attentionMs.push_back(run.medianMs);
            copyMs.push_back(gpuDeviceCopyMs(options.device, static_cast<std::size_t>(kvBytes), 1));
        }
        rows.push_back({context, kvBytes, median(attentionMs), median(copyMs)});
    }
    return rows;
}

} // namespace coh::core::real
