// Every message a protocol run records names the transition that sent it (controller, table index, from -> to),
// the group of blocks it moves, and the record stays as small as it was.
#include "core/coherence/protocol_registry.h"
#include "core/serving/serving_engine.h"
#include "engine_fixtures.h"

#include <gtest/gtest.h>

namespace coh::test {
namespace {

const MessageRecord* findMessage(const RunResult& r, const std::string& kind, std::uint32_t firstBlock)
{
    for (const auto& m : r.messages)
        if (r.summary.messagesByKind[m.kind].name == kind && m.firstBlock == firstBlock)
            return &m;
    return nullptr;
}

TEST(MessageOrigin, TheRecordKeepsItsSize)
{
    // Before the transition fields: 2 x 8 (times) + 6 x 4 (ids, blocks) + 1 (kind) + 7 padding + 8 (bytes) = 56.
    // The five new bytes fill the padding.
    EXPECT_EQ(sizeof(MessageRecord), 56u);
}

TEST(MessageOrigin, MsiMessagesNameTheTransitionThatSentThem)
{
    // 100 prompt tokens = 6 full blocks (group from block 0) and a tail block 6 (its own group); the home is at
    // p0 (the allocating node), so only decode's traffic crosses the link and is recorded.
    Workload w;
    w.requests.push_back({0, 100, 4, 0, 0});
    Scenario s = twoGpuScenario();
    s.coherence.decode = s.coherence.prefill = "msi-directory";
    const RunResult r = runScenario(s, w);
    const coherence::Protocol& msi = coherence::findProtocol("msi-directory");
    const auto& cache = msi.cache;
    const auto& dir = msi.directory;
    ASSERT_FALSE(r.messages.empty());

    // Decode's read miss: P1 in I takes a Load and sends GetS, going to IS^D.
    const MessageRecord* getS = findMessage(r, "GetS", 0);
    ASSERT_NE(getS, nullptr);
    EXPECT_EQ(getS->sender, MessageSender::Cache);
    EXPECT_EQ(getS->protocol, MessageProtocol::Kv);
    EXPECT_EQ(cache.states[getS->fromState].name, "I");
    EXPECT_EQ(cache.states[getS->toState].name, "IS^D");
    EXPECT_EQ(getS->transition, cache.index(cache.findState("I"), cache.findEvent("Load")));
    EXPECT_EQ(getS->blockCount, 6u);

    // The owner P0 answers the forwarded GetS with the data: M -> S.
    const MessageRecord* data = nullptr;
    for (const auto& m : r.messages)
        if (r.summary.messagesByKind[m.kind].name == "Data" && m.sender == MessageSender::Cache)
            data = &m;
    ASSERT_NE(data, nullptr);
    EXPECT_EQ(cache.states[data->fromState].name, "M");
    EXPECT_EQ(cache.states[data->toState].name, "S");
    EXPECT_EQ(data->transition, cache.index(cache.findState("M"), cache.findEvent("Fwd-GetS")));

    // Every recorded message: a Fire entry of its controller whose from state is the row's and whose actions
    // send a message of the record's kind.
    for (const auto& m : r.messages) {
        ASSERT_NE(m.sender, MessageSender::None);
        const auto& table = m.sender == MessageSender::Home ? dir : cache;
        ASSERT_LT(m.transition, table.transitions.size());
        const auto& t = table.transitions[m.transition];
        EXPECT_EQ(t.kind, coherence::EntryKind::Fire);
        EXPECT_EQ(m.fromState, m.transition / table.events.size());
        EXPECT_EQ(m.toState, t.next);
        bool sends = false;
        for (int a = 0; a < t.actionCount; ++a) {
            const auto& action = table.actions[t.firstAction + a];
            sends = sends || (action.kind == coherence::ActionKind::Send &&
                              msi.messages[action.message].name == r.summary.messagesByKind[m.kind].name);
        }
        EXPECT_TRUE(sends) << r.summary.messagesByKind[m.kind].name;
    }
}

TEST(MessageOrigin, ThePlainCopyHasNoTransition)
{
    Workload w;
    w.requests.push_back({0, 96, 4, 0, 0});
    const RunResult r = runScenario(twoGpuScenario(), w);
    ASSERT_FALSE(r.messages.empty());
    for (const auto& m : r.messages)
        EXPECT_EQ(m.sender, MessageSender::None);
}

} // namespace
} // namespace coh::test
