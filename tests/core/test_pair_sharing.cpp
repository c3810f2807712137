// When a real backend's copies land in simulated time: a pair's copies in flight share it equally, as the simulator's
// link shares its bandwidth (docs/real-backend.md#copies-of-one-pair-share-it).
#include "core/real/pair_sharing.h"

#include <gtest/gtest.h>

#include <vector>

using namespace coh::core;

TEST(PairSharing, CopiesInFlightShareTheirPairEquallyAndOtherPairsOverlap)
{
    real::PairSharing pairs;
    std::vector<real::PairSharing::Landed> landed;
    real::PairSharing::Wake next;
    // Alone, a copy lands at its send time plus its own time.
    real::PairSharing::Wake wake = pairs.add(0, 1, 100, 50, 7);
    EXPECT_EQ(wake.at, 150);
    EXPECT_FALSE(pairs.land(wake, 150, landed, next));
    ASSERT_EQ(landed.size(), 1u);
    EXPECT_EQ(landed[0].token, 7u);
    EXPECT_EQ(landed[0].beyondOwn, 0);
    // A bulk copy of 100 ns at 200, a control message of 2 ns at 240: from then each goes at half speed, so the
    // message lands after 4 ns, not after the bulk copy, and the bulk copy 2 ns later than alone.
    landed.clear();
    const real::PairSharing::Wake bulk = pairs.add(0, 1, 200, 100, 1);
    EXPECT_EQ(bulk.at, 300);
    const real::PairSharing::Wake control = pairs.add(0, 1, 240, 2, 2);
    EXPECT_EQ(control.at, 244);
    // The other direction, another pair, another sender into the same receiver: each alone.
    EXPECT_EQ(pairs.add(1, 0, 240, 10, 3).at, 250);
    EXPECT_EQ(pairs.add(0, 2, 240, 10, 4).at, 250);
    EXPECT_EQ(pairs.add(2, 1, 240, 10, 5).at, 250);
    ASSERT_TRUE(pairs.land(control, 244, landed, next));
    ASSERT_EQ(landed.size(), 1u);
    EXPECT_EQ(landed[0].token, 2u);
    EXPECT_EQ(landed[0].beyondOwn, 2);
    EXPECT_EQ(next.at, 302);
    const real::PairSharing::Wake bulkLands = next;
    // The bulk copy's first wake was replaced: it lands nothing.
    landed.clear();
    EXPECT_FALSE(pairs.land(bulk, 300, landed, next));
    EXPECT_TRUE(landed.empty());
    EXPECT_FALSE(pairs.land(bulkLands, 302, landed, next));
    ASSERT_EQ(landed.size(), 1u);
    EXPECT_EQ(landed[0].token, 1u);
    EXPECT_EQ(landed[0].beyondOwn, 2);
    EXPECT_EQ(pairs.shared(), 2u);
    EXPECT_DOUBLE_EQ(pairs.beyondOwnNs(), 4.0);
}

TEST(PairSharing, CopiesSentTogetherLandInAllAfterTheSumOfTheirTimesTheShortestFirst)
{
    real::PairSharing pairs;
    std::vector<real::PairSharing::Landed> landed;
    real::PairSharing::Wake wake, next;
    pairs.add(4, 5, 0, 30, 1);
    pairs.add(4, 5, 0, 10, 2);
    wake = pairs.add(4, 5, 0, 30, 3);
    // Three in flight: the 10 ns copy lands at 30; the two of 30 share what is left, 20 each, and land together at 70.
    EXPECT_EQ(wake.at, 30);
    ASSERT_TRUE(pairs.land(wake, 30, landed, next));
    ASSERT_EQ(landed.size(), 1u);
    EXPECT_EQ(landed[0].token, 2u);
    EXPECT_EQ(next.at, 70);
    landed.clear();
    EXPECT_FALSE(pairs.land(next, 70, landed, next));
    ASSERT_EQ(landed.size(), 2u);
    EXPECT_EQ(landed[0].token, 1u); // in the order sent
    EXPECT_EQ(landed[1].token, 3u);
    EXPECT_EQ(landed[0].beyondOwn, 40);
    EXPECT_EQ(pairs.shared(), 3u);
    EXPECT_DOUBLE_EQ(pairs.beyondOwnNs(), 20.0 + 40 + 40);
}
