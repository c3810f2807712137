// PHOLD with the protocol layer in the loop: the same events as plain PHOLD, every protocol stepping cleanly,
// and a broken protocol stopping the run.
#include "core/coherence/protocol_phold.h"
#include "core/coherence/protocol_registry.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace coh::core::coherence {
namespace {

PholdConfig smallConfig()
{
    PholdConfig config;
    config.lps = 64;
    config.endTime = 50.0;
    config.seed = 7;
    return config;
}

TEST(ProtocolPhold, RunsExactlyPlainPholdsEvents)
{
    const PholdResult plain = runPhold(smallConfig());
    const ProtocolPholdResult layered = runProtocolPhold(smallConfig(), findProtocol("msi-directory"), 3);
    EXPECT_EQ(layered.loop.committed, plain.committed);
    EXPECT_EQ(layered.loop.digest, plain.digest);
    // Every event took a step: a delivery, an op, or a stall.
    const auto& s = layered.stats;
    EXPECT_EQ(s.delivered + s.issued + s.stalled, plain.committed);
}

TEST(ProtocolPhold, EveryCorrectProtocolStepsWithoutViolationOrDeadlock)
{
    for (const Protocol& protocol : allProtocols()) {
        if (protocol.bugHunt)
            continue;
        for (int caches : {2, 4}) {
            const ProtocolPholdResult r = runProtocolPhold(smallConfig(), protocol, caches);
            const auto& s = r.stats;
            EXPECT_GT(s.issued, 0u) << protocol.name;
            EXPECT_GT(s.delivered, 0u) << protocol.name;
            EXPECT_GE(s.sent, s.delivered) << protocol.name;
            EXPECT_EQ(s.deadlocked, 0u) << protocol.name << " with " << caches << " caches";
        }
    }
}

TEST(ProtocolPhold, BrokenProtocolsAreCaught)
{
    // The missing invalidation lets a writer and a reader coexist: the run stops at the first such step.
    try {
        runProtocolPhold(smallConfig(), findProtocol("msi-directory-broken-noinv"), 3);
        FAIL() << "the SWMR violation went unnoticed";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("SWMR"), std::string::npos) << e.what();
    }
    // The lost ack leaves requesters waiting forever: blocks end deadlocked.
    const ProtocolPholdResult r = runProtocolPhold(smallConfig(), findProtocol("msi-directory-broken-lostack"), 3);
    EXPECT_GT(r.stats.deadlocked, 0u);
}

} // namespace
} // namespace coh::core::coherence
