// MOESI: a read of a dirty block moves the owner to O without a write-back; the O owner keeps serving reads and
// hands the data to the next writer; an owner's own upgrade needs only an AckCount and the sharers' acks.
#include "protocol_test_util.h"

namespace coh::test {
namespace {

using Strings = std::vector<std::string>;

TEST(ProtocolMoesi, ReadOfAModifiedBlockMovesTheOwnerToOWithoutWriteBack)
{
    const auto steps = opSteps(runOps("moesi-directory", 3, "P0:W,P1:R"), 1);
    // Three messages and no Data to the directory: that is the point of O.
    EXPECT_EQ(sentBy(steps), (Strings{"GetS P1->Dir", "Fwd-GetS Dir->P0", "Data P0->P1"}));
    const co::StepRecord& last = steps.back();
    EXPECT_EQ(cacheState(last, 0), "O");
    EXPECT_EQ(cacheState(last, 1), "S");
    EXPECT_EQ(last.directory.state, "O");
    EXPECT_EQ(last.directory.owner, "P0");
    EXPECT_EQ(last.directory.sharers, (Strings{"P1"}));
    EXPECT_EQ(last.directory.memory, 0); // stale, and that is fine: the owner holds value 1
    EXPECT_EQ(*steps.back().loaded, 1);
}

TEST(ProtocolMoesi, AWriteByAnotherCacheGetsTheDataFromTheOwner)
{
    const auto steps = opSteps(runOps("moesi-directory", 3, "P0:W,P1:R,P2:W"), 2);
    EXPECT_EQ(sentBy(steps), (Strings{"GetM P2->Dir", "Fwd-GetM Dir->P0 acks=1", "Inv Dir->P1", "Data P0->P2 acks=1",
                                      "Inv-Ack P1->P2"}));
    const co::StepRecord& last = steps.back();
    EXPECT_EQ(cacheState(last, 0), "I");
    EXPECT_EQ(cacheState(last, 1), "I");
    EXPECT_EQ(cacheState(last, 2), "M");
    EXPECT_EQ(last.directory.owner, "P2");
    EXPECT_EQ(last.directory.memory, 0); // still never written back
}

TEST(ProtocolMoesi, TheOwnersUpgradeNeedsNoData)
{
    const auto steps = opSteps(runOps("moesi-directory", 3, "P0:W,P1:R,P0:W"), 2);
    EXPECT_EQ(sentBy(steps), (Strings{"GetM P0->Dir", "AckCount Dir->P0 acks=1", "Inv Dir->P1", "Inv-Ack P1->P0"}));
    EXPECT_EQ(steps[0].toState, "OM^AC");
    EXPECT_EQ(cacheState(steps.back(), 0), "M");
    ASSERT_TRUE(steps.back().stored.has_value());
    EXPECT_EQ(*steps.back().stored, 2);
}

TEST(ProtocolMoesi, EvictingTheOwnerWritesBackAndLeavesTheSharers)
{
    const auto steps = opSteps(runOps("moesi-directory", 3, "P0:W,P1:R,P0:E"), 2);
    EXPECT_EQ(sentBy(steps), (Strings{"PutO P0->Dir", "Put-Ack Dir->P0"}));
    EXPECT_EQ(steps.back().directory.state, "S");
    EXPECT_EQ(steps.back().directory.memory, 1);
    EXPECT_EQ(cacheState(steps.back(), 1), "S");
}

TEST(ProtocolMoesi, ReadOfAnExclusiveBlockAlsoKeepsTheOwner)
{
    const auto steps = opSteps(runOps("moesi-directory", 2, "P0:R,P1:R"), 1);
    EXPECT_EQ(sentBy(steps), (Strings{"GetS P1->Dir", "Fwd-GetS Dir->P0", "Data P0->P1"}));
    EXPECT_EQ(cacheState(steps.back(), 0), "O");
}

} // namespace
} // namespace coh::test
