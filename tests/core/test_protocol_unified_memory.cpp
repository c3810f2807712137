// Unified memory: no cached copies; every load and store is one request and one response to the home, where it
// takes effect. The data-value check sits at the home, and a table that performs the store at the cache instead
// is caught by the explorer.
#include "protocol_test_util.h"

#include "core/coherence/block_system.h"
#include "core/coherence/explorer.h"
#include "core/coherence/invariants.h"
#include "core/coherence/protocol_builders.h"

namespace coh::test {
namespace {

using Strings = std::vector<std::string>;

TEST(ProtocolUnifiedMemory, EveryOpIsOneRequestAndOneResponseAndLeavesNoCopy)
{
    const co::LabRun run = runOps("unified-memory", 3, "P0:W,P1:R,P1:R");
    const Strings expected[] = {
        {"Write P0->Dir", "Write-Ack Dir->P0"},
        {"Read P1->Dir", "Read-Data Dir->P1"},
        {"Read P1->Dir", "Read-Data Dir->P1"}, // the second read is no hit: nothing was kept
    };
    for (int k = 0; k < 3; ++k) {
        SCOPED_TRACE(k);
        const auto steps = opSteps(run, k);
        EXPECT_EQ(sentBy(steps), expected[k]);
        for (int c = 0; c < 3; ++c)
            EXPECT_EQ(cacheState(steps.back(), c), "I");
        EXPECT_EQ(steps.back().directory.state, "I");
        EXPECT_EQ(steps.back().directory.memory, 1);
    }
    const auto write = opSteps(run, 0);
    ASSERT_EQ(write.size(), 3u);
    ASSERT_TRUE(write[0].sent[0].data.has_value()); // the Write carries the value
    EXPECT_EQ(*write[0].sent[0].data, 1);
    EXPECT_EQ(*write[1].stored, 1); // performed at the home
    EXPECT_EQ(write[1].actor, "Dir");
    EXPECT_EQ(*opSteps(run, 2).back().loaded, 1);
}

TEST(ProtocolUnifiedMemory, NoInvalidationOrForwardIsEverSent)
{
    const co::LabRun run = runOps("unified-memory", 3, "P0:W,P1:R,P2:W,P0:R,P1:W,P2:R,P0:E");
    for (const co::StepRecord& s : run.steps)
        for (const co::MessageView& m : s.sent)
            EXPECT_TRUE(m.kind == "Read" || m.kind == "Write" || m.kind == "Read-Data" || m.kind == "Write-Ack")
                << m.kind;
    EXPECT_EQ(co::findProtocol("unified-memory").findMessage("Inv"), -1);
}

// A load served before a concurrent store takes effect at the home returns the old value, and that is correct:
// the load is ordered before the store at the home, so the check there passes.
TEST(ProtocolUnifiedMemory, ALoadServedBeforeAConcurrentStoreLegallyReturnsTheOldValue)
{
    co::BlockSystem system(co::findProtocol("unified-memory"), 2);
    system.issue(0, co::ProcessorOp::Store, 1);
    system.issue(1, co::ProcessorOp::Load, 0);
    ASSERT_EQ(system.messageCount(), 2);
    const co::StepResult served = system.deliver(1, 0); // the Read reaches the home first
    EXPECT_FALSE(served.loadMismatch);
    EXPECT_EQ(served.value, 0);
    const co::StepResult written = system.deliver(0, 0); // then the Write
    EXPECT_TRUE(written.stored);
    EXPECT_EQ(system.directory().memory, 1);
    EXPECT_EQ(system.latest(), 1);
    const int readData = system.message(0).dst == 1 ? 0 : 1;
    const co::StepResult done = system.deliver(readData, 0);
    EXPECT_TRUE(done.loaded);
    EXPECT_EQ(done.value, 0);
    EXPECT_EQ(co::checkStep(done), co::Violation::None);
    EXPECT_EQ(co::checkState(system), co::Violation::None);
}

TEST(ProtocolUnifiedMemory, PerformingTheStoreAtTheCacheIsCaughtAsADataValueViolation)
{
    // Planted bug: the store takes effect at the cache when it is issued, and the home only copies the value
    // into memory when the Write arrives, so a read served in between returns a value older than the store.
    co::Protocol p = co::findProtocol("unified-memory");
    p.name = "unified-memory-mutant";
    co::TableBuilder c(p, p.cache);
    c.replace("I", "Store", {co::act::store, c.send("Write", co::Target::Dir, co::DataSource::StoreValue)}, "IW^A",
              "planted bug");
    p.cache = c.build("I");
    co::TableBuilder d(p, p.directory);
    d.replace("I", "Write", {co::act::writeMemory, d.send("Write-Ack", co::Target::Requestor)}, "", "planted bug");
    p.directory = d.build("I");

    co::ExplorerOptions options;
    options.caches = 2;
    const co::ExplorerResult r = co::explore(p, options);
    EXPECT_EQ(r.violation, co::Violation::DataValue) << r.description;
    ASSERT_FALSE(r.trace.empty());
    EXPECT_EQ(r.trace.back().event, "Read");
    EXPECT_EQ(r.trace.back().actor, "Dir");

    // The shipped table passes, and its hit-free cache never holds data.
    options.caches = 3;
    const co::ExplorerResult clean = co::explore(co::findProtocol("unified-memory"), options);
    EXPECT_EQ(clean.violation, co::Violation::None) << clean.description;
    EXPECT_TRUE(clean.unexercised.empty());
}

} // namespace
} // namespace coh::test
