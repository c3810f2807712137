// MESI: a read nobody else caches is granted Exclusive; the later store upgrades silently; E blocks are
// forwarded to the owner like M blocks, and evicted with a data-less PutE.
#include "protocol_test_util.h"

namespace coh::test {
namespace {

using Strings = std::vector<std::string>;

TEST(ProtocolMesi, ReadWithNoSharersIsGrantedExclusive)
{
    const auto steps = opSteps(runOps("mesi-directory", 3, "P0:R"), 0);
    EXPECT_EQ(sentBy(steps), (Strings{"GetS P0->Dir", "Exclusive-Data Dir->P0"}));
    EXPECT_EQ(cacheState(steps.back(), 0), "E");
    EXPECT_EQ(steps.back().directory.state, "E");
    EXPECT_EQ(steps.back().directory.owner, "P0");
}

TEST(ProtocolMesi, StoreInEIsASilentUpgrade)
{
    const auto steps = opSteps(runOps("mesi-directory", 3, "P0:R,P0:W"), 1);
    ASSERT_EQ(steps.size(), 1u); // the op itself, no message at all
    EXPECT_TRUE(sentBy(steps).empty());
    EXPECT_EQ(steps[0].fromState, "E");
    EXPECT_EQ(steps[0].toState, "M");
    EXPECT_EQ(*steps[0].stored, 1);
    EXPECT_EQ(steps[0].directory.state, "E"); // the directory never hears of it
}

TEST(ProtocolMesi, ReadOfAnExclusiveBlockIsForwardedToTheOwner)
{
    const auto steps = opSteps(runOps("mesi-directory", 3, "P0:R,P0:W,P1:R"), 2);
    EXPECT_EQ(sentBy(steps), (Strings{"GetS P1->Dir", "Fwd-GetS Dir->P0", "Data P0->P1", "Data P0->Dir"}));
    EXPECT_EQ(directoryStates(steps), (Strings{"E", "S^D", "S"}));
    EXPECT_EQ(cacheState(steps.back(), 0), "S");
    EXPECT_EQ(cacheState(steps.back(), 1), "S");
    EXPECT_EQ(*steps[3].loaded, 1); // the silently written value, from the owner
}

TEST(ProtocolMesi, ThirdReaderOfASharedBlockGetsSharedDataFromMemory)
{
    const auto steps = opSteps(runOps("mesi-directory", 3, "P0:R,P1:R,P2:R"), 2);
    EXPECT_EQ(sentBy(steps), (Strings{"GetS P2->Dir", "Data Dir->P2"}));
    EXPECT_EQ(cacheState(steps.back(), 2), "S");
}

TEST(ProtocolMesi, EvictingACleanExclusiveCopySendsPutEWithoutData)
{
    const auto steps = opSteps(runOps("mesi-directory", 2, "P0:R,P0:E"), 1);
    EXPECT_EQ(sentBy(steps), (Strings{"PutE P0->Dir", "Put-Ack Dir->P0"}));
    EXPECT_FALSE(steps[0].sent[0].data.has_value());
    EXPECT_EQ(steps.back().directory.state, "I");
    EXPECT_EQ(cacheState(steps.back(), 0), "I");
}

TEST(ProtocolMesi, EvictingAfterASilentUpgradeWritesBack)
{
    const auto steps = opSteps(runOps("mesi-directory", 2, "P0:R,P0:W,P0:E"), 2);
    EXPECT_EQ(sentBy(steps), (Strings{"PutM P0->Dir", "Put-Ack Dir->P0"}));
    EXPECT_EQ(steps.back().directory.memory, 1);
}

} // namespace
} // namespace coh::test
