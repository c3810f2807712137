// CXL-style asymmetric coherence: the host's home agent keeps the directory and a per-block bias. A granted
// RdOwn puts the block in device bias, where its owner reads and writes silently; another device's access makes
// the host flip the bias back, and the data always travels through the host, never device to device.
#include "protocol_test_util.h"

#include "core/coherence/explorer.h"

namespace coh::test {
namespace {

using Strings = std::vector<std::string>;

TEST(ProtocolCxlAsymmetric, AWriteMissOnAnUncachedBlockGrantsDeviceBias)
{
    const auto steps = opSteps(runOps("cxl-asymmetric", 3, "P0:W"), 0);
    EXPECT_EQ(sentBy(steps), (Strings{"RdOwn P0->Dir", "Data Dir->P0"}));
    EXPECT_EQ(cacheState(steps.back(), 0), "D");
    EXPECT_EQ(steps.back().directory.state, "D");
    EXPECT_EQ(steps.back().directory.owner, "P0");
}

TEST(ProtocolCxlAsymmetric, TheOwnersAccessesInDeviceBiasSendNoMessage)
{
    const co::LabRun run = runOps("cxl-asymmetric", 3, "P0:W,P0:R,P0:W,P0:W,P0:R");
    for (int k = 1; k < 5; ++k) {
        const auto steps = opSteps(run, k);
        ASSERT_EQ(steps.size(), 1u) << k; // the op itself, no delivery
        EXPECT_TRUE(sentBy(steps).empty()) << k;
        EXPECT_EQ(steps[0].fromState, "D");
        EXPECT_EQ(steps[0].toState, "D");
    }
    EXPECT_EQ(*opSteps(run, 4).back().loaded, 3);
    EXPECT_EQ(opSteps(run, 4).back().directory.memory, 0); // the host has not seen any of the writes
}

TEST(ProtocolCxlAsymmetric, AnotherDevicesReadFlipsTheBiasAndBothShareThroughTheHost)
{
    const auto steps = opSteps(runOps("cxl-asymmetric", 3, "P0:W,P1:R"), 1);
    EXPECT_EQ(sentBy(steps),
              (Strings{"RdShared P1->Dir", "BiasFlip-Req Dir->P0", "BiasFlip-Ack P0->Dir", "Data Dir->P1"}));
    EXPECT_EQ(directoryStates(steps), (Strings{"D", "F^S", "S"}));
    EXPECT_EQ(cacheState(steps.back(), 0), "S");
    EXPECT_EQ(cacheState(steps.back(), 1), "S");
    EXPECT_EQ(steps.back().directory.memory, 1); // the flip wrote P0's data back to the host
    EXPECT_EQ(*steps.back().loaded, 1);

    // MSI hands the data over device to device in one hop less.
    const auto msi = opSteps(runOps("msi-directory", 3, "P0:W,P1:R"), 1);
    EXPECT_EQ(sentBy(msi), (Strings{"GetS P1->Dir", "Fwd-GetS Dir->P0", "Data P0->P1", "Data P0->Dir"}));
}

TEST(ProtocolCxlAsymmetric, AnotherDevicesWriteFlipsThenSnoopsOutTheFormerOwner)
{
    const auto steps = opSteps(runOps("cxl-asymmetric", 3, "P0:W,P1:W"), 1);
    EXPECT_EQ(sentBy(steps), (Strings{"RdOwn P1->Dir", "BiasFlip-Req Dir->P0", "BiasFlip-Ack P0->Dir",
                                      "Data Dir->P1 acks=1", "SnpInv Dir->P0", "RspI P0->P1"}));
    EXPECT_EQ(cacheState(steps.back(), 0), "I");
    EXPECT_EQ(cacheState(steps.back(), 1), "D");
    EXPECT_EQ(steps.back().directory.state, "D");
    EXPECT_EQ(steps.back().directory.owner, "P1");
}

TEST(ProtocolCxlAsymmetric, HostBiasSharersAreServedFromMemoryAndSnoopedOnOwnership)
{
    const co::LabRun run = runOps("cxl-asymmetric", 3, "P0:R,P1:R,P2:W");
    EXPECT_EQ(sentBy(opSteps(run, 1)), (Strings{"RdShared P1->Dir", "Data Dir->P1"}));
    const auto steps = opSteps(run, 2);
    EXPECT_EQ(sentBy(steps), (Strings{"RdOwn P2->Dir", "Data Dir->P2 acks=2", "SnpInv Dir->P0", "SnpInv Dir->P1",
                                      "RspI P0->P2", "RspI P1->P2"}));
    EXPECT_EQ(cacheState(steps.back(), 2), "D");
}

TEST(ProtocolCxlAsymmetric, EvictingInDeviceBiasWritesBackAndReturnsToHostBias)
{
    const auto steps = opSteps(runOps("cxl-asymmetric", 2, "P0:W,P0:E"), 1);
    EXPECT_EQ(sentBy(steps), (Strings{"DirtyEvict P0->Dir", "GO Dir->P0"}));
    EXPECT_EQ(steps.back().directory.state, "I");
    EXPECT_EQ(steps.back().directory.memory, 1);
}

TEST(ProtocolCxlAsymmetric, TheCheckerExercisesEveryTransitionWithNoViolation)
{
    co::ExplorerOptions options;
    options.caches = 3;
    const co::ExplorerResult r = co::explore(co::findProtocol("cxl-asymmetric"), options);
    EXPECT_TRUE(r.complete);
    EXPECT_EQ(r.violation, co::Violation::None) << r.description;
    EXPECT_TRUE(r.unexercised.empty());
    EXPECT_EQ(r.states, 31482u);
    options.caches = 2;
    EXPECT_EQ(co::explore(co::findProtocol("cxl-asymmetric"), options).states, 1030u);
}

} // namespace
} // namespace coh::test
