// real-cpu's decode steps: the linear roofline plus the paged attention measured on the decode node's worker, scaled
// to the model's layers, over a pool of the model's element (core/serving/measured_compute.h).
#include "attention_reference.h"
#include "core/real/block_checksum.h"
#include "core/real/half.h"
#include "core/real/node_workers.h"
#include "core/real/sequence_blocks.h"
#include "core/real/stale_read.h"
#include "core/serving/kv_pool_text.h"
#include "core/serving/measured_compute.h"
#include "decode_step_fixtures.h"
#include "engine_fixtures.h"
#include "real_run_fixtures.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <numeric>

namespace coh::test {
namespace {

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
    EXPECT_NE(summary.scaledDown.find("its time scaled to 4"), std::string::npos) << summary.scaledDown;
    // Every layer run: nothing is scaled, and it says so rather than "4 of the model's 4 ..., scaled to 4".
    {
        SmallMeasuredCompute whole(4, 4);
        whole.compute.decode(decodeInstance(whole.cost, whole.s, {1}, 1), {std::vector<std::uint32_t>{40}, {}});
        BackendSummary all;
        whole.compute.describe(all);
        EXPECT_NE(all.scaledDown.find("runs all of the model's 4 layers per step"), std::string::npos)
            << all.scaledDown;
        EXPECT_NE(all.scaledDown.find("its time as measured"), std::string::npos) << all.scaledDown;
        EXPECT_EQ(all.scaledDown.find("scaled to"), std::string::npos) << all.scaledDown;
    }
    // 47 blocks of the pool's 256: each sequence had blocks of its own.
    EXPECT_NE(summary.scaledDown.find("over each sequence's own blocks"), std::string::npos) << summary.scaledDown;
    EXPECT_EQ(summary.kvPoolBlocksLent, 0u);
    EXPECT_EQ(describeKvPools(summary).find("ran out of free blocks"), std::string::npos) << describeKvPools(summary);
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
    // 256, so that step shared 120 blocks, which the run says; it read them unchecked, and the rest against stamps.
    EXPECT_EQ(summary.blockReadsBorrowed, 120u);
    EXPECT_EQ(summary.blockReadsChecked, 3 * 376u - 120);
    // 376 blocks of 4 KiB (2 KV heads of 32 fp16, K and V, 16 tokens) take 1.5 MiB: a pool of 2 MiB holds them.
    EXPECT_EQ(summary.kvPoolBlocksLent, 120u);
    EXPECT_NE(describeKvPools(summary).find(
                  "a pool ran out of free blocks and handed 120 blocks to a sequence while "
                  "another held them, where a pool of 2 MiB would have held every sequence's blocks (--pool-mib 2; "
                  "this run's pools do not grow)"),
              std::string::npos)
        << describeKvPools(summary);
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
    BackendOptions backend = realCpu();
    backend.realCpu.arenaBytes = 4 << 20; // 1,024 blocks: room for a sequence of 8,500 tokens, so none is borrowed
    const RunResult real = runOn(threeGpuScenario("msi-directory"), w, backend);
    EXPECT_GT(real.summary.backend.decodeSteps, 0u);
    EXPECT_GT(real.summary.backend.attentionMs, 0.0);
    EXPECT_FALSE(real.summary.backend.scaledDown.empty());
    // The requests never overlap, so every decode iteration is one sequence's step: as many as the simulator counts.
    const RunResult sim = runOn(threeGpuScenario("msi-directory"), w, {});
    EXPECT_EQ(real.summary.backend.decodeSteps, sim.summary.staleness.decodeSteps);
    EXPECT_EQ(sim.summary.backend.decodeSteps, 0u);
    // Each of the six sequences wrote its context at its first step and appended a row at every later one, and every
    // block it read was checked against its stamp. The requests never overlap, so each step is one sequence's.
    const BackendSummary& b = real.summary.backend;
    EXPECT_EQ(b.kvRowsAppended, b.decodeSteps - w.requests.size());
    std::uint64_t prompts = 0;
    for (const auto& r : w.requests)
        prompts += r.promptTokens;
    EXPECT_EQ(b.kvRowsWritten - b.kvRowsAppended, prompts); // a first step attends over the prompt
    EXPECT_GE(b.blockReadsChecked, prompts / 16 * (b.decodeSteps / w.requests.size()));
    EXPECT_EQ(b.scaledDown.find("ran out of free blocks"), std::string::npos) << b.scaledDown;
}

// The K and V rows of one sequence's first `context` tokens as kvRowValue makes them, as the pool's element holds
// them (`half`: rounded to fp16), laid out as a pool whose blocks are the sequence's table 0, 1, 2...
void sequenceRows(const real::PagedKvShape& shape, std::uint32_t sequence, std::uint32_t context, bool half,
                  std::vector<float>& k, std::vector<float>& v)
{
    const std::uint32_t blocks = (context + shape.blockTokens - 1) / shape.blockTokens;
    k.assign(std::size_t{blocks} * shape.blockFloats(), 0.0f);
    v.assign(k.size(), 0.0f);
    const auto held = [&](float x) { return half ? real::toFloat(real::toHalf(x)) : x; };
    for (std::uint32_t t = 0; t < context; ++t)
        for (std::uint32_t h = 0; h < shape.kvHeads; ++h)
            for (std::uint32_t d = 0; d < shape.headDim; ++d) {
                const std::size_t at = ((std::size_t{t / shape.blockTokens} * shape.kvHeads + h) * shape.blockTokens +
                                        t % shape.blockTokens) *
                                           shape.headDim +
                                       d;
                k[at] = held(kvRowValue(sequence, t, h, d, false));
                v[at] = held(kvRowValue(sequence, t, h, d, true));
            }
}

TEST(RealCpuBackend, AttentionReadsTheRowsEachSequenceWroteAndAppended)
{
    // Steps of a batch over scattered blocks: sequences write their contexts when they take blocks and a row per
    // step; one leaves and the one that joins takes its blocks. Every step's output must be the float64 attention
    // over each sequence's own rows (kvRowValue), not the pool's seed nor the rows of the sequence that left.
    const real::PagedKvShape shape{8, 2, 32, 16};
    const Topology topo = smallAttentionScenario(1).topology;
    for (const std::size_t element : {std::size_t{4}, std::size_t{2}}) {
        SCOPED_TRACE(testing::Message() << element << "-byte K/V");
        real::NodeWorkers workers(topo, SmallMeasuredCompute::options(1), 1);
        real::NodeAttention& pool = workers.attention(1, shape, element);
        real::SequenceBlocks blocks(pool.blocks(), shape.blockTokens, 9);
        const std::vector<std::vector<std::uint32_t>> batches{{1, 2}, {1, 2}, {2, 3}, {2, 3}};
        const std::vector<std::vector<std::uint32_t>> contexts{{40, 17}, {41, 18}, {19, 60}, {20, 61}};
        std::uint64_t checked = 0;
        for (std::size_t step = 0; step < batches.size(); ++step) {
            SCOPED_TRACE(testing::Message() << "step " << step);
            const std::vector<real::PagedSequence> sequences = holdStep(blocks, batches[step], contexts[step]);
            pool.write(blocks.writes(), {});
            const auto sums = pool.checksums(blocks.blocksToCheck(batches[step]));
            const auto check = blocks.checkReads(batches[step], pool.stamps(), sums);
            ASSERT_FALSE(check.bad) << real::describeBadRead(*check.bad);
            checked += check.checked;

            const std::size_t headFloats = std::size_t{shape.queryHeads} * shape.headDim;
            std::vector<float> q(sequences.size() * headFloats), out(q.size());
            for (std::size_t i = 0; i < q.size(); ++i)
                q[i] = std::cos(0.11f * static_cast<float>(i + step));
            pool.run(q, sequences, 0.125f, 1, out);
            for (std::size_t i = 0; i < sequences.size(); ++i) {
                std::vector<float> k, v;
                sequenceRows(shape, batches[step][i], contexts[step][i], element == 2, k, v);
                std::vector<std::uint32_t> table((contexts[step][i] + 15) / 16);
                std::iota(table.begin(), table.end(), 0u);
                const std::vector<float> qi(q.begin() + i * headFloats, q.begin() + (i + 1) * headFloats);
                const std::vector<float> outi(out.begin() + i * headFloats, out.begin() + (i + 1) * headFloats);
                expectMatchesReference(outi, reference(shape, k, v, qi, {{table, contexts[step][i]}}, 0.125), shape,
                                       {contexts[step][i]}, 1e-5, 1e-5);
            }
        }
        // Sequence 3 took sequence 1's three freed blocks and one more; every block read was checked.
        EXPECT_EQ(checked, 3u + 2 + 3 + 2 + 2 + 4 + 2 + 4);
        EXPECT_EQ(blocks.rowsAppended(), 5u);
        EXPECT_EQ(blocks.rowsWritten(), 40u + 17 + 60 + 5);
    }
}

// The seal of `rows` rows of a sequence's block whose row 0 is token `firstToken`, from kv_rows.h's definition: each
// row's elements (kvRowValue, as the pool's element holds them) laid out little-endian, cut into 4-byte units, the
// last zero-padded, each unit's kvUnitSum at its place added up.
std::uint32_t referenceSeal(const real::PagedKvShape& shape, std::uint32_t sequence, std::uint32_t firstToken,
                            std::uint32_t rows, std::size_t element)
{
    const auto rowBytes = static_cast<std::uint32_t>(shape.headDim * element);
    const std::uint32_t rowUnits = kvRowUnits(rowBytes);
    std::uint32_t sum = 0;
    for (const bool isV : {false, true})
        for (std::uint32_t h = 0; h < shape.kvHeads; ++h)
            for (std::uint32_t row = 0; row < rows; ++row) {
                std::vector<unsigned char> bytes(std::size_t{rowUnits} * 4, 0);
                for (std::uint32_t d = 0; d < shape.headDim; ++d) {
                    const float x = kvRowValue(sequence, firstToken + row, h, d, isV);
                    const std::uint32_t bits = element == 2 ? real::toHalf(x).bits : std::bit_cast<std::uint32_t>(x);
                    for (std::size_t b = 0; b < element; ++b)
                        bytes[d * element + b] = static_cast<unsigned char>(bits >> (8 * b));
                }
                for (std::uint32_t u = 0; u < rowUnits; ++u) {
                    std::uint32_t unit = 0;
                    for (std::uint32_t b = 0; b < 4; ++b)
                        unit |= std::uint32_t{bytes[u * 4 + b]} << (8 * b);
                    sum += kvUnitSum(kvUnitPlace(isV, h, row, u, shape.kvHeads, shape.blockTokens, rowUnits), unit);
                }
            }
    return sum;
}

TEST(RealCpuBackend, ABlocksSealIsTheChecksumOfItsRowsAndAChangedByteBreaksIt)
{
    // A head of 9 dimensions: an fp16 row of 18 bytes ends in a part unit, an fp32 one of 36 in whole units.
    const real::PagedKvShape shape{4, 2, 9, 16};
    const Topology topo = smallAttentionScenario(1).topology;
    for (const std::size_t element : {std::size_t{4}, std::size_t{2}}) {
        SCOPED_TRACE(testing::Message() << element << "-byte K/V");
        real::NodeWorkers workers(topo, SmallMeasuredCompute::options(1), 1);
        real::NodeAttention& pool = workers.attention(1, shape, element);
        real::SequenceBlocks blocks(pool.blocks(), shape.blockTokens, 2);
        const std::vector<std::uint32_t> batch{4};
        blocks.beginStep("d", batch);
        const auto held = blocks.hold(4, 20);
        const std::vector<std::uint32_t> table(held.begin(), held.end());
        pool.write(blocks.writes(), {});
        EXPECT_EQ(pool.stamps()[table[0]], (BlockStamp{4, 16, 1, referenceSeal(shape, 4, 0, 16, element)}));
        EXPECT_EQ(pool.stamps()[table[1]], (BlockStamp{4, 4, 1, referenceSeal(shape, 4, 16, 4, element)}));
        // An append extends the seal by its row: the same as sealing the five rows at once.
        blocks.beginStep("d", batch);
        blocks.hold(4, 21);
        pool.write(blocks.writes(), {});
        EXPECT_EQ(pool.stamps()[table[1]], (BlockStamp{4, 5, 2, referenceSeal(shape, 4, 16, 5, element)}));
        auto sums = pool.checksums(blocks.blocksToCheck(batch));
        ASSERT_EQ(sums.size(), 2u);
        EXPECT_EQ(sums[0], pool.stamps()[table[0]].checksum);
        EXPECT_EQ(sums[1], pool.stamps()[table[1]].checksum);
        EXPECT_FALSE(blocks.checkReads(batch, pool.stamps(), sums).bad);

        // A byte changed in memory, its seal left as it was: the read names it.
        pool.flipByte(table[0]);
        sums = pool.checksums(blocks.blocksToCheck(batch));
        const auto check = blocks.checkReads(batch, pool.stamps(), sums);
        ASSERT_TRUE(check.bad);
        EXPECT_EQ(check.bad->block, table[0]);
        EXPECT_NE(real::describeBadRead(*check.bad).find("they changed in memory since"), std::string::npos);
        // Flipped back, the rows add up to their seal again.
        pool.flipByte(table[0]);
        EXPECT_FALSE(blocks.checkReads(batch, pool.stamps(), pool.checksums(blocks.blocksToCheck(batch))).bad);

        // A cut back to two rows takes the three it drops off the seal: the same as sealing the two at once.
        blocks.beginStep("d", batch);
        blocks.hold(4, 18);
        pool.write(blocks.writes(), {});
        EXPECT_EQ(pool.stamps()[table[1]], (BlockStamp{4, 2, 3, referenceSeal(shape, 4, 16, 2, element)}));
        EXPECT_FALSE(blocks.checkReads(batch, pool.stamps(), pool.checksums(blocks.blocksToCheck(batch))).bad);
        // A row changed before a cut stays unsealed after it: the cut keeps the seal, it does not take it afresh.
        pool.flipByte(table[1]);
        blocks.beginStep("d", batch);
        blocks.hold(4, 17);
        pool.write(blocks.writes(), {});
        const auto afterCut = blocks.checkReads(batch, pool.stamps(), pool.checksums(blocks.blocksToCheck(batch)));
        ASSERT_TRUE(afterCut.bad);
        EXPECT_EQ(afterCut.bad->block, table[1]);
    }
}

TEST(RealCpuBackend, ABlockChecksumChangesWithEveryByteOfItsRows)
{
    // Any one byte of a block's K or V rows flipped (each bit pattern NodeArena::kFlipMask makes), or two rows swapped,
    // gives another sum.
    const real::PagedKvShape shape{2, 2, 5, 4}; // fp16 rows of 10 bytes: two whole units and a part one
    const std::size_t blockBytes = shape.blockFloats() * 2;
    std::vector<std::byte> k(blockBytes), v(blockBytes);
    for (std::size_t i = 0; i < blockBytes; ++i) {
        k[i] = static_cast<std::byte>(i * 37 + 11);
        v[i] = static_cast<std::byte>(i * 91 + 5);
    }
    const auto sum = [&] { return real::blockRowsChecksum(shape, k.data(), v.data(), 2, 0, 0, shape.blockTokens); };
    const std::uint32_t sealed = sum();
    for (auto* pool : {&k, &v})
        for (std::size_t i = 0; i < blockBytes; ++i) {
            (*pool)[i] ^= std::byte{real::NodeArena::kFlipMask};
            EXPECT_NE(sum(), sealed) << (pool == &k ? "K" : "V") << " byte " << i;
            (*pool)[i] ^= std::byte{real::NodeArena::kFlipMask};
        }
    // The top bit of two units flipped (two fp32 values' signs, say): a term that changed by only that bit, as an odd
    // multiply's does, would cancel half the time; each pair must show. A unit's top bit is in its last byte, or for
    // a row's part unit the row's last byte (the rest is padding).
    const std::size_t rowBytes = shape.headDim * 2;
    std::vector<std::byte*> tops;
    for (auto* pool : {&k, &v})
        for (std::size_t row = 0; row < blockBytes / rowBytes; ++row)
            for (std::size_t u = 0; u * 4 < rowBytes; ++u)
                tops.push_back(pool->data() + row * rowBytes + std::min(u * 4 + 3, rowBytes - 1));
    ASSERT_EQ(tops.size(), 2u * 2 * 4 * 3);
    for (std::size_t i = 0; i < tops.size(); ++i)
        for (std::size_t j = i + 1; j < tops.size(); ++j) {
            *tops[i] ^= std::byte{0x80};
            *tops[j] ^= std::byte{0x80};
            EXPECT_NE(sum(), sealed) << "units " << i << " and " << j;
            *tops[i] ^= std::byte{0x80};
            *tops[j] ^= std::byte{0x80};
        }
    std::swap_ranges(k.begin(), k.begin() + static_cast<std::ptrdiff_t>(rowBytes),
                     k.begin() + static_cast<std::ptrdiff_t>(rowBytes));
    EXPECT_NE(sum(), sealed);
    // The sum over rows [0, 4) is the sum over [0, 1) and over [1, 4).
    EXPECT_EQ(sum(), real::blockRowsChecksum(shape, k.data(), v.data(), 2, 0, 0, 1) +
                         real::blockRowsChecksum(shape, k.data(), v.data(), 2, 0, 1, 4));
}

TEST(RealCpuBackend, ABlockChecksumIsTheSumOfEveryUnitsTermAtItsPlace)
{
    // Each span of rows, in the second of two blocks, is the sum of kvUnitSum over every unit at its place (kv_rows.h),
    // as the GPU's threads add them: fp16 rows of 16 bytes (whole units: a head's rows summed as one run) and of 10
    // (two whole units and a part one, zero-padded: row by row).
    for (const real::PagedKvShape shape : {real::PagedKvShape{4, 2, 8, 4}, real::PagedKvShape{2, 2, 5, 4}}) {
        const std::size_t blockBytes = shape.blockFloats() * 2;
        std::vector<std::byte> k(2 * blockBytes), v(2 * blockBytes);
        for (std::size_t i = 0; i < k.size(); ++i) {
            k[i] = static_cast<std::byte>(i * 37 + 11);
            v[i] = static_cast<std::byte>(i * 91 + 5);
        }
        const std::uint32_t rowBytes = shape.headDim * 2, rowUnits = kvRowUnits(rowBytes);
        const auto reference = [&](std::uint32_t fromRow, std::uint32_t toRow) {
            std::uint32_t sum = 0;
            for (const bool isV : {false, true})
                for (std::uint32_t head = 0; head < shape.kvHeads; ++head)
                    for (std::uint32_t row = fromRow; row < toRow; ++row) {
                        const auto* bytes = reinterpret_cast<const unsigned char*>((isV ? v : k).data()) + blockBytes +
                                            std::size_t{head * shape.blockTokens + row} * rowBytes;
                        for (std::uint32_t u = 0; u < rowUnits; ++u)
                            sum += kvUnitSum(kvUnitPlace(isV, head, row, u, shape.kvHeads, shape.blockTokens, rowUnits),
                                             kvRowUnit(bytes, rowBytes, u));
                    }
            return sum;
        };
        for (const auto& [fromRow, toRow] : {std::pair{0u, 4u}, {1u, 3u}, {2u, 3u}, {3u, 3u}})
            EXPECT_EQ(real::blockRowsChecksum(shape, k.data(), v.data(), 2, 1, fromRow, toRow),
                      reference(fromRow, toRow))
                << "head dimension " << shape.headDim << ", rows " << fromRow << ".." << toRow;
    }
}

TEST(RealCpuBackend, ADecodeReadOfAFreedBlockALostAppendOrAChangedRowStopsTheRunNamingTheSequence)
{
    const std::vector<std::uint32_t> first{40, 20}, next{41, 21};
    const auto caught = [&](real::ReadFault fault) -> std::string {
        SmallMeasuredCompute f(1);
        const InstanceState inst = decodeInstance(f.cost, f.s, {1}, 2);
        f.compute.injectIntoNextStep(fault);
        try {
            f.compute.decode(inst, {first, {}});
            f.compute.decode(inst, {next, {}});
        } catch (const real::BlockReadError& e) {
            return e.what();
        }
        return "passed";
    };
    const std::string freed = caught(real::ReadFault::FreedBlock);
    EXPECT_NE(freed.find("real-cpu: decode step 1 of "), std::string::npos) << freed;
    EXPECT_NE(freed.find("sequence 0's block 0 (pool block "), std::string::npos) << freed;
    EXPECT_NE(freed.find("(a read after free)"), std::string::npos) << freed;
    // The first step appends nothing: the lost append is the second step's, sequence 0's 41st token.
    const std::string lost = caught(real::ReadFault::LostAppend);
    EXPECT_NE(lost.find("real-cpu: decode step 2 of "), std::string::npos) << lost;
    EXPECT_NE(lost.find("sequence 0's block 2 (pool block "), std::string::npos) << lost;
    EXPECT_NE(lost.find("holds 8 of its 9 tokens: a write that never landed (a lost append)"), std::string::npos)
        << lost;
    const std::string changed = caught(real::ReadFault::CorruptedRow);
    EXPECT_NE(changed.find("real-cpu: decode step 1 of "), std::string::npos) << changed;
    EXPECT_NE(changed.find("sequence 0's block 0 (pool block "), std::string::npos) << changed;
    EXPECT_NE(changed.find("holds its 16 tokens, but their rows no longer add up to the checksum sealed when they were "
                           "written"),
              std::string::npos)
        << changed;
    EXPECT_EQ(caught(real::ReadFault::None), "passed");

    // Without a fault the run counts what it checked and wrote: 3 + 2 blocks read at each of the two steps.
    SmallMeasuredCompute f(1);
    const InstanceState inst = decodeInstance(f.cost, f.s, {1}, 2);
    f.compute.decode(inst, {first, {}});
    f.compute.decode(inst, {next, {}});
    BackendSummary summary;
    f.compute.describe(summary);
    EXPECT_EQ(summary.blockReadsChecked, 10u);
    EXPECT_EQ(summary.kvRowsWritten, 62u);
    EXPECT_EQ(summary.kvRowsAppended, 2u);
}

} // namespace
} // namespace coh::test
