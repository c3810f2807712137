// The automaton is the interpreter remembered: on random walks through every protocol it must take exactly the
// interpreter's steps (results, states, values, verdicts), look repeated steps up instead of interpreting them,
// keep reporting a violating step, and refuse to grow past its state limit.
#include "block_compare.h"

#include "core/coherence/block_automaton.h"
#include "core/coherence/protocol_registry.h"
#include "core/sim/splitmix64.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <bit>
#include <stdexcept>
#include <string>

namespace coh::core::coherence {
namespace {

void expectSameResult(const StepResult& a, const StepResult& b, const std::string& where)
{
    EXPECT_EQ(a.status, b.status) << where;
    EXPECT_EQ(a.fault, b.fault) << where;
    EXPECT_EQ(a.atDirectory, b.atDirectory) << where;
    EXPECT_EQ(a.actor, b.actor) << where;
    EXPECT_EQ(a.event, b.event) << where;
    EXPECT_EQ(a.transition, b.transition) << where;
    EXPECT_EQ(a.from, b.from) << where;
    EXPECT_EQ(a.to, b.to) << where;
    EXPECT_EQ(a.firstSent, b.firstSent) << where;
    EXPECT_EQ(a.sentCount, b.sentCount) << where;
    EXPECT_EQ(a.loaded, b.loaded) << where;
    EXPECT_EQ(a.stored, b.stored) << where;
    EXPECT_EQ(a.loadMismatch, b.loadMismatch) << where;
    EXPECT_EQ(a.takesValue, b.takesValue) << where;
    EXPECT_EQ(a.hasValue, b.hasValue) << where;
    EXPECT_EQ(a.value, b.value) << where;
}

struct WalkOutcome {
    int steps = 0;
    Violation violation = Violation::None;
};

// Random moves (a deliverable message half the time when there is one, else an op at a random cache) on the
// interpreter and the automaton side by side; stops at the first violation, which both must report.
WalkOutcome walk(const Protocol& protocol, int caches, int steps, std::uint64_t seed, BlockAutomaton& automaton)
{
    BlockSystem interpreted(protocol, caches);
    AutomatonBlock place = automaton.initial();
    WalkOutcome outcome;
    for (; outcome.steps < steps; ++outcome.steps) {
        const std::string where = fmt::format("{} x{} seed {} step {}", protocol.name, caches, seed, outcome.steps);
        const std::uint64_t draw = splitmix64(seed);
        EXPECT_EQ(automaton.messageCount(place), interpreted.messageCount()) << where;
        std::uint64_t ready = 0;
        for (int i = 0; i < interpreted.messageCount(); ++i)
            ready |= interpreted.deliverable(i) ? std::uint64_t{1} << i : 0;
        EXPECT_EQ(automaton.deliverable(place), ready) << where;
        if (::testing::Test::HasFailure())
            return outcome;

        StepResult a;
        CheckedStep b;
        if (ready != 0 && (draw & 1)) {
            int pick = static_cast<int>((draw >> 8) % static_cast<std::uint64_t>(std::popcount(ready)));
            while (pick-- > 0)
                ready &= ready - 1;
            const int index = std::countr_zero(ready);
            a = interpreted.deliver(index, interpreted.nextVersion());
            b = automaton.deliver(place, index);
        } else {
            const int cache = static_cast<int>((draw >> 8) % static_cast<std::uint64_t>(caches));
            const auto op = static_cast<ProcessorOp>((draw >> 16) % kProcessorOps);
            a = interpreted.issue(cache, op, interpreted.nextVersion());
            b = automaton.issue(place, cache, op);
        }
        expectSameResult(a, b.result, where);
        const Violation expected = a.status == StepStatus::Stalled ? Violation::None : checkAfterStep(interpreted, a);
        EXPECT_EQ(b.violation, expected) << where;
        if (expected != Violation::None) {
            outcome.violation = expected;
            return outcome;
        }
        expectSameBlock(interpreted, automaton.materialize(place), where);
        if (::testing::Test::HasFailure())
            return outcome;
    }
    return outcome;
}

TEST(BlockAutomaton, TakesExactlyTheInterpretersStepsInEveryProtocol)
{
    for (const Protocol& protocol : allProtocols()) {
        if (protocol.bugHunt)
            continue;
        for (int caches : {2, 3, 4}) {
            BlockAutomaton automaton(protocol, caches);
            for (std::uint64_t seed = 1; seed <= 20; ++seed) {
                const WalkOutcome w = walk(protocol, caches, 1500, seed * 7919 + caches, automaton);
                ASSERT_FALSE(::testing::Test::HasFailure());
                EXPECT_EQ(w.violation, Violation::None) << protocol.name;
            }
            // The same walks again take only steps the automaton has taken before: nothing is interpreted.
            const std::size_t interpreted = automaton.interpretedSteps();
            for (std::uint64_t seed = 1; seed <= 20; ++seed)
                walk(protocol, caches, 1500, seed * 7919 + caches, automaton);
            EXPECT_EQ(automaton.interpretedSteps(), interpreted) << protocol.name << " x" << caches;
            EXPECT_GT(automaton.states(), 5u) << protocol.name << " x" << caches;
        }
    }
}

TEST(BlockAutomaton, BrokenProtocolsFailAtTheSameStepAsInTheInterpreter)
{
    int caught = 0;
    for (const Protocol& protocol : allProtocols()) {
        if (!protocol.bugHunt)
            continue;
        BlockAutomaton automaton(protocol, 3);
        for (std::uint64_t seed = 1; seed <= 40; ++seed) {
            const WalkOutcome w = walk(protocol, 3, 2000, seed, automaton);
            ASSERT_FALSE(::testing::Test::HasFailure()) << protocol.name;
            caught += w.violation != Violation::None ? 1 : 0;
        }
    }
    EXPECT_GT(caught, 0) << "no planted bug surfaced on the walks";
}

TEST(BlockAutomaton, AViolatingStepIsReportedEveryTimeItIsTaken)
{
    // msi-directory-broken-noinv: P0 writes, then P1's read is answered without invalidating P0 (SWMR). Find
    // the first violating step of a walk, then take it twice from the same place: both report it, neither moves.
    const Protocol& protocol = findProtocol("msi-directory-broken-noinv");
    BlockAutomaton automaton(protocol, 3);
    AutomatonBlock place = automaton.initial();
    std::uint64_t seed = 11;
    for (int step = 0; step < 100000; ++step) {
        const std::uint64_t draw = splitmix64(seed);
        const std::uint64_t ready = automaton.deliverable(place);
        const AutomatonBlock before = place;
        const bool deliver = ready != 0 && (draw & 1);
        const int index = deliver ? std::countr_zero(ready) : static_cast<int>((draw >> 8) % 3);
        const auto op = static_cast<ProcessorOp>((draw >> 16) % kProcessorOps);
        const CheckedStep s = deliver ? automaton.deliver(place, index) : automaton.issue(place, index, op);
        if (s.violation == Violation::None)
            continue;
        EXPECT_EQ(place.state, before.state);
        EXPECT_EQ(place.base, before.base);
        const CheckedStep again = deliver ? automaton.deliver(place, index) : automaton.issue(place, index, op);
        EXPECT_EQ(again.violation, s.violation);
        EXPECT_EQ(place.state, before.state);
        const std::string text = automaton.describeFailure(before, deliver, index, op);
        EXPECT_NE(text.find("SWMR"), std::string::npos) << text;
        return;
    }
    FAIL() << "the missing invalidation never broke SWMR";
}

TEST(BlockAutomaton, VersionsWrapAsTheInterpretersDo)
{
    // Past Value's 65,536 stores at P0, with a load at P1 every seventh op: the automaton holds a handful of
    // states, yet its values follow the interpreter's through the wrap.
    const Protocol& protocol = findProtocol("mesi-directory");
    BlockSystem interpreted(protocol, 2);
    BlockAutomaton automaton(protocol, 2);
    AutomatonBlock place = automaton.initial();
    std::uint32_t stores = 0;
    auto drain = [&] {
        for (bool moved = true; moved;) {
            moved = false;
            for (int i = 0; i < interpreted.messageCount() && !moved; ++i) {
                if (!interpreted.deliverable(i))
                    continue;
                const StepResult a = interpreted.deliver(i, interpreted.nextVersion());
                const CheckedStep b = automaton.deliver(place, i);
                ASSERT_EQ(a.status, b.result.status) << i;
                stores += a.stored ? 1 : 0;
                moved = a.status != StepStatus::Stalled;
            }
        }
    };
    for (int i = 0; i < 80000; ++i) {
        const int cache = i % 7 == 6 ? 1 : 0;
        const ProcessorOp op = cache == 1 ? ProcessorOp::Load : ProcessorOp::Store;
        const StepResult a = interpreted.issue(cache, op, interpreted.nextVersion());
        const CheckedStep b = automaton.issue(place, cache, op);
        ASSERT_EQ(a.status, b.result.status) << i;
        ASSERT_EQ(a.value, b.result.value) << i;
        stores += a.stored ? 1 : 0;
        drain();
        ASSERT_EQ(interpreted.latest(), place.base) << i;
    }
    EXPECT_GT(stores, 65536u);
    EXPECT_EQ(interpreted.latest(), static_cast<Value>(stores % 65536));
    expectSameBlock(interpreted, automaton.materialize(place), "after the wrap");
    EXPECT_LT(automaton.states(), 200u);
}

TEST(BlockAutomaton, RefusesToGrowPastItsStateLimitByName)
{
    BlockAutomaton automaton(findProtocol("msi-directory"), 3, 2);
    AutomatonBlock place = automaton.initial();
    try {
        for (int i = 0; i < 10; ++i)
            automaton.issue(place, i % 3, ProcessorOp::Store);
        FAIL() << "the automaton grew past 2 states";
    } catch (const std::length_error& e) {
        EXPECT_NE(std::string(e.what()).find("msi-directory"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("interpreter"), std::string::npos) << e.what();
    }
    // Nothing was stored for the refused state: the automaton still answers from what it has.
    EXPECT_EQ(automaton.states(), 2u);
    AutomatonBlock again = automaton.initial();
    EXPECT_EQ(automaton.issue(again, 0, ProcessorOp::Store).violation, Violation::None);
    EXPECT_EQ(again.state, 1u);
}

} // namespace
} // namespace coh::core::coherence
