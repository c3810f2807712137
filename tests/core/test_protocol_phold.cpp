// PHOLD with the protocol layer in the loop: the same events as plain PHOLD, every protocol stepping cleanly,
// and a broken protocol stopping the run.
#include "block_compare.h"

#include "core/coherence/protocol_phold.h"
#include "core/coherence/protocol_registry.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

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

struct FinishedRun {
    ProtocolPholdStats stats;
    std::uint64_t digest = 0;
    std::vector<BlockSystem> blocks;
};

FinishedRun runWith(const Protocol& protocol, int caches, ProtocolExecutor executor,
                    std::size_t automatonStates = kDefaultAutomatonStates)
{
    const PholdConfig config = smallConfig();
    Simulator sim;
    ProtocolPhold model(sim, config, protocol, caches, executor, automatonStates);
    model.start();
    sim.run(model, model.end());
    FinishedRun run{model.stats(), model.phold().digest(), {}};
    for (std::uint32_t lp = 0; lp < config.lps; ++lp)
        run.blocks.push_back(model.block(lp));
    return run;
}

TEST(ProtocolPhold, TheAutomatonTakesTheInterpretersStepsInEveryProtocol)
{
    for (const Protocol& protocol : allProtocols()) {
        if (protocol.bugHunt)
            continue;
        for (int caches : {2, 3, 5}) {
            const FinishedRun a = runWith(protocol, caches, ProtocolExecutor::Interpreter);
            const FinishedRun b = runWith(protocol, caches, ProtocolExecutor::Automaton);
            const std::string what = protocol.name + " x" + std::to_string(caches);
            EXPECT_EQ(a.digest, b.digest) << what;
            EXPECT_EQ(a.stats.delivered, b.stats.delivered) << what;
            EXPECT_EQ(a.stats.issued, b.stats.issued) << what;
            EXPECT_EQ(a.stats.stalled, b.stats.stalled) << what;
            EXPECT_EQ(a.stats.sent, b.stats.sent) << what;
            EXPECT_EQ(a.stats.automatonStates, 0u) << what;
            EXPECT_GT(b.stats.automatonStates, 1u) << what;
            // Fewer distinct steps than steps: the automaton looked the rest up.
            EXPECT_LT(b.stats.automatonTransitions, b.stats.delivered + b.stats.issued) << what;
            for (std::size_t lp = 0; lp < a.blocks.size(); ++lp)
                expectSameBlock(a.blocks[lp], b.blocks[lp], what + " LP " + std::to_string(lp));
        }
    }
}

TEST(ProtocolPhold, AnAutomatonBeyondItsStateBudgetHandsTheBlocksToTheInterpreter)
{
    // 40 states is far fewer than MOESI at 4 caches reaches: the interpreter takes over mid-run, from the
    // blocks the automaton held, and the run ends exactly as the interpreter's own run does.
    const Protocol& protocol = findProtocol("moesi-directory");
    const FinishedRun a = runWith(protocol, 4, ProtocolExecutor::Interpreter);
    const FinishedRun b = runWith(protocol, 4, ProtocolExecutor::Automaton, 40);
    EXPECT_TRUE(b.stats.automatonAbandoned);
    EXPECT_EQ(b.stats.automatonStates, 41u);
    EXPECT_EQ(a.digest, b.digest);
    EXPECT_EQ(a.stats.delivered, b.stats.delivered);
    EXPECT_EQ(a.stats.issued, b.stats.issued);
    EXPECT_EQ(a.stats.sent, b.stats.sent);
    for (std::size_t lp = 0; lp < a.blocks.size(); ++lp)
        expectSameBlock(a.blocks[lp], b.blocks[lp], "LP " + std::to_string(lp));
    const FinishedRun c = runWith(protocol, 4, ProtocolExecutor::Automaton);
    EXPECT_FALSE(c.stats.automatonAbandoned);
}

TEST(ProtocolPhold, BrokenProtocolsAreCaught)
{
    for (const ProtocolExecutor executor : {ProtocolExecutor::Interpreter, ProtocolExecutor::Automaton}) {
        // The missing invalidation lets a writer and a reader coexist: the run stops at the first such step.
        try {
            runProtocolPhold(smallConfig(), findProtocol("msi-directory-broken-noinv"), 3, executor);
            FAIL() << "the SWMR violation went unnoticed";
        } catch (const std::runtime_error& e) {
            EXPECT_NE(std::string(e.what()).find("SWMR"), std::string::npos) << e.what();
        }
        // The lost ack leaves requesters waiting forever: blocks end deadlocked.
        const ProtocolPholdResult r =
            runProtocolPhold(smallConfig(), findProtocol("msi-directory-broken-lostack"), 3, executor);
        EXPECT_GT(r.stats.deadlocked, 0u);
    }
}

} // namespace
} // namespace coh::core::coherence
