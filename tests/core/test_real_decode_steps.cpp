// real-cpu's decode steps: the linear roofline plus the paged attention measured on the decode node's worker, scaled
// to the model's layers, over a pool of the model's element (core/serving/measured_compute.h).
#include "core/real/node_workers.h"
#include "core/real/stale_read.h"
#include "core/serving/measured_compute.h"
#include "decode_step_fixtures.h"
#include "engine_fixtures.h"
#include "real_run_fixtures.h"

#include <gtest/gtest.h>

#include <cmath>

namespace coh::test {
namespace {

// real-cpu's measured compute of smallAttentionScenario(layers) on worker threads with 1 MiB arenas, running
// `layersRun` of the layers per step. Its scenario's model may be changed after: the compute reads it at each step.
struct SmallMeasuredCompute {
    explicit SmallMeasuredCompute(std::uint32_t layers, std::uint32_t layersRun = 1)
        : s(smallAttentionScenario(layers))
        , workers(s.topology, options(layersRun), 1)
        , cost(s.model, s.serving)
        , compute(cost, s.model, 16, workers)
    {
    }
    static real::RealCpuOptions options(std::uint32_t layersRun)
    {
        real::RealCpuOptions o;
        o.arenaBytes = 1 << 20;
        o.layers = layersRun;
        return o;
    }
    Scenario s;
    real::NodeWorkers workers;
    const CostModel cost;
    MeasuredCompute compute;
};

TEST(RealCpuBackend, ADecodeStepIsTheLinearRooflinePlusTheMeasuredAttentionScaledToTheModel)
{
    SmallMeasuredCompute f(4, 2);
    const Scenario& s = f.s;
    const CostModel& cost = f.cost;
    MeasuredCompute& compute = f.compute;
    const InstanceState inst = decodeInstance(cost, s, {1}, 3);
    const std::vector<std::uint32_t> contexts{40, 1, 700};
    const SimTime step = compute.decode(inst, {contexts, {}});
    // Two of the four layers ran, so the measured time counts twice; the rest is the roofline without attention.
    EXPECT_EQ(step, cost.decodeLinear(3, inst.hw) + 2 * compute.lastAttentionNs());
    EXPECT_GT(compute.lastAttentionNs(), 0);
    // Two nodes of tensor parallelism: each attends with half the heads.
    const auto shape = compute.shapeFor(2);
    EXPECT_EQ(shape.queryHeads, 4u);
    EXPECT_EQ(shape.kvHeads, 1u);
    BackendSummary summary;
    compute.describe(summary);
    EXPECT_EQ(summary.decodeSteps, 1u);
    EXPECT_NEAR(summary.attentionMs, compute.lastAttentionNs() * 1e-6, 1e-12);
    // The rows read: 741 cached tokens x K and V x 2 KV heads x 32 elements of the model's 2 bytes (fp16), in each of
    // the 2 layers run.
    ASSERT_EQ(s.model.dtypeBytes, 2u);
    EXPECT_DOUBLE_EQ(summary.attentionBytes, 741.0 * 2 * 2 * 32 * 2 * 2);
    EXPECT_NE(summary.scaledDown.find("fp16"), std::string::npos) << summary.scaledDown;
    EXPECT_NE(summary.scaledDown.find("2 of the model's 4 layers"), std::string::npos) << summary.scaledDown;
    // 47 blocks of the pool's 256: each sequence had blocks of its own.
    EXPECT_NE(summary.scaledDown.find("over each sequence's own blocks"), std::string::npos) << summary.scaledDown;
    EXPECT_EQ(summary.scaledDown.find("ran out of free blocks"), std::string::npos) << summary.scaledDown;
    // The step ran on the decode node's worker, which the mapping now says.
    const auto mapping = f.workers.mapping();
    ASSERT_EQ(mapping.size(), 1u);
    EXPECT_EQ(mapping[0].node, "d0");
    EXPECT_NE(mapping[0].resource.find("runs its decode attention"), std::string::npos);
}

TEST(RealCpuBackend, ANodeThatServesTwoTensorParallelWidthsAttendsWithEach)
{
    // Half the heads under two-way tensor parallelism make smaller blocks, so more of them fit the pool; back at one
    // node the blocks are whole again and fewer: the block tables must be made for the pool of the shape run now.
    SmallMeasuredCompute f(1);
    const Scenario& s = f.s;
    real::NodeWorkers& workers = f.workers;
    const CostModel& cost = f.cost;
    MeasuredCompute& compute = f.compute;
    const std::vector<std::uint32_t> contexts{3000, 3000};
    for (const std::vector<std::uint32_t>& nodes :
         {std::vector<std::uint32_t>{1, 0}, std::vector<std::uint32_t>{1}, std::vector<std::uint32_t>{1, 0}}) {
        const InstanceState inst = decodeInstance(cost, s, nodes, 2);
        EXPECT_NO_THROW(compute.decode(inst, {contexts, {}})) << nodes.size() << " nodes";
        EXPECT_EQ(workers.attention(1, compute.shapeFor(nodes.size()), s.model.dtypeBytes).shape().kvHeads,
                  2u / nodes.size());
    }
    BackendSummary summary;
    compute.describe(summary);
    EXPECT_EQ(summary.decodeSteps, 3u);
    // Two contexts of 3000 tokens need 376 blocks. The half heads' 1 MiB pool has 512 of them; the whole heads' one
    // 256, so that step shared 120 blocks, which the run says.
    EXPECT_NE(summary.scaledDown.find("the pool ran out of free blocks and handed 120 blocks to a sequence while "
                                      "another held them"),
              std::string::npos)
        << summary.scaledDown;
}

TEST(RealCpuBackend, AStepOverAnotherElementThanTheModelsSaysSo)
{
    // An fp8 model's K/V is held as fp16 on real-cpu: twice the model's bytes, which the run must state.
    SmallMeasuredCompute f(4);
    f.s.model.dtypeBytes = 1;
    const Scenario& s = f.s;
    const CostModel& cost = f.cost;
    MeasuredCompute& compute = f.compute;
    const std::vector<std::uint32_t> contexts{40};
    compute.decode(decodeInstance(cost, s, {1}, 1), {contexts, {}});
    BackendSummary summary;
    compute.describe(summary);
    EXPECT_NE(summary.scaledDown.find("(fp16, the model's 1-byte K/V held as fp16,"), std::string::npos)
        << summary.scaledDown;
    // 40 tokens x K and V x 2 KV heads x 32 elements of 2 bytes, in the one layer run.
    EXPECT_DOUBLE_EQ(summary.attentionBytes, 40.0 * 2 * 2 * 32 * 2);
}

TEST(RealCpuBackend, APoolMadeAgainForAnotherElementGetsItsBlockOrderAgain)
{
    // fp16 first (twice the blocks), then fp32: block tables taken from the fp16 pool's order would name blocks past
    // the fp32 pool. (One run has one model; the compute reads the model it was given, so changing it here stands for
    // a node's pool made again.)
    SmallMeasuredCompute f(1);
    Scenario& s = f.s;
    real::NodeWorkers& workers = f.workers;
    const CostModel& cost = f.cost;
    MeasuredCompute& compute = f.compute;
    const std::vector<std::uint32_t> contexts{3000, 3000};
    const InstanceState inst = decodeInstance(cost, s, {1}, 2);
    for (const std::uint32_t bytes : {2u, 4u, 2u}) {
        s.model.dtypeBytes = bytes;
        EXPECT_NO_THROW(compute.decode(inst, {contexts, {}})) << bytes << "-byte elements";
        EXPECT_EQ(workers.attention(1, compute.shapeFor(1), bytes).elementBytes(), bytes);
    }
}

TEST(RealCpuBackend, APoolHoldsTheModelsElementFp16OrFp32)
{
    // The same arena holds twice as many fp16 blocks as fp32 ones, and a step reads half the bytes; the outputs agree
    // to fp16's rounding of the same seeded values.
    Scenario s = smallAttentionScenario(1);
    real::RealCpuOptions options;
    options.arenaBytes = 1 << 20;
    real::NodeWorkers workers(s.topology, options, 1);
    const real::PagedKvShape shape{8, 2, 64, 16};
    real::NodeAttention& fp32 = workers.attention(1, shape, 4);
    EXPECT_EQ(fp32.elementBytes(), 4u);
    const std::uint32_t fp32Blocks = fp32.blocks();
    const std::vector<std::uint32_t> table{3, 1, 4, 0, 5, 9, 2};
    const std::vector<real::PagedSequence> seqs{{table, 100}};
    std::vector<float> q(shape.queryHeads * shape.headDim);
    std::mt19937 rng(3);
    std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
    for (auto& x : q)
        x = uniform(rng);
    std::vector<float> out32(q.size()), out16(q.size());
    fp32.run(q, seqs, 0.125f, 1, out32);
    const double bytes32 = fp32.kvBytes(100);
    for (const std::size_t model : {std::size_t{2}, std::size_t{1}}) { // fp16 or bf16, and fp8 widened to fp16
        real::NodeAttention& fp16 = workers.attention(1, shape, model);
        EXPECT_EQ(fp16.elementBytes(), 2u);
        EXPECT_EQ(fp16.blocks(), 2 * fp32Blocks);
        EXPECT_DOUBLE_EQ(fp16.kvBytes(100), bytes32 / 2);
        fp16.run(q, seqs, 0.125f, 1, out16);
        const StaleReadError diff = real::compareStaleRead(shape, seqs[0], out32, table, out16);
        // fp16 keeps 11 bits of each value in [-1, 1]: the output moves by well under 1e-3 of its norm.
        EXPECT_LT(diff.relL2, 1e-3);
        EXPECT_GT(diff.relL2, 0.0); // rounded, not the fp32 values
    }
    EXPECT_NE(workers.mapping()[0].resource.find("(fp16)"), std::string::npos) << workers.mapping()[0].resource;
    // Back to a model of 4 bytes: the node's pool is made again in fp32.
    real::NodeAttention& again = workers.attention(1, shape, 4);
    EXPECT_EQ(again.elementBytes(), 4u);
    EXPECT_EQ(again.blocks(), fp32Blocks);
    EXPECT_NE(workers.mapping()[0].resource.find("(fp32)"), std::string::npos) << workers.mapping()[0].resource;
}

TEST(RealCpuBackend, ARealRunMeasuresEveryDecodeStep)
{
    const Workload w = spacedWorkload();
    const RunResult real = runOn(threeGpuScenario("msi-directory"), w, realCpu());
    EXPECT_GT(real.summary.backend.decodeSteps, 0u);
    EXPECT_GT(real.summary.backend.attentionMs, 0.0);
    EXPECT_FALSE(real.summary.backend.scaledDown.empty());
    // The requests never overlap, so every decode iteration is one sequence's step: as many as the simulator counts.
    const RunResult sim = runOn(threeGpuScenario("msi-directory"), w, {});
    EXPECT_EQ(real.summary.backend.decodeSteps, sim.summary.staleness.decodeSteps);
    EXPECT_EQ(sim.summary.backend.decodeSteps, 0u);
}

} // namespace
} // namespace coh::test
