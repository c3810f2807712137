// A BlockSet steps blocks by index through either executor: the same results, a reset that starts a block
// over, and a violation described in words, whichever executor ran.
#include "core/coherence/block_set.h"
#include "core/coherence/protocol_registry.h"

#include <gtest/gtest.h>

#include <bit>
#include <string>

namespace coh::core::coherence {
namespace {

constexpr ProtocolExecutor kBoth[] = {ProtocolExecutor::Interpreter, ProtocolExecutor::Automaton};

// Delivers the first deliverable message the table does not stall until none is left.
void drain(BlockSet& set, std::uint32_t block)
{
    for (bool moved = true; moved;) {
        moved = false;
        for (std::uint64_t ready = set.deliverable(block); ready != 0 && !moved; ready &= ready - 1) {
            const CheckedStep s = set.deliver(block, std::countr_zero(ready));
            ASSERT_EQ(s.violation, Violation::None) << set.failure();
            moved = s.result.status != StepStatus::Stalled;
        }
    }
}

TEST(BlockSet, BlocksStepApartAndResetToTheInitialState)
{
    const Protocol& msi = findProtocol("msi-directory");
    for (const ProtocolExecutor executor : kBoth) {
        BlockSet set(msi, 2, executor);
        EXPECT_EQ(set.add(3), 0u);
        EXPECT_EQ(set.size(), 3u);
        // Block 1: P0 writes twice. Blocks 0 and 2 stay untouched.
        for (int i = 0; i < 2; ++i) {
            EXPECT_EQ(set.issue(1, 0, ProcessorOp::Store).violation, Violation::None);
            drain(set, 1);
        }
        EXPECT_EQ(set.latest(1), 2);
        EXPECT_EQ(set.latest(0), 0);
        EXPECT_EQ(msi.cache.states[set.block(1).line(0).state].name, "M");
        EXPECT_EQ(set.block(1).line(0).value, 2);
        EXPECT_EQ(msi.cache.states[set.block(2).line(0).state].name, "I");
        set.reset(1);
        EXPECT_EQ(set.latest(1), 0);
        EXPECT_EQ(msi.cache.states[set.block(1).line(0).state].name, "I");
        EXPECT_EQ(set.block(1).messageCount(), 0);
        EXPECT_EQ(set.automatonRunning(), executor == ProtocolExecutor::Automaton);
    }
}

TEST(BlockSet, AViolationIsDescribedWhicheverExecutorRan)
{
    // The directory forgets the Inv: P1 reads, then P0's GetM makes it a writer while P1 still reads.
    const Protocol& broken = findProtocol("msi-directory-broken-noinv");
    for (const ProtocolExecutor executor : kBoth) {
        BlockSet set(broken, 2, executor);
        set.add();
        ASSERT_EQ(set.issue(0, 1, ProcessorOp::Load).violation, Violation::None);
        drain(set, 0);
        CheckedStep last = set.issue(0, 0, ProcessorOp::Store);
        for (std::uint64_t ready = set.deliverable(0); last.violation == Violation::None && ready != 0;
             ready = set.deliverable(0))
            last = set.deliver(0, std::countr_zero(ready));
        EXPECT_EQ(last.violation, Violation::Swmr);
        EXPECT_NE(set.failure().find("SWMR"), std::string::npos) << set.failure();
    }
}

TEST(BlockSet, HandsItsBlocksToTheInterpreterPastTheStateBudget)
{
    // MOESI at 3 caches reaches more than 8 states within a few writes at different caches.
    const Protocol& moesi = findProtocol("moesi-directory");
    BlockSet set(moesi, 3, ProtocolExecutor::Automaton, 8);
    BlockSet reference(moesi, 3, ProtocolExecutor::Interpreter);
    set.add(2);
    reference.add(2);
    for (int i = 0; i < 12; ++i) {
        const std::uint32_t block = static_cast<std::uint32_t>(i % 2);
        const auto op = i % 3 == 2 ? ProcessorOp::Load : ProcessorOp::Store;
        EXPECT_EQ(set.issue(block, i % 3, op).result.status, reference.issue(block, i % 3, op).result.status);
        drain(set, block);
        drain(reference, block);
    }
    EXPECT_TRUE(set.automatonAbandoned());
    EXPECT_FALSE(set.automatonRunning());
    EXPECT_EQ(set.automatonStates(), 9u); // the budget plus the state that crossed it
    for (std::uint32_t b = 0; b < 2; ++b) {
        EXPECT_EQ(set.latest(b), reference.latest(b));
        for (int c = 0; c < 3; ++c)
            EXPECT_EQ(set.block(b).line(c).state, reference.block(b).line(c).state) << b << " P" << c;
    }
}

TEST(BlockSet, ABudgetOfNoStatesMeansTheInterpreterFromTheStart)
{
    BlockSet set(findProtocol("msi-directory"), 2, ProtocolExecutor::Automaton, 0);
    set.add();
    EXPECT_FALSE(set.automatonRunning());
    EXPECT_EQ(set.issue(0, 0, ProcessorOp::Store).violation, Violation::None);
    drain(set, 0);
    EXPECT_EQ(set.latest(0), 1);
}

} // namespace
} // namespace coh::core::coherence
