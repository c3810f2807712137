// Migratory sharing: a read of a dirty block moves it, writable, to the reader; the former owner invalidates
// itself and memory is not written. Contrasted with MSI, where the same read leaves two sharers and a write-back.
#include "protocol_test_util.h"

#include "core/coherence/explorer.h"

namespace coh::test {
namespace {

using Strings = std::vector<std::string>;

bool sentToDirectory(const std::vector<co::StepRecord>& steps, const std::string& kind)
{
    for (const std::string& m : sentBy(steps))
        if (m.rfind(kind + " ", 0) == 0 && m.find("->Dir") != std::string::npos)
            return true;
    return false;
}

TEST(ProtocolMigratory, ReadOfADirtyBlockMigratesItToTheReader)
{
    const co::LabRun run = runOps("migratory", 3, "P0:W,P1:R");
    const auto steps = opSteps(run, 1);
    EXPECT_EQ(sentBy(steps), (Strings{"GetS P1->Dir", "Fwd-GetS Dir->P0", "Migratory-Data P0->P1"}));
    EXPECT_FALSE(sentToDirectory(steps, "Data"));
    EXPECT_EQ(cacheState(steps.back(), 0), "I");
    EXPECT_EQ(cacheState(steps.back(), 1), "M");
    EXPECT_EQ(steps.back().directory.state, "M");
    EXPECT_EQ(steps.back().directory.owner, "P1");
    EXPECT_EQ(steps.back().directory.memory, 0); // no write-back: the written value lives only in P1
    EXPECT_EQ(*steps.back().loaded, 1);
}

TEST(ProtocolMigratory, MsiLeavesTwoSharersAndWritesBackForTheSameRead)
{
    const auto steps = opSteps(runOps("msi-directory", 3, "P0:W,P1:R"), 1);
    EXPECT_EQ(sentBy(steps), (Strings{"GetS P1->Dir", "Fwd-GetS Dir->P0", "Data P0->P1", "Data P0->Dir"}));
    EXPECT_TRUE(sentToDirectory(steps, "Data"));
    EXPECT_EQ(cacheState(steps.back(), 0), "S");
    EXPECT_EQ(cacheState(steps.back(), 1), "S");
}

TEST(ProtocolMigratory, TheReadersNextWriteIsASilentHit)
{
    const auto steps = opSteps(runOps("migratory", 3, "P0:W,P1:R,P1:W"), 2);
    ASSERT_EQ(steps.size(), 1u); // the op itself, no message at all
    EXPECT_TRUE(sentBy(steps).empty());
    EXPECT_EQ(steps[0].fromState, "M");
    EXPECT_EQ(steps[0].toState, "M");
    EXPECT_TRUE(steps[0].stored.has_value());

    // MSI needs an upgrade with an invalidation for the same write.
    const auto msi = opSteps(runOps("msi-directory", 3, "P0:W,P1:R,P1:W"), 2);
    EXPECT_EQ(sentBy(msi), (Strings{"GetM P1->Dir", "Data Dir->P1 acks=1", "Inv Dir->P0", "Inv-Ack P0->P1"}));
}

TEST(ProtocolMigratory, ReadersOfADirtyBlockTakeItFromEachOtherInTurn)
{
    const auto steps = opSteps(runOps("migratory", 3, "P0:W,P1:R,P0:R"), 2);
    EXPECT_EQ(sentBy(steps), (Strings{"GetS P0->Dir", "Fwd-GetS Dir->P1", "Migratory-Data P1->P0"}));
    EXPECT_EQ(cacheState(steps.back(), 0), "M");
    EXPECT_EQ(cacheState(steps.back(), 1), "I");
    EXPECT_EQ(steps.back().directory.owner, "P0");
}

TEST(ProtocolMigratory, CleanBlocksAreStillSharedFromMemory)
{
    const auto steps = opSteps(runOps("migratory", 3, "P0:R,P1:R"), 1);
    EXPECT_EQ(sentBy(steps), (Strings{"GetS P1->Dir", "Data Dir->P1"}));
    EXPECT_EQ(cacheState(steps.back(), 0), "S");
    EXPECT_EQ(cacheState(steps.back(), 1), "S");
    EXPECT_EQ(steps.back().directory.state, "S");
}

TEST(ProtocolMigratory, EvictingAMigratedBlockWritesItBack)
{
    const auto steps = opSteps(runOps("migratory", 2, "P0:W,P1:R,P1:E"), 2);
    EXPECT_EQ(sentBy(steps), (Strings{"PutM P1->Dir", "Put-Ack Dir->P1"}));
    EXPECT_EQ(steps.back().directory.memory, 1);
    EXPECT_EQ(steps.back().directory.state, "I");
}

TEST(ProtocolMigratory, TheCheckerExercisesEveryTransitionWithNoViolation)
{
    co::ExplorerOptions options;
    options.caches = 3;
    const co::ExplorerResult r = co::explore(co::findProtocol("migratory"), options);
    EXPECT_TRUE(r.complete);
    EXPECT_EQ(r.violation, co::Violation::None) << r.description;
    EXPECT_TRUE(r.unexercised.empty());
    EXPECT_EQ(r.states, 31854u); // regression figures, as in the explorer tests
    options.caches = 2;
    EXPECT_EQ(co::explore(co::findProtocol("migratory"), options).states, 1022u);
}

} // namespace
} // namespace coh::test
