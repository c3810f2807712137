// A decode node's K/V pool grows when its free blocks run out (NodeAttention::grow, MeasuredCompute), up to
// RealCpuOptions::poolMaxBytes, which a run takes from this machine's memory unless told (--pool-mib): blocks already
// written keep their rows and stamps, new ones hold their seed, and no sequence borrows a block while the pool can
// still grow.
#include "attention_reference.h"
#include "core/base/input_error.h"
#include "core/real/backend.h"
#include "core/real/half.h"
#include "core/real/memory_fit.h"
#include "core/real/node_workers.h"
#include "core/real/sequence_blocks.h"
#include "core/serving/kv_pool_text.h"
#include "core/serving/measured_compute.h"
#include "decode_step_fixtures.h"
#include "engine_fixtures.h"
#include "real_run_fixtures.h"

#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <new>
#include <numeric>

namespace coh::test {
namespace {

constexpr std::size_t kMiB = std::size_t{1} << 20;

// Blocks nobody wrote, read as one sequence of `context` tokens through `table`: the float64 attention over their
// seed, grownBlockValue, as the pool's element holds it.
void expectTheBlocksHoldTheirSeed(real::NodeAttention& pool, const std::vector<std::uint32_t>& table,
                                  std::uint32_t context)
{
    const real::PagedKvShape shape = pool.shape();
    const auto held = [&](float x) { return pool.elementBytes() == 2 ? real::toFloat(real::toHalf(x)) : x; };
    std::vector<float> k(table.size() * shape.blockFloats()), v(k.size());
    for (std::size_t b = 0; b < table.size(); ++b)
        for (std::size_t e = 0; e < shape.blockFloats(); ++e) {
            k[b * shape.blockFloats() + e] = held(grownBlockValue(table[b], static_cast<std::uint32_t>(e), false));
            v[b * shape.blockFloats() + e] = held(grownBlockValue(table[b], static_cast<std::uint32_t>(e), true));
        }
    std::vector<float> q(std::size_t{shape.queryHeads} * shape.headDim), out(q.size());
    for (std::size_t i = 0; i < q.size(); ++i)
        q[i] = std::sin(0.07f * static_cast<float>(i));
    const real::PagedSequence sequence{table, context};
    pool.run(q, std::span(&sequence, 1), 0.125f, 1, out);
    std::vector<std::uint32_t> compact(table.size());
    std::iota(compact.begin(), compact.end(), 0u);
    expectMatchesReference(out, reference(shape, k, v, q, {{compact, context}}, 0.125), shape, {context}, 1e-5, 1e-5);
}

// `check` on a fresh 1 MiB pool of node 1 over `shape`, once of fp32 and once of fp16 elements.
template <class Check> void onAPoolOfEachElement(const real::PagedKvShape& shape, Check check)
{
    const Topology topo = smallAttentionScenario(1).topology;
    for (const std::size_t element : {std::size_t{4}, std::size_t{2}}) {
        SCOPED_TRACE(testing::Message() << element << "-byte K/V");
        real::NodeWorkers workers(topo, SmallMeasuredCompute::options(1, kMiB), 1);
        check(workers.attention(1, shape, element));
    }
}

TEST(RealCpuBackend, APoolThatGrowsKeepsEveryBlocksRowsAndStampAndSeedsItsNewOnes)
{
    const real::PagedKvShape shape{8, 2, 32, 16};
    onAPoolOfEachElement(shape, [&](real::NodeAttention& pool) {
        const std::uint32_t before = pool.blocks();
        real::SequenceBlocks blocks(before, shape.blockTokens, 5);
        const std::vector<std::uint32_t> batch{1, 2};
        holdStep(blocks, batch, {40, 17});
        pool.write(blocks.writes(), {});
        const auto written = pool.stamps();
        const std::vector<BlockStamp> kept(written.begin(), written.end());

        EXPECT_THROW(pool.grow(before - 1), std::invalid_argument);
        pool.grow(2 * before);
        blocks.grow(2 * before);
        ASSERT_EQ(pool.blocks(), 2 * before);
        EXPECT_EQ(pool.poolBytes(), 2 * kMiB);
        const auto grown = pool.stamps();
        ASSERT_EQ(grown.size(), 2u * before);
        // Every stamp as it was, the new blocks' freed; the rows still add up to their seals.
        EXPECT_TRUE(std::equal(kept.begin(), kept.end(), grown.begin()));
        for (std::uint32_t b = before; b < 2 * before; ++b)
            ASSERT_EQ(grown[b], BlockStamp{}) << "block " << b;
        EXPECT_FALSE(blocks.checkReads(batch, pool.stamps(), pool.checksums(blocks.blocksToCheck(batch))).bad);

        // A sequence's rows read through the grown pool: the float64 attention over its own values.
        holdStep(blocks, batch, {41, 18});
        pool.write(blocks.writes(), {});
        EXPECT_FALSE(blocks.checkReads(batch, pool.stamps(), pool.checksums(blocks.blocksToCheck(batch))).bad);

        // Two new blocks nobody wrote, read as a context of 32 tokens: their seed, grownBlockValue.
        expectTheBlocksHoldTheirSeed(pool, {before, before + 1}, 32);
    });
}

TEST(RealCpuBackend, AMadePoolsBlocksHoldWhatAGrownPoolsNewBlocksDo)
{
    // One mechanism for a block nobody wrote (fillBlocks): a pool made at its size holds grownBlockValue in every
    // block, so a block reads the same whether the pool was made with it or grew to it.
    onAPoolOfEachElement(real::PagedKvShape{8, 2, 32, 16}, [](real::NodeAttention& pool) {
        expectTheBlocksHoldTheirSeed(pool, {0, 7, pool.blocks() - 1}, 40);
    });
}

TEST(RealCpuBackend, FillingBlocksKeepsTheBlocksBeforeThemAndRefusesToLeaveAGap)
{
    // Blocks of 8 elements: two made, written into, then three more filled after them.
    std::vector<float> k, v;
    real::fillBlocks(k, v, 0, 2, 8);
    k[3] = 42.0f;
    v[9] = -7.0f;
    real::fillBlocks(k, v, 2, 5, 8);
    ASSERT_EQ(k.size(), 40u);
    ASSERT_EQ(v.size(), 40u);
    EXPECT_EQ(k[3], 42.0f);
    EXPECT_EQ(v[9], -7.0f);
    EXPECT_EQ(k[0], grownBlockValue(0, 0, false));
    EXPECT_EQ(k[2 * 8 + 5], grownBlockValue(2, 5, false));
    EXPECT_EQ(v[4 * 8 + 7], grownBlockValue(4, 7, true));
    // Block 5 would be left unfilled; a range that runs backwards fills nothing sensible: both refused, the pools as
    // they were.
    EXPECT_THROW(real::fillBlocks(k, v, 6, 8, 8), std::invalid_argument);
    EXPECT_THROW(real::fillBlocks(k, v, 3, 2, 8), std::invalid_argument);
    EXPECT_EQ(k.size(), 40u);
    EXPECT_EQ(k[3], 42.0f);
}

// A decode step of `contexts` on node d0 of `f`, and the summary after it.
BackendSummary step(SmallMeasuredCompute& f, const std::vector<std::uint32_t>& contexts)
{
    const InstanceState inst = decodeInstance(f.cost, f.s, {1}, static_cast<std::uint32_t>(contexts.size()));
    f.compute.decode(inst, {contexts, {}});
    BackendSummary summary;
    f.compute.describe(summary);
    return summary;
}

TEST(RealCpuBackend, ADecodeStepGrowsThePoolUpToItsLimitBeforeItLendsABlock)
{
    // Two contexts of 3000 tokens take 376 blocks of 4 KiB (2 KV heads of 32 fp16, K and V, 16 tokens); a 1 MiB pool
    // has 256.
    {
        SCOPED_TRACE("room to grow: it doubles, and every read is checked");
        SmallMeasuredCompute f(1, 1, 4 * kMiB);
        const BackendSummary summary = step(f, {3000, 3000});
        EXPECT_EQ(f.workers.attention(1, f.compute.shapeFor(1), f.s.model.dtypeBytes).blocks(), 512u);
        EXPECT_EQ(summary.blockReadsBorrowed, 0u);
        EXPECT_EQ(summary.blockReadsChecked, 376u);
        // The run keeps the pool's figures, and says them: made, grown, its limit, and what its sequences held.
        EXPECT_EQ(summary.kvPools, 1u);
        EXPECT_EQ(summary.kvPoolsGrown, 1u);
        EXPECT_EQ(summary.kvPoolStartBytes, kMiB);
        EXPECT_EQ(summary.kvPoolLargestStartBytes, kMiB);
        EXPECT_EQ(summary.kvPoolLargestBytes, 2 * kMiB);
        EXPECT_EQ(summary.kvPoolLimitBytes, 4 * kMiB);
        EXPECT_EQ(summary.kvPoolNeededBytes, 376u * 4096);
        EXPECT_EQ(summary.kvPoolBlocksLent, 0u);
        const std::string pools = describeKvPools(summary);
        EXPECT_NE(pools.find("one per decode node, made at 1 MiB; 1 of 1 grew as their free blocks ran out, to 2 MiB "
                             "at most (they could grow to 4 MiB); one pool's sequences held at most 1.5 MiB of blocks"),
                  std::string::npos)
            << pools;
        EXPECT_EQ(pools.find("ran out of free blocks and handed"), std::string::npos);
        // The mapping says the pool's size as it ended, which the run store keeps with it.
        const auto mapping = f.workers.mapping();
        ASSERT_EQ(mapping.size(), 1u);
        EXPECT_NE(mapping[0].resource.find("runs its decode attention (fp16) over a 2 MiB K/V pool"), std::string::npos)
            << mapping[0].resource;
    }
    {
        SCOPED_TRACE("a limit of 1.25 MiB: it grows to 320 blocks and lends the other 56");
        SmallMeasuredCompute f(1, 1, kMiB + kMiB / 4);
        const BackendSummary summary = step(f, {3000, 3000});
        EXPECT_EQ(f.workers.attention(1, f.compute.shapeFor(1), f.s.model.dtypeBytes).blocks(), 320u);
        EXPECT_EQ(summary.blockReadsBorrowed, 56u);
        EXPECT_EQ(summary.blockReadsChecked, 320u);
        EXPECT_EQ(summary.kvPoolLargestBytes, 320u * 4096);
        EXPECT_EQ(summary.kvPoolBlocksLent, 56u);
        EXPECT_NE(describeKvPools(summary).find("handed 56 blocks to a sequence while another held them, where a pool "
                                                "of 2 MiB would have held every sequence's blocks (--pool-mib 2; this "
                                                "run's pools may grow to"),
                  std::string::npos)
            << describeKvPools(summary);
    }
    {
        SCOPED_TRACE("a limit of its start: it never grows");
        SmallMeasuredCompute f(1, 1, kMiB);
        const BackendSummary summary = step(f, {3000, 3000});
        EXPECT_EQ(summary.blockReadsBorrowed, 120u);
        EXPECT_EQ(summary.kvPoolLargestBytes, kMiB);
        EXPECT_EQ(summary.kvPoolLimitBytes, 0u);
        EXPECT_NE(describeKvPools(summary).find("one per decode node, made at 1 MiB, none grown (they could not grow)"),
                  std::string::npos)
            << describeKvPools(summary);
        EXPECT_NE(describeKvPools(summary).find("(--pool-mib 2; this run's pools do not grow)"), std::string::npos)
            << describeKvPools(summary);
    }
    {
        SCOPED_TRACE("blocks of 3 KiB: the pool starts at the 341 whole blocks 1 MiB holds, and a limit of 1 MiB lets "
                     "it grow by none");
        SmallMeasuredCompute f(1, 1, kMiB);
        f.s.model.headDim = 24; // 16 tokens x 2 KV heads x 24 fp16, K and V
        const BackendSummary summary = step(f, {3000, 3000});
        EXPECT_EQ(summary.kvPoolStartBytes, 341u * 3072);
        EXPECT_EQ(summary.kvPoolLimitBytes, 0u);
        EXPECT_NE(describeKvPools(summary).find("none grown (they could not grow)"), std::string::npos)
            << describeKvPools(summary);
    }
}

// A node's pool whose memory has room for `room` blocks, less than its limit said: a growth past it throws
// std::bad_alloc, as the worker's allocation would, and counts the tries.
class CrampedAttention final : public real::NodeAttention {
  public:
    CrampedAttention(real::NodeAttention& inner, std::uint32_t room)
        : m_inner(inner)
        , m_room(room)
    {
    }
    const real::PagedKvShape& shape() const override { return m_inner.shape(); }
    std::uint32_t blocks() const override { return m_inner.blocks(); }
    std::size_t elementBytes() const override { return m_inner.elementBytes(); }
    std::int64_t run(std::span<const float> q, std::span<const real::PagedSequence> sequences, float scale,
                     std::uint32_t layers, std::span<float> out) override
    {
        return m_inner.run(q, sequences, scale, layers, out);
    }
    void write(std::span<const KvRowWrite> writes, std::span<const std::byte> landed) override
    {
        m_inner.write(writes, landed);
    }
    std::span<const BlockStamp> stamps() override { return m_inner.stamps(); }
    std::span<const std::uint32_t> checksums(std::span<const std::uint32_t> blocks) override
    {
        return m_inner.checksums(blocks);
    }
    void flipByte(std::uint32_t block) override { m_inner.flipByte(block); }
    void grow(std::uint32_t blocks) override
    {
        ++tries;
        if (blocks > m_room)
            throw std::bad_alloc();
        m_inner.grow(blocks);
    }
    int tries = 0;

