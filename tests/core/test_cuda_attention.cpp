// The CUDA paged decode attention against the float64 reference, on a GPU; without one (or without CUDA in the
// build) the GPU tests skip and the error paths are checked instead.
#include "attention_reference.h"
#include "core/gpu/cuda_attention.h"
#include "core/gpu/cuda_devices.h"
#include "core/real/gpu_attention_bench.h"

#include <gtest/gtest.h>

#include <numeric>
#include <random>

namespace coh::test {
namespace {

bool haveGpu(std::string& why)
{
    const auto inventory = core::probeGpus();
    why = inventory.reason;
    return !inventory.devices.empty();
}

TEST(CudaAttention, MatchesAFloat64ReferenceOnScatteredBlocks)
{
    std::string why;
    if (!haveGpu(why))
        GTEST_SKIP() << "no GPU: " << why;
    core::GpuKvShape shape;
    shape.queryHeads = 8;
    shape.kvHeads = 2;   // four query heads per KV head
    shape.headDim = 100; // not a multiple of a warp's 32 lanes
    shape.blockTokens = 16;
    const std::vector<std::uint32_t> contexts{0, 5, 16, 1000, 333, 4099};
    std::uint32_t blocks = 9; // blocks no sequence uses
    for (const auto c : contexts)
        blocks += (c + shape.blockTokens - 1) / shape.blockTokens;

    // K and V are multiples of 1/256 within +-2: exact in fp16, so the reference sees the kernel's very inputs.
    std::mt19937_64 rng(42);
    std::uniform_int_distribution<int> steps(-512, 512);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::vector<float> k(std::size_t{blocks} * shape.blockElements()), v(k.size());
    for (auto* pool : {&k, &v})
        for (auto& x : *pool)
            x = static_cast<float>(steps(rng)) / 256.0f;
    std::vector<std::uint32_t> order(blocks);
    std::iota(order.begin(), order.end(), 0u);
    std::shuffle(order.begin(), order.end(), rng);
    core::GpuAttentionBatch batch;
    for (const auto c : contexts) {
        batch.tableOffsets.push_back(static_cast<std::uint32_t>(batch.tables.size()));
        batch.contexts.push_back(c);
        for (std::uint32_t b = 0; b < (c + shape.blockTokens - 1) / shape.blockTokens; ++b)
            batch.tables.push_back(order[batch.tables.size()]);
    }
    std::vector<float> q(contexts.size() * shape.queryHeads * shape.headDim);
    for (auto& x : q)
        x = normal(rng);
    const float scale = 1.0f / std::sqrt(static_cast<float>(shape.headDim));

    core::GpuPagedAttention attention(0, shape, k, v);
    const core::GpuAttentionRun run = attention.run(q, batch, scale, 3);
    EXPECT_GT(run.medianMs, 0.0);
    EXPECT_DOUBLE_EQ(run.kvBytes, (0.0 + 5 + 16 + 1000 + 333 + 4099) * 2 * 2 * 100 * 2);

    const PagedKvShape cpuShape{shape.queryHeads, shape.kvHeads, shape.headDim, shape.blockTokens};
    std::vector<PagedSequence> seqs;
    for (std::size_t s = 0; s < contexts.size(); ++s)
        seqs.push_back({std::span<const std::uint32_t>(batch.tables).subspan(batch.tableOffsets[s]), contexts[s]});
    const auto want = reference(cpuShape, k, v, q, seqs, scale);
    // Stated tolerance (docs/real-backend.md#cuda): fp32 sums over exact fp16 inputs, so per sequence and head a
    // relative L2 error under 1e-5 and no element off by more than 1e-4.
    expectMatchesReference(run.out, want, cpuShape, contexts, 1e-5, 1e-4);

    // What does not fit is refused before any launch.
    core::GpuAttentionBatch tooShort = batch;
    tooShort.contexts.back() += 64;
    EXPECT_THROW(attention.run(q, tooShort, scale, 0), std::invalid_argument);
}

TEST(CudaAttention, TheBenchReadsAsManyBytesAsACopyOnTheSameGpu)
{
    std::string why;
    if (!haveGpu(why))
        GTEST_SKIP() << "no GPU: " << why;
    core::real::GpuAttentionBenchOptions options;
    options.contexts = {128, 2048};
    options.sequences = 4;
    options.rounds = 3;
    options.poolBytes = 64 << 20;
    const auto rows = core::real::runGpuAttentionBench(options);
    ASSERT_EQ(rows.size(), 2u);
    EXPECT_DOUBLE_EQ(rows[1].kvBytes, 2048.0 * 4 * 2 * 8 * 128 * 2);
    for (const auto& r : rows) {
        EXPECT_GT(r.attentionMs, 0.0);
        EXPECT_GT(r.copyMs, 0.0);
    }
}

TEST(CudaAttention, WithoutAGpuEveryEntryPointSaysWhy)
{
    std::string why;
    if (haveGpu(why))
        GTEST_SKIP() << "this machine has a GPU: the tests above run instead";
    const core::GpuKvShape shape;
    const std::vector<float> pool(shape.blockElements(), 0.5f);
    // A CUDA build validates first and then finds no device; a build without CUDA says so at once.
    const bool cudaBuild = core::probeGpus().cudaBuild;
    core::GpuKvShape bad = shape;
    bad.kvHeads = 3;
    if (cudaBuild) {
        EXPECT_THROW(core::GpuPagedAttention(0, bad, pool, pool), std::invalid_argument);
    }
    EXPECT_THROW(core::GpuPagedAttention(0, shape, pool, pool), core::GpuError);
    EXPECT_THROW(core::gpuDeviceCopyMs(0, 1 << 20, 1), core::GpuError);
    core::real::GpuAttentionBenchOptions options;
    options.poolBytes = 1 << 20;
    EXPECT_THROW(core::real::runGpuAttentionBench(options), core::GpuError);
}

} // namespace
} // namespace coh::test
