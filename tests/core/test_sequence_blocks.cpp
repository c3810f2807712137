// Each decode sequence's own blocks in a node's K/V pool (core/real/sequence_blocks.h).
#include "core/real/sequence_blocks.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <vector>

namespace coh::test {
namespace {

using core::real::SequenceBlocks;

std::vector<std::uint32_t> copyOf(std::span<const std::uint32_t> s)
{
    return {s.begin(), s.end()};
}

TEST(SequenceBlocks, ASequenceReadsTheSameBlocksEveryStepAndGrowsByNewOnes)
{
    SequenceBlocks pool(16, 1);
    pool.beginStep("decode-0");
    const auto a = copyOf(pool.hold(7, 2));
    const auto b = copyOf(pool.hold(9, 3));
    pool.endStep();
    EXPECT_EQ(pool.freeBlocks(), 11u);
    // No block is in two tables, and the tables are scattered, not the pool's first blocks in order.
    std::set<std::uint32_t> all(a.begin(), a.end());
    all.insert(b.begin(), b.end());
    EXPECT_EQ(all.size(), 5u);
    EXPECT_NE(a, (std::vector<std::uint32_t>{0, 1}));

    pool.beginStep("decode-0");
    const auto a2 = copyOf(pool.hold(7, 3)); // its context crossed into a third block
    const auto b2 = copyOf(pool.hold(9, 3));
    pool.endStep();
    EXPECT_EQ(std::vector<std::uint32_t>(a2.begin(), a2.begin() + 2), a);
    EXPECT_EQ(b2, b);
    EXPECT_FALSE(all.count(a2[2]));
    EXPECT_EQ(pool.freeBlocks(), 10u);
    EXPECT_EQ(pool.sharedBlocks(), 0u);
}

TEST(SequenceBlocks, ASequenceThatLeavesTheBatchGivesItsBlocksBackToTheNextOneNotToOtherInstances)
{
    SequenceBlocks pool(8, 2);
    pool.beginStep("decode-0");
    const auto a = copyOf(pool.hold(1, 3));
    pool.endStep();
    pool.beginStep("decode-1"); // another instance on the same node: its step does not release decode-0's sequence
    const auto other = copyOf(pool.hold(2, 1));
    pool.endStep();
    EXPECT_EQ(pool.freeBlocks(), 4u);

    pool.beginStep("decode-0"); // sequence 1 finished: a new one joins
    // Before the step ends, the blocks the free list hands out next are none of the held ones: a stale read's bytes.
    const auto fresh = copyOf(pool.hold(3, 2));
    pool.endStep();
    EXPECT_EQ(pool.freeBlocks(), 5u); // 8 - (2 of sequence 3) - (1 of sequence 2)
    for (std::size_t i = 0; i < pool.freeBlocks(); ++i) {
        EXPECT_EQ(std::count(fresh.begin(), fresh.end(), pool.unheld(i)), 0);
        EXPECT_NE(pool.unheld(i), other[0]);
    }
    // The most recently freed blocks go out first, as a block just released is the next one a pool reuses.
    pool.beginStep("decode-0");
    pool.hold(3, 2);
    const auto next = copyOf(pool.hold(4, 1));
    pool.endStep();
    EXPECT_NE(std::find(a.begin(), a.end(), next[0]), a.end());
}

TEST(SequenceBlocks, AFullPoolSharesBlocksAndCountsThem)
{
    SequenceBlocks pool(4, 3);
    pool.beginStep("d");
    const auto a = copyOf(pool.hold(1, 3));
    const auto b = copyOf(pool.hold(2, 3)); // one free block, then two shared
    pool.endStep();
    EXPECT_EQ(pool.freeBlocks(), 0u);
    EXPECT_EQ(pool.sharedBlocks(), 2u);
    for (const std::uint32_t block : b)
        EXPECT_LT(block, 4u);
    // A shrinking table gives back only the blocks it took from the free list.
    pool.beginStep("d");
    pool.hold(1, 3);
    pool.hold(2, 1);
    pool.endStep();
    EXPECT_EQ(pool.freeBlocks(), 0u);
    pool.beginStep("d");
    pool.hold(2, 1);
    pool.endStep(); // sequence 1 left: its three blocks are free again
    EXPECT_EQ(pool.freeBlocks(), 3u);
}

} // namespace
} // namespace coh::test