  private:
    real::NodeAttention& m_inner;
    std::uint32_t m_room;
};

// NodeWorkers whose decode pools are CrampedAttention's.
class CrampedNodes final : public real::NodeResources {
  public:
    CrampedNodes(const Topology& topology, const real::RealCpuOptions& options, std::uint32_t room)
        : m_workers(topology, options, 1)
        , m_room(room)
    {
    }
    std::string name() const override { return m_workers.name(); }
    const real::RealCpuOptions& options() const override { return m_workers.options(); }
    std::size_t memoryBytes(std::uint32_t node) override { return m_workers.memoryBytes(node); }
    void stampMemory(std::uint32_t node, std::size_t offset, const real::CopyStamp& stamp, std::size_t bytes) override
    {
        m_workers.stamp(node, offset, stamp, bytes);
    }
    real::CopyResult copyPieces(std::uint32_t src, std::uint32_t dst, std::span<const real::CopyPiece> pieces,
                                const real::CopyStamp& stamp, real::CopyFault fault) override
    {
        return m_workers.copy(src, dst, pieces, stamp, fault);
    }
    std::uint32_t payloadChecksum(std::uint32_t node, std::span<const real::CopyPiece> pieces,
                                  real::CopySide side) override
    {
        return m_workers.payloadChecksum(node, pieces, side);
    }
    std::int64_t firstDifference(std::uint32_t src, std::uint32_t dst, std::span<const real::CopyPiece> pieces) override
    {
        return m_workers.firstDifference(src, dst, pieces);
    }
    void flipMemoryByte(std::uint32_t node, std::size_t offset) override { m_workers.flipByte(node, offset); }
    void writeMemory(std::uint32_t node, std::size_t offset, std::span<const std::byte> bytes) override
    {
        m_workers.writeBytes(node, offset, bytes);
    }
    void readBytes(std::uint32_t node, std::size_t offset, std::span<std::byte> out) override
    {
        m_workers.readBytes(node, offset, out);
    }
    real::NodeAttention& attention(std::uint32_t node, const real::PagedKvShape& shape,
                                   std::size_t modelElementBytes) override
    {
        real::NodeAttention& inner = m_workers.attention(node, shape, modelElementBytes);
        if (!cramped || &inner != m_inner) {
            cramped = std::make_unique<CrampedAttention>(inner, m_room);
            m_inner = &inner;
        }
        return *cramped;
    }
    std::vector<BackendNodeMapping> mapping() const override { return m_workers.mapping(); }
    std::unique_ptr<CrampedAttention> cramped; // the one decode node's

