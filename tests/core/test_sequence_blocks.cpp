// Each decode sequence's own blocks in a node's K/V pool (core/real/sequence_blocks.h).
#include "core/real/sequence_blocks.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <set>
#include <vector>

namespace coh::test {
namespace {

using core::BlockStamp;
using core::kFreeBlock;
using core::KvRowWrite;
using core::real::ReadFault;
using core::real::SequenceBlocks;
using Blocks = std::vector<std::uint32_t>;
using Writes = std::vector<KvRowWrite>;

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
    SequenceBlocks pool(16, 1, 1);
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
    SequenceBlocks full(4, 1, 2);
    full.beginStep("decode-0", Blocks{1});
    const Blocks a = copyOf(full.hold(1, 4));
    full.beginStep("decode-0", Blocks{3});
    const Blocks c = copyOf(full.hold(3, 2));
    EXPECT_EQ(full.sharedBlocks(), 0u);
    EXPECT_EQ(full.freeBlocks(), 2u);
    for (const std::uint32_t block : c)
        EXPECT_TRUE(contains(a, block));

    SequenceBlocks pool(8, 1, 2);
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
    SequenceBlocks pool(4, 1, 3);
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

TEST(SequenceBlocks, APoolThatGrowsHandsOutItsNewBlocksOnceTheFreeOnesRunOutAndLendsNone)
{
    SequenceBlocks pool(4, 1, 3);
    pool.beginStep("d", Blocks{1, 2});
    // Sequence 1 needs 3 blocks and 2 needs 3: two more than the 4 free.
    EXPECT_EQ(pool.shortfall(Blocks{1, 2}, Blocks{3, 3}), 2u);
    EXPECT_EQ(pool.shortfall(Blocks{1}, Blocks{4}), 0u);
    pool.grow(8);
    EXPECT_EQ(pool.poolBlocks(), 8u);
    EXPECT_EQ(pool.freeBlocks(), 8u);
    EXPECT_EQ(pool.shortfall(Blocks{1, 2}, Blocks{3, 3}), 0u);
    // The four blocks free before come first, then the new ones: every block is held alone.
    const Blocks a = copyOf(pool.hold(1, 3));
    const Blocks b = copyOf(pool.hold(2, 3));
    for (const std::uint32_t block : a)
        EXPECT_LT(block, 4u);
    EXPECT_LT(b[0], 4u);
    EXPECT_GE(b[1], 4u);
    EXPECT_GE(b[2], 4u);
    EXPECT_EQ(pool.sharedBlocks(), 0u);
    const auto toCheck = pool.blocksToCheck(Blocks{1, 2});
    EXPECT_EQ(toCheck.size(), 6u);
    // A later step counts only the blocks a table does not hold yet; a shrinking pool is no pool at all.
    pool.beginStep("d", Blocks{1, 2});
    EXPECT_EQ(pool.shortfall(Blocks{1, 2}, Blocks{4, 5}), 1u);
    pool.grow(6);
    EXPECT_EQ(pool.poolBlocks(), 8u);
}

Writes writesOf(SequenceBlocks& pool)
{
    const auto w = pool.writes();
    return {w.begin(), w.end()};
}

// The stamps a pool holds once `writes` landed on top of `stamps` (a seal made up from the write: no rows here).
void land(std::vector<BlockStamp>& stamps, const Writes& writes)
{
    for (const KvRowWrite& w : writes)
        stamps[w.block] = {w.sequence, w.toRow, stamps[w.block].version + 1,
                           w.sequence == kFreeBlock ? 0 : w.sequence * 1000 + w.toRow};
}

// The step's reads checked against `stamps`, every block's rows adding up to its seal as they do until something
// changes them, except `changed`'s.
core::real::BlockReadCheck checkReads(SequenceBlocks& pool, const Blocks& batch, const std::vector<BlockStamp>& stamps,
                                      std::optional<std::uint32_t> changed = {})
{
    Blocks sums;
    for (const std::uint32_t block : pool.blocksToCheck(batch))
        sums.push_back(stamps[block].checksum + (block == changed ? 1 : 0));
    return pool.checkReads(batch, stamps, sums);
}

bool sameWrite(const KvRowWrite& a, const KvRowWrite& b)
{
    return a.block == b.block && a.sequence == b.sequence && a.firstToken == b.firstToken && a.fromRow == b.fromRow &&
           a.toRow == b.toRow;
}

TEST(SequenceBlocks, ASequenceWritesItsContextWhenItTakesItsBlocksAndOneRowPerAppend)
{
    SequenceBlocks pool(16, 4, 1); // blocks of 4 tokens
    std::vector<BlockStamp> stamps(16);
    pool.beginStep("d", Blocks{7});
    const Blocks a = copyOf(pool.hold(7, 6));
    Writes w = writesOf(pool);
    ASSERT_EQ(w.size(), 2u);
    EXPECT_TRUE(sameWrite(w[0], {a[0], 7, 0, 0, 4}));
    EXPECT_TRUE(sameWrite(w[1], {a[1], 7, 4, 0, 2}));
    EXPECT_EQ(pool.rowsWritten(), 6u);
    EXPECT_EQ(pool.rowsAppended(), 0u);
    land(stamps, w);
    EXPECT_EQ(checkReads(pool, Blocks{7}, stamps).checked, 2u);
    EXPECT_FALSE(checkReads(pool, Blocks{7}, stamps).bad);

    pool.beginStep("d", Blocks{7});
    pool.hold(7, 7); // one token more: one row appended into its second block
    w = writesOf(pool);
    ASSERT_EQ(w.size(), 1u);
    EXPECT_TRUE(sameWrite(w[0], {a[1], 7, 4, 2, 3}));
    land(stamps, w);

    pool.beginStep("d", Blocks{7});
    const Blocks a3 = copyOf(pool.hold(7, 9)); // two more: the second block's last row and a new block's first
    w = writesOf(pool);
    ASSERT_EQ(w.size(), 2u);
    EXPECT_TRUE(sameWrite(w[0], {a[1], 7, 4, 3, 4}));
    EXPECT_TRUE(sameWrite(w[1], {a3[2], 7, 8, 0, 1}));
    EXPECT_EQ(pool.rowsWritten(), 9u);
    EXPECT_EQ(pool.rowsAppended(), 3u);
    land(stamps, w);
    const auto check = checkReads(pool, Blocks{7}, stamps);
    EXPECT_EQ(check.checked, 3u);
    EXPECT_FALSE(check.bad);

    // Cut back within its second block: only the stamp changes, to the rows still the sequence's.
    pool.beginStep("d", Blocks{7});
    pool.hold(7, 6);
    w = writesOf(pool);
    ASSERT_EQ(w.size(), 2u);
    EXPECT_TRUE(sameWrite(w[0], {a3[2], kFreeBlock, 0, 0, 0}));
    EXPECT_TRUE(sameWrite(w[1], {a[1], 7, 4, 2, 2}));
    land(stamps, w);
    EXPECT_FALSE(checkReads(pool, Blocks{7}, stamps).bad);
}

TEST(SequenceBlocks, ABlockGivenBackIsStampedFreedUnlessTheSequenceThatTakesItWritesItInTheSameStep)
{
    SequenceBlocks pool(4, 2, 2);
    pool.beginStep("d", Blocks{1});
    const Blocks a = copyOf(pool.hold(1, 8)); // the whole pool
    pool.writes();
    pool.beginStep("d", Blocks{3}); // sequence 1 leaves, sequence 3 takes two of its blocks for 3 tokens
    const Blocks c = copyOf(pool.hold(3, 3));
    const Writes w = writesOf(pool);
    ASSERT_EQ(w.size(), 4u);
    std::uint32_t freed = 0;
    for (const KvRowWrite& x : w) {
        if (x.sequence == kFreeBlock) {
            ++freed;
            EXPECT_FALSE(contains(c, x.block));
        } else {
            EXPECT_EQ(x.sequence, 3u);
            EXPECT_TRUE(contains(c, x.block));
            EXPECT_TRUE(contains(a, x.block));
        }
    }
    EXPECT_EQ(freed, 2u);
}

TEST(SequenceBlocks, EveryReadOfABlockHeldAloneChecksItsStampAndNamesWhatIsWrong)
{
    SequenceBlocks pool(8, 4, 3);
    std::vector<BlockStamp> stamps(8);
    pool.beginStep("d", Blocks{1, 2});
    const Blocks a = copyOf(pool.hold(1, 10));
    const Blocks b = copyOf(pool.hold(2, 4));
    land(stamps, writesOf(pool));
    ASSERT_FALSE(checkReads(pool, Blocks{1, 2}, stamps).bad);

    const auto badRead = [&](std::uint32_t block, BlockStamp found) {
        std::vector<BlockStamp> wrong = stamps;
        wrong[block] = found;
        const auto check = checkReads(pool, Blocks{1, 2}, wrong);
        EXPECT_EQ(check.checked, 4u);
        return check.bad ? core::real::describeBadRead(*check.bad) : std::string("passed");
    };
    EXPECT_EQ(badRead(a[1], {kFreeBlock, 0}),
              fmt::format("sequence 1's block 1 (pool block {}) holds no sequence's tokens: it was freed while the "
                          "table still names it (a read after free), or its first write never landed",
                          a[1]));
    EXPECT_NE(badRead(b[0], {1, 4})
                  .find("sequence 2's block 0 (pool block " + std::to_string(b[0]) + ") holds sequence 1's tokens"),
              std::string::npos);
    EXPECT_NE(badRead(a[2], {1, 1}).find("holds 1 of its 2 tokens: a write that never landed (a lost append)"),
              std::string::npos);
    EXPECT_NE(badRead(a[0], {1, 3}).find("holds 3 of its 4 tokens"), std::string::npos);
    // The version tells a write that never landed, or one no table made, where the rows alone cannot.
    const BlockStamp held = stamps[a[0]];
    EXPECT_NE(badRead(a[0], {1, 4, held.version - 1, held.checksum})
                  .find("holds its 4 tokens at version 0, not the 1 its writes made: a later write never landed (a "
                        "lost write)"),
              std::string::npos);
    EXPECT_NE(badRead(a[0], {1, 4, held.version + 1, held.checksum})
                  .find("at version 2, past the 1 its writes made: a write its table never made landed in it"),
              std::string::npos);
    // A step's writes asked for twice count one version.
    writesOf(pool);
    EXPECT_FALSE(checkReads(pool, Blocks{1, 2}, stamps).bad);
    // Stamp and tokens right, but the rows no longer add up to the seal: changed in memory since they were written.
    const auto changed = checkReads(pool, Blocks{1, 2}, stamps, a[1]);
    ASSERT_TRUE(changed.bad);
    EXPECT_EQ(
        core::real::describeBadRead(*changed.bad),
        fmt::format("sequence 1's block 1 (pool block {}) holds its 4 tokens, but their rows no longer add up to "
                    "the checksum sealed when they were written ({:#010x} sealed, {:#010x} held): they changed in "
                    "memory since (a stray write or a flipped bit)",
                    a[1], 1004, 1005));

    // A borrowed block is read as it is: the full pool lends sequence 3 a block, which it neither writes nor checks.
    pool.beginStep("d", Blocks{1, 2, 3});
    pool.hold(1, 10);
    pool.hold(2, 4);
    pool.hold(3, 20); // the 4 free blocks, then one borrowed
    const Writes w = writesOf(pool);
    EXPECT_EQ(w.size(), 4u);
    land(stamps, w);
    const auto check = checkReads(pool, Blocks{1, 2, 3}, stamps);
    EXPECT_EQ(check.checked, 8u);
    EXPECT_EQ(check.borrowed, 1u);
    EXPECT_FALSE(check.bad);
    EXPECT_EQ(pool.sharedBlocks(), 1u);
    EXPECT_EQ(pool.peakHeldBlocks(), 9u); // 3 + 1 + 5: a pool of 9 blocks would have lent none
}

TEST(SequenceBlocks, ABorrowedBlockIsWrittenAgainAndCheckedOnceItsLenderGivesItBack)
{
    SequenceBlocks pool(2, 4, 6);
    std::vector<BlockStamp> stamps(2);
    pool.beginStep("d", Blocks{1, 2});
    const Blocks lender = copyOf(pool.hold(1, 8)); // the whole pool
    const Blocks borrower = copyOf(pool.hold(2, 3));
    ASSERT_EQ(pool.sharedBlocks(), 1u);
    ASSERT_TRUE(contains(lender, borrower[0]));
    land(stamps, writesOf(pool));
    auto check = checkReads(pool, Blocks{1, 2}, stamps);
    EXPECT_EQ(check.checked, 2u);
    EXPECT_EQ(check.borrowed, 1u);

    // Sequence 1 leaves: its other block is freed, and sequence 2 now holds the one it borrowed alone. Its three rows
    // there are written again, joined with the row it appends this step.
    pool.beginStep("d", Blocks{2});
    pool.hold(2, 4);
    const Writes w = writesOf(pool);
    ASSERT_EQ(w.size(), 2u);
    const std::uint32_t other = lender[0] == borrower[0] ? lender[1] : lender[0];
    for (const KvRowWrite& x : w) {
        if (x.block == borrower[0])
            EXPECT_TRUE(sameWrite(x, {borrower[0], 2, 0, 0, 4}));
        else
            EXPECT_TRUE(sameWrite(x, {other, kFreeBlock, 0, 0, 0}));
    }
    land(stamps, w);
    check = checkReads(pool, Blocks{2}, stamps);
    EXPECT_EQ(check.checked, 1u);
    EXPECT_EQ(check.borrowed, 0u);
    EXPECT_FALSE(check.bad);
    EXPECT_EQ(pool.rowsWritten(), 8u + 4);
    EXPECT_EQ(pool.freeBlocks(), 1u);

    // Held alone and cut back in the same step: its rows are written again up to the cut, and the stamp says so.
    SequenceBlocks cut(2, 4, 6);
    cut.beginStep("d", Blocks{1, 2});
    cut.hold(1, 8);
    const Blocks b = copyOf(cut.hold(2, 3));
    cut.writes();
    cut.beginStep("d", Blocks{2});
    cut.hold(2, 2);
    const Writes c = writesOf(cut);
    const auto it = std::find_if(c.begin(), c.end(), [&](const KvRowWrite& x) { return x.block == b[0]; });
    ASSERT_NE(it, c.end());
    EXPECT_TRUE(sameWrite(*it, {b[0], 2, 0, 0, 2}));
}

TEST(SequenceBlocks, AnInjectedFaultChangesTheStepsWritesAsTheBugWould)
{
    SequenceBlocks pool(8, 4, 4);
    pool.beginStep("d", Blocks{5});
    const Blocks a = copyOf(pool.hold(5, 6));
    // A first step appends nothing, so a lost append waits; a freed block frees the step's first sequence's first.
    EXPECT_FALSE(pool.injectFault(ReadFault::LostAppend));
    EXPECT_TRUE(pool.injectFault(ReadFault::FreedBlock));
    Writes w = writesOf(pool);
    ASSERT_EQ(w.size(), 2u);
    EXPECT_TRUE(sameWrite(w[0], {a[0], kFreeBlock, 0, 0, 0}));
    EXPECT_TRUE(sameWrite(w[1], {a[1], 5, 4, 0, 2}));

    pool.beginStep("d", Blocks{5});
    pool.hold(5, 7);
    EXPECT_TRUE(pool.injectFault(ReadFault::LostAppend));
    EXPECT_TRUE(writesOf(pool).empty());
    // A corrupted row leaves the writes as they are and names the first block with rows to change once they land.
    pool.beginStep("d", Blocks{5});
    pool.hold(5, 8);
    EXPECT_FALSE(pool.corruptedBlock());
    EXPECT_TRUE(pool.injectFault(ReadFault::CorruptedRow));
    EXPECT_EQ(pool.corruptedBlock(), a[0]);
    EXPECT_EQ(writesOf(pool).size(), 1u);
    pool.beginStep("d", Blocks{5});
    EXPECT_FALSE(pool.corruptedBlock());
    // A step whose sequences borrow every block they read has nothing a freed block could play on.
    SequenceBlocks full(1, 4, 5);
    full.beginStep("d", Blocks{1, 2});
    full.hold(1, 4);
    full.beginStep("e", Blocks{2});
    full.hold(2, 4);
    EXPECT_FALSE(full.injectFault(ReadFault::FreedBlock));
}

} // namespace
} // namespace coh::test
