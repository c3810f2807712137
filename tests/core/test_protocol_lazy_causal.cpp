// Lazy causal replicas: one writer, readable replicas that are updated (never invalidated) in the writer's order,
// a load at most one version stale, and a writer that stalls its next store until its last Update is acknowledged.
#include "protocol_test_util.h"

#include "core/coherence/block_system.h"
#include "core/coherence/explorer.h"

namespace coh::test {
namespace {

using Strings = std::vector<std::string>;

const co::Protocol& lazy()
{
    return co::findProtocol("lazy-causal");
}

// Delivers the first deliverable message of type `kind` to `dst` and returns the step.
co::StepResult deliverKind(co::BlockSystem& s, const std::string& kind, int dst)
{
    const int type = s.protocol().findMessage(kind);
    for (int i = 0; i < s.messageCount(); ++i)
        if (s.message(i).type == type && s.message(i).dst == static_cast<std::uint8_t>(dst) && s.deliverable(i))
            return s.deliver(i, 0);
    ADD_FAILURE() << "no deliverable " << kind << " to " << dst;
    return {};
}

int inFlight(const co::BlockSystem& s, const std::string& kind)
{
    int n = 0;
    for (int i = 0; i < s.messageCount(); ++i)
        n += s.message(i).type == s.protocol().findMessage(kind);
    return n;
}

std::string state(const co::BlockSystem& s, int cache)
{
    return s.protocol().cache.states[s.line(cache).state].name;
}

// P1 holds a replica of version 0 and P0 has just become the writer and stored version 1 (Update in flight).
co::BlockSystem writerWithReplica()
{
    co::BlockSystem s(lazy(), 2);
    s.issue(1, co::ProcessorOp::Load, 0);
    deliverKind(s, "GetS", co::kDirNode);
    EXPECT_TRUE(deliverKind(s, "Read-Data", 1).loaded);
    s.issue(0, co::ProcessorOp::Store, 0);
    deliverKind(s, "GetW", co::kDirNode);
    const co::StepResult store = deliverKind(s, "Data", 0);
    EXPECT_TRUE(store.stored);
    EXPECT_EQ(store.value, 1);
    return s;
}

TEST(ProtocolLazyCausal, TheProtocolDeclaresBoundedStalenessOfOneVersion)
{
    EXPECT_EQ(lazy().consistency, co::Consistency::BoundedStaleness);
    EXPECT_EQ(lazy().stalenessBound, 1);
    EXPECT_EQ(lazy().modelValues(), 3);
    EXPECT_EQ(co::findProtocol("msi-directory").consistency, co::Consistency::Strong);
}

TEST(ProtocolLazyCausal, AReplicaReadsOneVersionStaleBeforeTheUpdateArrives)
{
    co::BlockSystem s = writerWithReplica();
    EXPECT_EQ(state(s, 0), "W^AC");
    EXPECT_EQ(state(s, 1), "V"); // not invalidated by the new writer
    EXPECT_EQ(s.latest(), 1);
    const co::StepResult stale = s.issue(1, co::ProcessorOp::Load, 0);
    EXPECT_EQ(stale.status, co::StepStatus::Done);
    EXPECT_TRUE(stale.loaded);
    EXPECT_EQ(stale.value, 0); // one version behind the latest: allowed
    EXPECT_FALSE(stale.loadMismatch);
    EXPECT_EQ(stale.sentCount, 0); // the reader never waits

    deliverKind(s, "Update", co::kDirNode);
    EXPECT_EQ(s.directory().memory, 1);
    deliverKind(s, "Fwd-Update", 1);
    const co::StepResult fresh = s.issue(1, co::ProcessorOp::Load, 0);
    EXPECT_EQ(fresh.value, 1);
}

TEST(ProtocolLazyCausal, TheSecondStoreStallsUntilTheFirstUpdateIsAcknowledged)
{
    co::BlockSystem s = writerWithReplica();
    EXPECT_EQ(s.issue(0, co::ProcessorOp::Store, 0).status, co::StepStatus::Stalled);
    deliverKind(s, "Update", co::kDirNode);
    EXPECT_EQ(inFlight(s, "Fwd-Update"), 1);
    EXPECT_EQ(inFlight(s, "AckCount"), 1);
    deliverKind(s, "AckCount", 0);
    EXPECT_EQ(state(s, 0), "W^A");
    EXPECT_EQ(s.line(0).acks, 1);
    EXPECT_EQ(s.issue(0, co::ProcessorOp::Store, 0).status, co::StepStatus::Stalled);
    deliverKind(s, "Fwd-Update", 1);
    EXPECT_EQ(inFlight(s, "Update-Ack"), 1);
    EXPECT_EQ(s.issue(0, co::ProcessorOp::Store, 0).status, co::StepStatus::Stalled);
    deliverKind(s, "Update-Ack", 0);
    EXPECT_EQ(state(s, 0), "W");
    const co::StepResult second = s.issue(0, co::ProcessorOp::Store, 0);
    EXPECT_EQ(second.status, co::StepStatus::Done);
    EXPECT_EQ(second.value, 2);
    EXPECT_EQ(s.line(1).value, 1); // the replica is again exactly one version behind, never two
}

TEST(ProtocolLazyCausal, UpdatesReachEveryReplicaInOrderAndNothingIsInvalidated)
{
    const co::LabRun run = runOps("lazy-causal", 3, "P1:R,P2:R,P0:W,P0:W,P0:W,P1:R,P2:R");
    for (const co::MessageType& m : lazy().messages)
        EXPECT_NE(m.role, co::MessageRole::Invalidation) << m.name;
    std::vector<co::Value> seen1, seen2;
    for (const co::StepRecord& step : run.steps)
        for (const co::MessageView& m : step.sent) {
            EXPECT_NE(m.kind, "Inv");
            if (m.kind == "Fwd-Update")
                (m.to == "P1" ? seen1 : seen2).push_back(step.directory.memory);
        }
    // Versions count mod stalenessBound + 2 = 3: 1, 2, then 0 for the third store.
    EXPECT_EQ(seen1, (std::vector<co::Value>{1, 2, 0}));
    EXPECT_EQ(seen2, seen1);
    EXPECT_EQ(cacheState(run.steps.back(), 1), "V");
    EXPECT_EQ(cacheState(run.steps.back(), 2), "V");
    EXPECT_EQ(*opSteps(run, 5).back().loaded, 0);
}

TEST(ProtocolLazyCausal, AWriterTakesOverOnlyAfterItsPredecessorsUpdateIsAcknowledged)
{
    const auto steps = opSteps(runOps("lazy-causal", 3, "P2:R,P0:W,P1:W"), 1);
    EXPECT_EQ(sentBy(steps), (Strings{"GetW P0->Dir", "Data Dir->P0", "Update P0->Dir", "Fwd-Update Dir->P2",
                                      "AckCount Dir->P0 acks=1", "Update-Ack P2->P0"}));
    const auto takeover = opSteps(runOps("lazy-causal", 3, "P2:R,P0:W,P1:W"), 2);
    EXPECT_EQ(cacheState(takeover.back(), 0), "I");
    EXPECT_EQ(cacheState(takeover.back(), 1), "W");
    EXPECT_EQ(cacheState(takeover.back(), 2), "V");
}

TEST(ProtocolLazyCausal, TheCheckerExercisesEveryTransitionWithNoViolation)
{
    co::ExplorerOptions options;
    options.caches = 3;
    const co::ExplorerResult r = co::explore(lazy(), options);
    EXPECT_TRUE(r.complete);
    EXPECT_EQ(r.violation, co::Violation::None) << r.description;
    EXPECT_TRUE(r.unexercised.empty());
    EXPECT_EQ(r.states, 38376u);
    options.caches = 2;
    EXPECT_EQ(co::explore(lazy(), options).states, 1311u);
}

TEST(ProtocolLazyCausal, AZeroBoundMakesTheStaleReplicaReadAViolation)
{
    co::Protocol strict = lazy();
    strict.stalenessBound = 0;
    co::ExplorerOptions options;
    options.caches = 2;
    const co::ExplorerResult r = co::explore(strict, options);
    EXPECT_EQ(r.violation, co::Violation::DataValue) << r.description;
}

} // namespace
} // namespace coh::test