  private:
    real::NodeWorkers m_workers;
    std::uint32_t m_room;
    real::NodeAttention* m_inner = nullptr;
};

TEST(RealCpuBackend, APoolWhoseMemoryRefusesToGrowLendsBlocksFromThenOnAndSaysWhy)
{
    // A limit of 4 MiB, but memory for 300 blocks: the growth to 512 fails, the pool keeps its 256 and lends.
    const Scenario s = smallAttentionScenario(1);
    CrampedNodes nodes(s.topology, SmallMeasuredCompute::options(1, 4 * kMiB), 300);
    const CostModel cost(s.model, s.serving);
    MeasuredCompute compute(cost, s.model, 16, nodes);
    const InstanceState inst = decodeInstance(cost, s, {1}, 2);
    compute.decode(inst, {std::vector<std::uint32_t>{3000, 3000}, {}});
    ASSERT_TRUE(nodes.cramped);
    EXPECT_EQ(nodes.cramped->tries, 1);
    EXPECT_EQ(nodes.cramped->blocks(), 256u);
    // The next step needs six more blocks per sequence and tries no more: the pool lends them, its reads of the 256
    // blocks held alone still checked.
    compute.decode(inst, {std::vector<std::uint32_t>{3100, 3100}, {}});
    EXPECT_EQ(nodes.cramped->tries, 1);
    BackendSummary summary;
    compute.describe(summary);
    EXPECT_EQ(summary.blockReadsChecked, 2 * 256u);
    EXPECT_EQ(summary.blockReadsBorrowed, 120u + 132);
    EXPECT_EQ(summary.kvPoolGrowthRefused, "a pool could not grow past 1 MiB: std::bad_alloc");
    const std::string pools = describeKvPools(summary);
    EXPECT_NE(pools.find("one per decode node, made at 1 MiB, none grown (they could grow to 4 MiB)"),
              std::string::npos)
        << pools;
    EXPECT_NE(pools.find("where a pool of 2 MiB would have held every sequence's blocks (--pool-mib 2; a pool could "
                         "not grow past 1 MiB: std::bad_alloc)"),
              std::string::npos)
        << pools;
}

TEST(RealCpuBackend, ARunsPoolsGrowAsFarAsTheMachinesMemoryAllowsUnlessToldHowFar)
{
    // Requests of 5,000 to 8,500 tokens against 1 MiB arenas: a pool of its start would lend blocks; the run's grows.
    const Scenario s = threeGpuScenario("msi-directory");
    const RunResult run = runOn(s, spacedWorkload(), realCpu());
    EXPECT_GT(run.summary.backend.blockReadsChecked, 0u);
    EXPECT_EQ(run.summary.backend.blockReadsBorrowed, 0u);
    EXPECT_EQ(run.summary.backend.kvPoolStartBytes, kMiB);
    EXPECT_GT(run.summary.backend.kvPoolLargestBytes, kMiB);
    // The limit the run worked out: what the machine's memory leaves beside the arenas (which moves a little as
    // other processes allocate).
    const auto nodes = makeNodeResources(realCpu(), s);
    EXPECT_GE(nodes->options().poolMaxBytes, kMiB);
    if (const auto available = real::availableHostMemory()) {
        const auto want = static_cast<double>(real::largestPoolBytes(real::realMemoryNeed(s), kMiB, *available));
        EXPECT_NEAR(static_cast<double>(nodes->options().poolMaxBytes), want, 0.1 * want);
    }

    // Told: no further than its start, it lends; below its start or past the machine, the run is refused.
    BackendOptions fixed = realCpu();
    fixed.realCpu.poolMaxBytes = fixed.realCpu.arenaBytes;
    const RunResult lent = runOn(s, spacedWorkload(), fixed);
    EXPECT_GT(lent.summary.backend.blockReadsBorrowed, 0u);
    EXPECT_NE(describeKvPools(lent.summary.backend).find("(--pool-mib 3; this run's pools do not grow)"),
              std::string::npos)
        << describeKvPools(lent.summary.backend);
    BackendOptions below = realCpu();
    below.realCpu.poolMaxBytes = kMiB / 2;
    try {
        checkBackendRuns(below, s);
        FAIL() << "a pool that stops below its start ran";
    } catch (const InputError& e) {
        ASSERT_EQ(e.problems().size(), 1u);
        EXPECT_EQ(e.problems()[0].field, "--pool-mib");
        EXPECT_NE(e.problems()[0].message.find("starts at --arena-mib (1 MiB) and only grows, so it cannot stop at "
                                               "512 KiB"),
                  std::string::npos)
            << e.problems()[0].message;
        EXPECT_NE(e.problems()[0].fix.find("give --pool-mib 1 or more"), std::string::npos);
    }
    if (real::availableHostMemory()) {
        BackendOptions past = realCpu();
        past.realCpu.poolMaxBytes = std::size_t{1} << 60;
        try {
            checkBackendRuns(past, s);
            FAIL() << "pools of an exbibyte fit";
        } catch (const InputError& e) {
            ASSERT_EQ(e.problems().size(), 1u);
            EXPECT_EQ(e.problems()[0].field, "--pool-mib");
            EXPECT_NE(e.problems()[0].fix.find("give at most --pool-mib"), std::string::npos);
        }
    }
}

TEST(MemoryFit, PoolsGrowIntoWhatTheArenasLeaveOfTheirShareOfMemory)
{
    // Ten arenas of 64 MiB and four pools in 10 GiB: 80% of it less the arenas, for four pools and the half of one a
    // growth copies.
    const real::MemoryNeed need{10, 4, 0};
    const std::uint64_t available = 10240 * kMiB;
    const auto each = static_cast<std::uint64_t>((0.8 * 10240 - 640) / 4.5 * kMiB);
    EXPECT_NEAR(static_cast<double>(real::largestPoolBytes(need, 64 * kMiB, available)), static_cast<double>(each),
                1.0);
    EXPECT_NO_THROW(real::checkPoolFits(need, 64 * kMiB, each, available, "this machine's memory"));
    try {
        real::checkPoolFits(need, 64 * kMiB, each + kMiB, available, "this machine's memory");
        FAIL() << "pools past the share fit";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("10 node memories of 64 MiB and 4 K/V pools grown to 1679 MiB each (and "
                                             "half a pool more while one grows)"),
                  std::string::npos)
            << e.what();
        EXPECT_NE(std::string(e.what()).find(fmt::format("give at most --pool-mib {}", each >> 20)), std::string::npos)
            << e.what();
    }
    // No room beside the arenas, or no pools: they stay at their start.
    EXPECT_EQ(real::largestPoolBytes(need, 64 * kMiB, 100 * kMiB), 64 * kMiB);
    EXPECT_EQ(real::largestPoolBytes(real::MemoryNeed{3, 0, 0}, 64 * kMiB, available), 64 * kMiB);
}

} // namespace
} // namespace coh::test
