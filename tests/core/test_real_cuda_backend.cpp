// The real-cuda backend's own parts: its refusal where there is no GPU (which runs here), and, on a GPU, a node's
// CUDA attention against real-cpu's over the same pool and the rows and stamps its decode steps write. Its copies,
// faults and whole runs are the real-cpu tests run again on it (RealCopies/RealRuns .../Cuda in
// test_real_cpu_backend.cpp).
#include "core/base/input_error.h"
#include "core/gpu/cuda_devices.h"
#include "core/real/backend.h"
#include "core/real/gpu_nodes.h"
#include "core/real/node_workers.h"
#include "core/real/sequence_blocks.h"
#include "core/serving/serving_engine.h"
#include "decode_step_fixtures.h"
#include "engine_fixtures.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>

namespace coh::test {
namespace {

TEST(RealCudaBackend, WithoutAGpuItIsRefusedNamingWhyAndWhatToUseInstead)
{
    const GpuInventory gpus = probeGpus();
    if (!gpus.devices.empty())
        GTEST_SKIP() << "this machine has a GPU: RealRuns/RealCopies .../Cuda run on it instead";
    const Scenario s = twoGpuScenario();
    BackendOptions backend;
    backend.name = "real-cuda";
    EXPECT_EQ(canonicalBackendName("real-cuda"), "real-cuda");
    try {
        checkBackendRuns(backend, s);
        FAIL() << "real-cuda ran without a GPU";
    } catch (const InputError& e) {
        ASSERT_EQ(e.problems().size(), 1u);
        EXPECT_EQ(e.problems()[0].field, "--backend");
        EXPECT_NE(e.problems()[0].message.find("real-cuda needs a GPU, and there is none here: " + gpus.reason),
                  std::string::npos)
            << e.problems()[0].message;
        EXPECT_NE(e.problems()[0].fix.find("--backend real-cpu"), std::string::npos);
    }
    // Nothing is made, and a run says the same before it starts.
    EXPECT_THROW(makeNodeResources(backend, s), InputError);
    Workload w;
    w.requests.push_back({0, 1000, 4, 0, 0});
    RunOptions options;
    options.backend = backend;
    EXPECT_THROW(runScenario(s, w, options), InputError);
}

// Decode node d0 of twoGpuScenario played on each backend, with 1 MiB memories.
struct CpuAndGpuNodes {
    explicit CpuAndGpuNodes(const std::vector<GpuDevice>& devices)
        : cpu(topo, options, 1)
        , gpu(topo, options, 1, devices)
    {
    }
    const Topology topo = twoGpuScenario().topology;
    const real::RealCpuOptions options{1 << 20, 1, 0};
    real::NodeWorkers cpu;
    real::GpuNodes gpu;
};

TEST(RealCudaBackend, ANodesAttentionMatchesRealCpusOverTheSamePool)
{
    const GpuInventory gpus = probeGpus();
    if (gpus.devices.empty())
        GTEST_SKIP() << "no GPU: " << gpus.reason;
    CpuAndGpuNodes nodes(gpus.devices);
    const real::PagedKvShape shape{8, 2, 64, 16};
    real::NodeAttention& onCpu = nodes.cpu.attention(1, shape, 4); // fp32: a model of 4-byte elements
    real::NodeAttention& onGpu = nodes.gpu.attention(1, shape, 4); // fp16 all the same
    // The same bytes hold twice as many fp16 blocks; the blocks both have hold the same values.
    EXPECT_EQ(onGpu.blocks(), 2 * onCpu.blocks());
    EXPECT_DOUBLE_EQ(onGpu.kvBytes(100), onCpu.kvBytes(100) / 2);

    // Three sequences over scattered, shared blocks of the CPU pool's range; one with a partly filled last block.
    std::vector<std::uint32_t> order(onCpu.blocks());
    std::iota(order.begin(), order.end(), 0u);
    std::reverse(order.begin(), order.end());
    const std::vector<std::uint32_t> contexts{40, 16, 100};
    std::vector<std::uint32_t> tables;
    for (const std::uint32_t c : contexts)
        for (std::uint32_t b = 0; b < (c + 15) / 16; ++b)
            tables.push_back(order[(tables.size() * 7) % order.size()]);
    std::vector<real::PagedSequence> sequences;
    std::size_t at = 0;
    for (const std::uint32_t c : contexts) {
        const std::size_t n = (c + 15) / 16;
        sequences.push_back({std::span<const std::uint32_t>(tables).subspan(at, n), c});
        at += n;
    }
    const std::size_t floats = contexts.size() * shape.queryHeads * shape.headDim;
    std::vector<float> q(floats);
    for (std::size_t i = 0; i < floats; ++i)
        q[i] = std::sin(0.37f * static_cast<float>(i));
    std::vector<float> cpuOut(floats), gpuOut(floats);
    EXPECT_GT(onCpu.run(q, sequences, 0.125f, 2, cpuOut), 0);
    EXPECT_GT(onGpu.run(q, sequences, 0.125f, 2, gpuOut), 0);
    // fp16 K and V (11 bits of mantissa) against fp32: outputs of values in [-1, 1] agree to a few thousandths.
    for (std::size_t i = 0; i < floats; ++i)
        ASSERT_NEAR(gpuOut[i], cpuOut[i], 5e-3) << "at " << i;
    // The mapping names the GPU and the partition of each node that has a resource.
    const auto mapping = nodes.gpu.mapping();
    ASSERT_EQ(mapping.size(), 1u);
    EXPECT_EQ(mapping[0].node, "d0");
    EXPECT_NE(mapping[0].resource.find("GPU " + std::to_string(gpus.devices.front().index)), std::string::npos);
    EXPECT_NE(mapping[0].resource.find("partition 0"), std::string::npos);
    EXPECT_NE(mapping[0].resource.find("runs its decode attention (fp16)"), std::string::npos);
}

TEST(RealCudaBackend, ANodeWritesTheRowsAndStampsRealCpuWrites)
{
    // The same steps of one block bookkeeping land in an fp16 pool on each backend: the stamps must be equal and the
    // attention over the rows the sequences wrote (kvRowValue, converted on each side) must agree.
    const GpuInventory gpus = probeGpus();
    if (gpus.devices.empty())
        GTEST_SKIP() << "no GPU: " << gpus.reason;
    CpuAndGpuNodes nodes(gpus.devices);
    // A head of 63 dimensions: fp16 rows of 126 bytes, each ending in a part unit of the seal.
    const real::PagedKvShape shape{8, 2, 63, 16};
    real::NodeAttention& onCpu = nodes.cpu.attention(1, shape, 2);
    real::NodeAttention& onGpu = nodes.gpu.attention(1, shape, 2);
    ASSERT_EQ(onCpu.blocks(), onGpu.blocks());
    real::SequenceBlocks blocks(onCpu.blocks(), shape.blockTokens, 3);
    // Steps with appends, a sequence that leaves and one that takes its blocks, and a cut back within a block.
    const std::vector<std::vector<std::uint32_t>> batches{{1, 2}, {1, 2}, {2, 3}, {2, 3}};
    const std::vector<std::vector<std::uint32_t>> contexts{{40, 17}, {41, 18}, {19, 70}, {17, 71}};
    for (std::size_t step = 0; step < batches.size(); ++step) {
        SCOPED_TRACE(testing::Message() << "step " << step);
        std::vector<real::PagedSequence> sequences;
        if (step == 2) {
            // Both pools grow alike halfway, as a decode step grows them: once the sequence that left gave its blocks
            // back (their freed stamps queued), before the one that joins takes its own. The blocks written keep
            // rows, stamps and seals, the new ones their seed.
            blocks.beginStep("d0", batches[step]);
            const std::uint32_t grown = 2 * onCpu.blocks();
            onCpu.grow(grown);
            onGpu.grow(grown);
            blocks.grow(grown);
            ASSERT_EQ(onGpu.blocks(), grown);
            for (std::size_t i = 0; i < batches[step].size(); ++i)
                sequences.push_back({blocks.hold(batches[step][i], contexts[step][i]), contexts[step][i]});
        } else {
            sequences = holdStep(blocks, batches[step], contexts[step]);
        }
        const auto writes = blocks.writes();
        onCpu.write(writes, {});
        onGpu.write(writes, {});
        const auto cpuStamps = onCpu.stamps();
        const std::vector<BlockStamp> kept(cpuStamps.begin(), cpuStamps.end());
        const auto gpuStamps = onGpu.stamps();
        // Equal seals too: the same fp16 bytes summed by the same rule, on the CPU's worker and by the GPU's threads.
        ASSERT_TRUE(std::equal(kept.begin(), kept.end(), gpuStamps.begin(), gpuStamps.end()));
        const auto toCheck = blocks.blocksToCheck(batches[step]);
        const auto cpuSums = onCpu.checksums(toCheck);
        const std::vector<std::uint32_t> cpuKept(cpuSums.begin(), cpuSums.end());
        const auto gpuSums = onGpu.checksums(toCheck);
        ASSERT_TRUE(std::equal(cpuKept.begin(), cpuKept.end(), gpuSums.begin(), gpuSums.end()));
        EXPECT_FALSE(blocks.checkReads(batches[step], gpuStamps, gpuSums).bad);
        // A byte flipped on the GPU breaks its block's seal there, as on the CPU; flipped back, it holds again.
        onGpu.flipByte(toCheck.front());
        const auto changed = blocks.checkReads(batches[step], onGpu.stamps(), onGpu.checksums(toCheck));
        ASSERT_TRUE(changed.bad);
        EXPECT_EQ(changed.bad->block, toCheck.front());
        onGpu.flipByte(toCheck.front());
        EXPECT_FALSE(blocks.checkReads(batches[step], onGpu.stamps(), onGpu.checksums(toCheck)).bad);

        const std::size_t floats = sequences.size() * shape.queryHeads * shape.headDim;
        std::vector<float> q(floats), cpuOut(floats), gpuOut(floats);
        for (std::size_t i = 0; i < floats; ++i)
            q[i] = std::sin(0.23f * static_cast<float>(i + step));
        onCpu.run(q, sequences, 0.125f, 1, cpuOut);
        onGpu.run(q, sequences, 0.125f, 1, gpuOut);
        // The same fp16 rows on both: only the order of the sums differs.
        for (std::size_t i = 0; i < floats; ++i)
            ASSERT_NEAR(gpuOut[i], cpuOut[i], 1e-4) << "at " << i;
    }
    // Two blocks the growth added and no sequence wrote: the same seed on both sides (grownBlockValue).
    const std::uint32_t last = onCpu.blocks() - 1;
    const std::vector<std::uint32_t> seeded{last, last - 1};
    const real::PagedSequence unwritten{seeded, 32};
    const std::size_t floats = std::size_t{shape.queryHeads} * shape.headDim;
    std::vector<float> q(floats), cpuOut(floats), gpuOut(floats);
    for (std::size_t i = 0; i < floats; ++i)
        q[i] = std::cos(0.19f * static_cast<float>(i));
    onCpu.run(q, std::span(&unwritten, 1), 0.125f, 1, cpuOut);
    onGpu.run(q, std::span(&unwritten, 1), 0.125f, 1, gpuOut);
    for (std::size_t i = 0; i < floats; ++i)
        ASSERT_NEAR(gpuOut[i], cpuOut[i], 1e-4) << "at " << i;
}

} // namespace
} // namespace coh::test
