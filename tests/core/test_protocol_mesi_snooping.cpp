// MESI snooping: every bus request is broadcast to all other caches, each of which answers the requestor; memory
// supplies the data unless an owner flushes it. Compared with the MESI directory on the same ops, it sends more,
// and the gap grows with the number of caches.
#include "protocol_test_util.h"

#include "core/coherence/explorer.h"

namespace coh::test {
namespace {

using Strings = std::vector<std::string>;

std::size_t messageCount(const co::LabRun& run)
{
    std::size_t n = 0;
    for (const co::StepRecord& s : run.steps)
        n += s.sent.size();
    return n;
}

TEST(ProtocolMesiSnooping, ReadFromIReachesEveryOtherCacheAndEndsExclusive)
{
    const auto steps = opSteps(runOps("mesi-snooping", 3, "P0:R"), 0);
    EXPECT_EQ(sentBy(steps), (Strings{"BusRd P0->Dir", "Exclusive-Data Dir->P0 acks=2", "Snoop-Rd Dir->P1",
                                      "Snoop-Rd Dir->P2", "Snoop-Ack P1->P0", "Snoop-Ack P2->P0", "Unblock P0->Dir"}));
    EXPECT_EQ(cacheState(steps.back(), 0), "E");
    EXPECT_EQ(cacheState(steps.back(), 1), "I");
    EXPECT_EQ(cacheState(steps.back(), 2), "I");
    EXPECT_EQ(steps.back().directory.state, "EM");
    EXPECT_EQ(steps.back().directory.owner, "P0");
}

TEST(ProtocolMesiSnooping, ReadOfAnExclusiveBlockIsFlushedByTheOwnerAndBothShare)
{
    const auto steps = opSteps(runOps("mesi-snooping", 3, "P0:R,P1:R"), 1);
    EXPECT_EQ(sentBy(steps),
              (Strings{"BusRd P1->Dir", "Snoop-Rd Dir->P0 acks=2", "Snoop-Rd Dir->P2 acks=2", "Flush P0->P1 acks=2",
                       "Flush P0->Dir", "Snoop-Ack P0->P1", "Snoop-Ack P2->P1", "Unblock P1->Dir"}));
    EXPECT_EQ(cacheState(steps.back(), 0), "S");
    EXPECT_EQ(cacheState(steps.back(), 1), "S");
    EXPECT_EQ(steps.back().directory.state, "S");
}

TEST(ProtocolMesiSnooping, UpgradeInvalidatesEveryOtherCacheWithoutMovingData)
{
    const auto steps = opSteps(runOps("mesi-snooping", 3, "P0:R,P1:R,P1:W"), 2);
    EXPECT_EQ(sentBy(steps), (Strings{"BusUpgr P1->Dir", "Upgr-Ack Dir->P1 acks=2", "Snoop-Upgr Dir->P0",
                                      "Snoop-Upgr Dir->P2", "Snoop-Ack P0->P1", "Snoop-Ack P2->P1",
                                      "Unblock P1->Dir"}));
    EXPECT_EQ(cacheState(steps.back(), 0), "I");
    EXPECT_EQ(cacheState(steps.back(), 1), "M");
    EXPECT_EQ(cacheState(steps.back(), 2), "I");
    // P1 stores when the last snoop answer arrives; its Unblock to the directory is the op's last step.
    ASSERT_GE(steps.size(), 2u);
    ASSERT_TRUE(steps[steps.size() - 2].stored.has_value());
    EXPECT_EQ(*steps[steps.size() - 2].stored, 1);
    EXPECT_FALSE(steps.back().stored.has_value());
    EXPECT_EQ(steps.back().directory.owner, "P1");
}

TEST(ProtocolMesiSnooping, SendsMoreThanTheMesiDirectoryAndTheGapGrowsWithTheCaches)
{
    const std::string ops = "P0:R,P1:R,P1:W";
    // MESI directory: GetS + Exclusive-Data; GetS, Fwd-GetS, Data to P1 and Dir; GetM, Data, Inv, Inv-Ack.
    EXPECT_EQ(messageCount(runOps("mesi-directory", 3, ops)), 2u + 4u + 4u);
    EXPECT_EQ(messageCount(runOps("mesi-directory", 5, ops)), 2u + 4u + 4u);
    // Snooping: 7 + 8 + 7 at 3 caches; each extra cache adds a snoop and an answer to every transaction.
    EXPECT_EQ(messageCount(runOps("mesi-snooping", 3, ops)), 7u + 8u + 7u);
    EXPECT_EQ(messageCount(runOps("mesi-snooping", 5, ops)), 7u + 8u + 7u + 3u * 2u * 2u);
}

TEST(ProtocolMesiSnooping, StoreInEIsSilentAndSharedCopiesAreDroppedSilently)
{
    const auto store = opSteps(runOps("mesi-snooping", 3, "P0:R,P0:W"), 1);
    ASSERT_EQ(store.size(), 1u);
    EXPECT_TRUE(sentBy(store).empty());
    EXPECT_EQ(store[0].toState, "M");
    const auto evict = opSteps(runOps("mesi-snooping", 3, "P0:R,P1:R,P1:E"), 2);
    ASSERT_EQ(evict.size(), 1u);
    EXPECT_TRUE(sentBy(evict).empty());
    EXPECT_EQ(cacheState(evict.back(), 1), "I");
    EXPECT_EQ(evict.back().directory.state, "S"); // the bus is never told
}

TEST(ProtocolMesiSnooping, TheCheckerExercisesEveryTransitionWithNoViolation)
{
    co::ExplorerOptions options;
    options.caches = 3;
    const co::ExplorerResult r = co::explore(co::findProtocol("mesi-snooping"), options);
    EXPECT_TRUE(r.complete);
    EXPECT_EQ(r.violation, co::Violation::None) << r.description;
    EXPECT_TRUE(r.unexercised.empty());
    EXPECT_EQ(r.states, 88858u); // regression figures, as in the explorer tests
    options.caches = 2;
    EXPECT_EQ(co::explore(co::findProtocol("mesi-snooping"), options).states, 2248u);
}

} // namespace
} // namespace coh::test
