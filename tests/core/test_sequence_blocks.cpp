// Each decode sequence's own blocks in a node's K/V pool (core/real/sequence_blocks.h).
#include "core/real/sequence_blocks.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <vector>

namespace coh::test {
namespace {

using core::real::SequenceBlocks;
using Blocks = std::vector<std::uint32_t>;

Blocks copyOf(std::span<const std::uint32_t> s)
{
    return {s.begin(), s.end()};
}

bool contains(const Blocks& blocks, std::uint32_t block)
{
    return std::find(blocks.begin(), blocks.end(), block) != blocks.end();
}

TEST(SequenceBlocks, ASequenceReadsTheSameBlocksEveryStepAndGrowsByNewOnes)
{
    SequenceBlocks pool(16, 1);
    const Blocks batch{7, 9};
    pool.beginStep("decode-0", batch);
    const Blocks a = copyOf(pool.hold(7, 2));
    const Blocks b = copyOf(pool.hold(9, 3));
    EXPECT_EQ(pool.freeBlocks(), 11u);
    // No block is in two tables, and the tables are scattered, not the pool's first blocks in order.
    std::set<std::uint32_t> all(a.begin(), a.end());
    all.insert(b.begin(), b.end());
    EXPECT_EQ(all.size(), 5u);
    EXPECT_NE(a, (Blocks{0, 1}));

    pool.beginStep("decode-0", batch);
    const Blocks a2 = copyOf(pool.hold(7, 3)); // its context crossed into a third block
    const Blocks b2 = copyOf(pool.hold(9, 3));
    EXPECT_EQ(Blocks(a2.begin(), a2.begin() + 2), a);
    EXPECT_EQ(b2, b);
    EXPECT_FALSE(all.count(a2[2]));
    EXPECT_EQ(pool.freeBlocks(), 10u);
    EXPECT_EQ(pool.sharedBlocks(), 0u);
}

TEST(SequenceBlocks, ASequenceThatLeavesTheBatchGivesItsBlocksToTheOneThatJoinsNotToOtherInstances)
{
    // A full pool: the sequence that leaves gives its blocks back before the one that joins takes any, so nothing is
    // shared.
    SequenceBlocks full(4, 2);
    full.beginStep("decode-0", Blocks{1});
    const Blocks a = copyOf(full.hold(1, 4));
    full.beginStep("decode-0", Blocks{3});
    const Blocks c = copyOf(full.hold(3, 2));
    EXPECT_EQ(full.sharedBlocks(), 0u);
    EXPECT_EQ(full.freeBlocks(), 2u);
    for (const std::uint32_t block : c)
        EXPECT_TRUE(contains(a, block));

    SequenceBlocks pool(8, 2);
    pool.beginStep("decode-0", Blocks{1});
    const Blocks first = copyOf(pool.hold(1, 3));
    pool.beginStep("decode-1", Blocks{2}); // another instance on the same node: its step keeps decode-0's sequence
    const Blocks other = copyOf(pool.hold(2, 1));
    EXPECT_EQ(pool.freeBlocks(), 4u);
    pool.beginStep("decode-0", Blocks{3}); // sequence 1 finished, sequence 3 joins: the most recently freed go first
    const Blocks joined = copyOf(pool.hold(3, 2));
    EXPECT_EQ(pool.freeBlocks(), 5u);
    for (const std::uint32_t block : joined)
        EXPECT_TRUE(contains(first, block));
    // The blocks the free list hands out next are none of the held ones: a stale read's bytes are a freed block's.
    for (std::size_t i = 0; i < pool.freeBlocks(); ++i) {
        EXPECT_FALSE(contains(joined, pool.unheld(i)));
        EXPECT_NE(pool.unheld(i), other[0]);
    }
}

TEST(SequenceBlocks, AFullPoolSharesBlocksCountsThemAndFreesABlockOnlyWhenNoTableHoldsIt)
{
    SequenceBlocks pool(4, 3);
    pool.beginStep("d", Blocks{1, 2});
    const Blocks a = copyOf(pool.hold(1, 3));
    const Blocks b = copyOf(pool.hold(2, 3)); // the one free block, then two shared
    EXPECT_EQ(pool.freeBlocks(), 0u);
    EXPECT_EQ(pool.sharedBlocks(), 2u);
    // Sequence 1 leaves: of its blocks, only those sequence 2 does not share come free.
    pool.beginStep("d", Blocks{2, 3});
    pool.hold(2, 3);
    const auto notShared = static_cast<std::uint32_t>(
        std::count_if(a.begin(), a.end(), [&](std::uint32_t block) { return !contains(b, block); }));
    EXPECT_EQ(pool.freeBlocks(), notShared);
    // The sequence that joins takes those, none of sequence 2's, and shares only once they run out.
    const Blocks c = copyOf(pool.hold(3, notShared));
    for (const std::uint32_t block : c)
        EXPECT_FALSE(contains(b, block));
    EXPECT_EQ(pool.sharedBlocks(), 2u);
    // A shrinking table gives back what it alone held; everyone leaving frees the whole pool.
    pool.beginStep("d", Blocks{});
    EXPECT_EQ(pool.freeBlocks(), 4u);
}

} // namespace
} // namespace coh::test
