// Sealed blocks under leases: the open block has one writer, which appends silently once it owns the block; the
// first read by another cache seals it (Seal, Publish), and from then on every reader gets a replica with one
// request and one response, and nothing is ever invalidated.
#include "protocol_test_util.h"

#include "core/coherence/explorer.h"
#include "core/coherence/table_markdown.h"

#include <fmt/format.h>

#include <algorithm>

namespace coh::test {
namespace {

using Strings = std::vector<std::string>;

bool anyInvalidation(const co::LabRun& run)
{
    for (const co::StepRecord& s : run.steps)
        for (const co::MessageView& m : s.sent)
            if (m.kind == "Fwd-GetW" || m.kind == "Inv")
                return true;
    return false;
}

TEST(ProtocolSealedLease, TheWritersAppendsNeedNoMessageOnceItOwnsTheOpenBlock)
{
    const co::LabRun run = runOps("sealed-lease", 3, "P0:W,P0:W,P0:W,P0:R,P0:W");
    EXPECT_EQ(sentBy(opSteps(run, 0)), (Strings{"GetW P0->Dir", "Data Dir->P0"}));
    for (int k = 1; k < 5; ++k) {
        const auto steps = opSteps(run, k);
        ASSERT_EQ(steps.size(), 1u) << k;
        EXPECT_TRUE(sentBy(steps).empty()) << k;
        EXPECT_EQ(steps[0].fromState, "W");
        EXPECT_EQ(steps[0].toState, "W");
    }
    EXPECT_EQ(opSteps(run, 4).back().directory.state, "W");
    EXPECT_EQ(opSteps(run, 4).back().directory.owner, "P0");
}

TEST(ProtocolSealedLease, TheFirstReadByAnotherCacheSealsTheBlock)
{
    const auto steps = opSteps(runOps("sealed-lease", 3, "P0:W,P0:W,P1:R"), 2);
    EXPECT_EQ(sentBy(steps), (Strings{"Lease-Req P1->Dir", "Seal Dir->P0", "Publish P0->Dir", "Lease-Grant Dir->P1"}));
    EXPECT_EQ(directoryStates(steps), (Strings{"W", "Seal^D", "Sealed"}));
    EXPECT_EQ(cacheState(steps.back(), 0), "R"); // the writer keeps an immutable replica
    EXPECT_EQ(cacheState(steps.back(), 1), "R");
    EXPECT_EQ(steps.back().directory.memory, 2);
    EXPECT_EQ(*steps.back().loaded, 2);
}

TEST(ProtocolSealedLease, AfterSealingEachReaderPaysOneRequestAndOneResponseAndNothingIsInvalidated)
{
    const int readers = 5;
    const co::LabRun run = runOps("sealed-lease", readers + 1, "P0:W,P1:R,P2:R,P3:R,P4:R,P5:R,P0:R,P1:R,P3:R");
    for (int reader = 2; reader <= readers; ++reader) {
        const std::string p = fmt::format("P{}", reader);
        const auto steps = opSteps(run, reader);
        EXPECT_EQ(sentBy(steps), (Strings{"Lease-Req " + p + "->Dir", "Lease-Grant Dir->" + p})) << p;
        EXPECT_EQ(cacheState(steps.back(), reader), "R");
    }
    for (int k = 6; k < 9; ++k)
        EXPECT_TRUE(sentBy(opSteps(run, k)).empty()) << k; // every replica, the writer's included, hits
    EXPECT_FALSE(anyInvalidation(run));
    for (int c = 0; c <= readers; ++c)
        EXPECT_EQ(cacheState(run.steps.back(), c), "R");

    // MSI invalidates every one of those readers when a cache writes again; the sealed block cannot be written.
    const Strings msi = sentBy(opSteps(runOps("msi-directory", 4, "P0:W,P1:R,P2:R,P3:R,P3:W"), 4));
    EXPECT_EQ(std::count_if(msi.begin(), msi.end(), [](const std::string& m) { return m.rfind("Inv ", 0) == 0; }), 3);
}

TEST(ProtocolSealedLease, ALeaseReleaseIsSilentAndARereadIsAFreshGrant)
{
    const co::LabRun run = runOps("sealed-lease", 3, "P0:W,P1:R,P1:E,P1:R");
    EXPECT_TRUE(sentBy(opSteps(run, 2)).empty());
    EXPECT_EQ(sentBy(opSteps(run, 3)), (Strings{"Lease-Req P1->Dir", "Lease-Grant Dir->P1"}));
}

TEST(ProtocolSealedLease, AWriteToASealedBlockIsRefused)
{
    const auto steps = opSteps(runOps("sealed-lease", 3, "P0:W,P1:R,P2:W"), 2);
    EXPECT_EQ(sentBy(steps), (Strings{"GetW P2->Dir", "Write-Refused Dir->P2"}));
    EXPECT_EQ(cacheState(steps.back(), 2), "I");
    EXPECT_FALSE(steps.back().stored.has_value());
    EXPECT_EQ(steps.back().directory.state, "Sealed");
    EXPECT_EQ(steps.back().directory.memory, 1);

    // A replica holder's store is refused where it is: nothing is sent and the replica stays as it was.
    const auto replica = opSteps(runOps("sealed-lease", 3, "P0:W,P1:R,P1:W,P1:R"), 2);
    ASSERT_EQ(replica.size(), 1u);
    EXPECT_TRUE(sentBy(replica).empty());
    EXPECT_EQ(replica[0].toState, "R");
    EXPECT_FALSE(replica[0].stored.has_value());
}

TEST(ProtocolSealedLease, ASecondWriterTakesTheOpenBlockOverThroughTheMaster)
{
    const auto steps = opSteps(runOps("sealed-lease", 3, "P0:W,P1:W"), 1);
    EXPECT_EQ(sentBy(steps), (Strings{"GetW P1->Dir", "Fwd-GetW Dir->P0", "Data P0->P1"}));
    EXPECT_EQ(cacheState(steps.back(), 0), "I");
    EXPECT_EQ(cacheState(steps.back(), 1), "W");
    EXPECT_EQ(steps.back().directory.owner, "P1");
}

TEST(ProtocolSealedLease, TheLabTableSaysDecodeAcquiresTheTailForWriting)
{
    const std::string line = "decode acquires the open tail block with a Store";
    EXPECT_NE(co::protocolMarkdown(co::findProtocol("sealed-lease")).find(line), std::string::npos);
    EXPECT_EQ(co::protocolMarkdown(co::findProtocol("msi-directory")).find(line), std::string::npos);
}

TEST(ProtocolSealedLease, TheCheckerExercisesEveryTransitionWithNoViolation)
{
    co::ExplorerOptions options;
    options.caches = 3;
    const co::ExplorerResult r = co::explore(co::findProtocol("sealed-lease"), options);
    EXPECT_TRUE(r.complete);
    EXPECT_EQ(r.violation, co::Violation::None) << r.description;
    EXPECT_TRUE(r.unexercised.empty());
    EXPECT_EQ(r.states, 9188u);
    options.caches = 2;
    EXPECT_EQ(co::explore(co::findProtocol("sealed-lease"), options).states, 592u);
}

} // namespace
} // namespace coh::test
