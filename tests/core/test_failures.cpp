// Node failures (the "failures" section): a failing node stops its instances and takes their requests, the monitor
// declares it dead a timeout after its last heartbeat, the requests recover by the named strategy, and every request
// is accounted for (completed + failed = arrived).
#include "bounded_run.h"
#include "core/serving/serving_engine.h"
#include "core/store/failures_json.h"
#include "core/store/run_export.h"
#include "core/store/run_store.h"
#include "engine_fixtures.h"
#include "temp_dir.h"
#include "tests/core/scenario_test_util.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <sstream>

namespace coh::test {
namespace {

// twoGpuScenario with a prefill GPU of 100 TFLOP/s: a 200-token prompt of the tiny model takes 4 ms.
Scenario fastPrefillScenario()
{
    Scenario s = twoGpuScenario();
    s.topology.nodes[0] = servingNode("p0", NodeRole::Prefill, 1e14);
    return s;
}

// p0 prefills (4 ms a prompt); d0 and d1 decode; every pair 1 us and 1 GB/s apart. A decode step of the tiny model
// reads its 2 GB of weights at 100 GB/s: 20 ms a token.
Scenario threeGpuScenario(const std::string& protocol, std::uint32_t replicas = 1)
{
    Scenario s = fastPrefillScenario();
    s.topology.nodes.push_back(servingNode("d1", NodeRole::Decode));
    s.topology.links.push_back(link("p0", "d1", kMicrosecond, 1e9));
    s.topology.links.push_back(link("d0", "d1", kMicrosecond, 1e9));
    s.serving.instances.push_back({"decode1", InstanceRole::Decode, {"d1"}, 0, 0});
    s.coherence.decode = protocol;
    s.serving.replication.factor = replicas;
    return s;
}

void failAt(Scenario& s, const std::string& node, SimTime at, std::optional<SimTime> repair, FailureRecovery recovery)
{
    FailureEventSpec event;
    event.node = node;
    event.at = at;
    event.repair = repair;
    s.failures.events.push_back(event);
    s.failures.recovery = recovery;
    s.failures.heartbeat = 100 * kMillisecond;
    s.failures.timeout = 300 * kMillisecond;
}

// 40 requests of 200 prompt and 100 output tokens over the first second: about 2 s of decoding each.
Workload steadyWorkload()
{
    return poissonWorkload(40, 40.0, 200, 100, 11);
}

// The run's Resume-Load kind (recomputes' prefix loads), or null when no recompute resumed from a prefix.
const MessageKindStats* resumeLoads(const RunSummary& s)
{
    const auto it = std::find_if(s.messagesByKind.begin(), s.messagesByKind.end(),
                                 [](const MessageKindStats& k) { return k.name == "Resume-Load"; });
    return it == s.messagesByKind.end() ? nullptr : &*it;
}

void expectAllAccounted(const RunResult& r, std::size_t arrived)
{
    EXPECT_EQ(r.summary.requests, arrived);
    EXPECT_EQ(r.summary.completed + r.summary.failures.failed, arrived);
    EXPECT_EQ(r.requests.size(), r.summary.completed);
    for (const auto& m : r.requests) {
        EXPECT_FALSE(m.failed);
        // A recovery before the first token times the TTFT's parts again; after it, they stay: either way each part
        // is a wait of its own and together they are the TTFT.
        for (const SimTime part : {m.queueing(), m.prefill(), m.admission(), m.transfer(), m.load(), m.firstDecode()})
            EXPECT_GE(part, 0) << "request " << m.id;
        EXPECT_EQ(m.queueing() + m.prefill() + m.admission() + m.transfer() + m.load() + m.firstDecode(), m.ttft());
    }
}

TEST(Failures, DetectedATimeoutAfterTheLastHeartbeatAndBackAfterTheRepair)
{
    Scenario s = threeGpuScenario("msi-directory");
    failAt(s, "d0", 1234 * kMillisecond, 2 * kSecond, FailureRecovery::Recompute);
    const RunResult r = runBounded(s, steadyWorkload());
    ASSERT_EQ(r.summary.failures.failures.size(), 1u);
    const FailureRecord& f = r.summary.failures.failures[0];
    EXPECT_EQ(f.node, "d0");
    EXPECT_EQ(f.instances, (std::vector<std::string>{"decode0"}));
    EXPECT_EQ(f.failed, 1234 * kMillisecond);
    EXPECT_EQ(f.detected, 1500 * kMillisecond); // the last beat at 1.2 s, + 300 ms
    EXPECT_EQ(f.repaired, 3234 * kMillisecond);
    EXPECT_GT(f.requestsLost, 0u);
    // Three instances; one down from 1.234 s to 3.234 s (or to the run's end).
    const auto& up = r.summary.failures.instancesUp;
    ASSERT_GE(up.size(), 2u);
    EXPECT_EQ(up[0].value, 3u);
    EXPECT_EQ(up[1].time, f.failed);
    EXPECT_EQ(up[1].value, 2u);
    EXPECT_LT(r.summary.failures.availability, 1.0);
    EXPECT_GT(r.summary.failures.availability, 0.5);
    expectAllAccounted(r, 40);
}

TEST(Failures, RepairBeforeTheTimeoutIsDetectedWhenTheNodeReRegisters)
{
    Scenario s = threeGpuScenario("direct");
    failAt(s, "d0", 1234 * kMillisecond, 50 * kMillisecond, FailureRecovery::Recompute);
    const RunResult r = runBounded(s, steadyWorkload());
    ASSERT_EQ(r.summary.failures.failures.size(), 1u);
    EXPECT_EQ(r.summary.failures.failures[0].detected, 1284 * kMillisecond);
    EXPECT_EQ(r.summary.failures.failures[0].repaired, 1284 * kMillisecond);
    expectAllAccounted(r, 40);
}

TEST(Failures, FailGivesUpEveryRequestTheFailureTook)
{
    Scenario s = threeGpuScenario("msi-directory");
    failAt(s, "d0", kSecond, kSecond, FailureRecovery::Fail);
    const RunResult r = runBounded(s, steadyWorkload());
    const auto& f = r.summary.failures;
    EXPECT_GT(f.hits, 0u);
    EXPECT_EQ(f.failed, f.hits);
    EXPECT_EQ(f.recovered, 0u);
    EXPECT_EQ(f.recomputes + f.fromCopy, 0u);
    EXPECT_EQ(r.summary.completed, 40 - f.hits);
    expectAllAccounted(r, 40);
}

TEST(Failures, RecomputeResumesFromTheLastValidPrefixAndComputesTheRest)
{
    Scenario s = threeGpuScenario("msi-directory");
    failAt(s, "d0", kSecond, kSecond, FailureRecovery::Recompute);
    const Workload w = steadyWorkload();
    const RunResult r = runBounded(s, w);
    Scenario calm = threeGpuScenario("msi-directory");
    const RunResult base = runBounded(calm, w);
    const auto& f = r.summary.failures;
    EXPECT_GT(f.hits, 0u);
    EXPECT_EQ(f.failed, 0u);
    EXPECT_EQ(f.recovered, f.hits);
    EXPECT_GT(f.recomputes, 0u);
    EXPECT_EQ(f.fromCopy, 0u);
    EXPECT_EQ(f.recomputes + f.rerouted, f.hits); // queued at d0 (KV still at p0), or its KV on d0
    std::uint64_t redone = 0, restored = 0, resumed = 0;
    bool decoding = false;
    for (const auto& m : r.requests) {
        if (m.failureHits == 0)
            continue;
        // Nothing (it only waited in d0's queue); or, under MSI, prefill's copy at p0 still holds the prompt's 12 full
        // blocks (decode's first append took only the open tail's): those 192 tokens are loaded, and the prompt's
        // last 8 and the tokens generated by the failure are computed again.
        if (m.recomputedTokens > 0) {
            EXPECT_EQ(m.restoredTokens, 192u) << m.id;
            EXPECT_GE(m.recomputedTokens, 8u) << m.id;
            ++resumed;
        }
        EXPECT_LT(m.recomputedTokens + m.restoredTokens, m.promptTokens + m.outputTokens);
        decoding = decoding || m.recomputedTokens > 8;
        redone += m.recomputedTokens;
        restored += m.restoredTokens;
        // It waited at least from the failure to its detection.
        EXPECT_GE(m.e2e(), base.requests[m.id].e2e() + 200 * kMillisecond) << m.id;
        EXPECT_EQ(m.decodeInstance, 2u) << "routed to decode1 once d0 was declared dead";
    }
    EXPECT_TRUE(decoding) << "some request was decoding on d0 when it failed";
    EXPECT_EQ(redone, f.recomputedTokens);
    EXPECT_EQ(restored, f.restoredTokens);
    // One prefix load per resumed request, from p0's own memory to p0's prefill instance: no byte crosses a link.
    const MessageKindStats* load = resumeLoads(r.summary);
    ASSERT_NE(load, nullptr);
    EXPECT_EQ(load->count, resumed);
    EXPECT_EQ(load->bytes, 0.0);
    expectAllAccounted(r, 40);
}

// Under MSI a replica holds the generated tokens too, so it is the most complete copy and a recompute resumes from
// it: the prefix crosses the network from the replica's node to the prefill instance, 256 bytes a token.
TEST(Failures, APrefixOnAReplicaNodeIsLoadedOverTheNetwork)
{
    Scenario s = threeGpuScenario("msi-directory", 2);
    s.serving.replication.placement = ReplicaPlacement::Fixed;
    s.serving.replication.nodes = {"d1", "p0"}; // d0's sequences keep their replica on d1
    failAt(s, "d0", kSecond, kSecond, FailureRecovery::Recompute);
    const RunResult r = runBounded(s, steadyWorkload());
    const auto& f = r.summary.failures;
    ASSERT_GT(f.recomputes, 0u);
    EXPECT_EQ(f.fromCopy, 0u); // recompute never restores at the copy's node, it loads the prefix into prefill
    const MessageKindStats* load = resumeLoads(r.summary);
    ASSERT_NE(load, nullptr);
    EXPECT_EQ(load->count, f.recomputes);
    std::uint64_t beyondPrompt = 0;
    for (const auto& m : r.requests)
        if (m.failureHits > 0 && m.restoredTokens > m.promptTokens)
            ++beyondPrompt; // the replica's copy reached past the prompt
    EXPECT_GT(beyondPrompt, 0u);
    // Every prefix came from d1 (the replica) to p0: all of its bytes crossed the link.
    EXPECT_EQ(load->bytes, 256.0 * static_cast<double>(f.restoredTokens));
    expectAllAccounted(r, 40);
}

// The prefill node fails just after the recovered requests were sent back to it, while their prefix loads from its
// own memory are under way or queued: the loads are dropped (the batch is gone), the copies with the node, and the
// requests compute everything once p0 is back. Restored and redone tokens stay the sums of the requests' own.
TEST(Failures, APrefixLostBeforeItIsLoadedIsComputedInstead)
{
    Scenario s = threeGpuScenario("msi-directory");
    failAt(s, "d0", kSecond, kSecond, FailureRecovery::Recompute);
    failAt(s, "p0", 1300 * kMillisecond + 1, 500 * kMillisecond, FailureRecovery::Recompute); // after d0's detection
    const RunResult r = runBounded(s, steadyWorkload());
    const auto& f = r.summary.failures;
    ASSERT_EQ(f.failures.size(), 2u);
    EXPECT_EQ(f.failures[0].detected, 1300 * kMillisecond);
    std::uint64_t restored = 0, redone = 0, twice = 0;
    for (const auto& m : r.requests) {
        restored += m.restoredTokens;
        redone += m.recomputedTokens;
        if (m.failureHits >= 2) {
            ++twice;
            // Its prefix was on p0, which came back empty: nothing of its first life was loaded.
            EXPECT_EQ(m.restoredTokens, 0u) << m.id;
            EXPECT_GE(m.recomputedTokens, m.promptTokens) << m.id;
        }
    }
    EXPECT_GT(twice, 0u);
    EXPECT_EQ(restored, f.restoredTokens);
    EXPECT_EQ(redone, f.recomputedTokens);
    expectAllAccounted(r, 40);
}

TEST(Failures, ReplicaReadsTheSurvivingReplicaUnderAnInvalidationProtocol)
{
    Scenario s = threeGpuScenario("msi-directory", 2);
    failAt(s, "d0", kSecond, kSecond, FailureRecovery::Replica);
    const RunResult r = runBounded(s, steadyWorkload());
    const auto& f = r.summary.failures;
    EXPECT_GT(f.fromCopy, 0u);
    EXPECT_EQ(f.fromCopy + f.rerouted, f.hits);
    EXPECT_EQ(f.recomputes, 0u);
    EXPECT_GT(f.restoredTokens, f.fromCopy * 200);
    // Invalidate-and-refetch: at most the open tail block (16 tokens) is missing from a replica.
    EXPECT_LE(f.recomputedTokens, f.fromCopy * 16);
    expectAllAccounted(r, 40);
}

TEST(Failures, SealedLeaseReplicasLackTheOpenTailBlock)
{
    Scenario s = threeGpuScenario("sealed-lease", 2);
    failAt(s, "d0", kSecond, kSecond, FailureRecovery::Replica);
    const RunResult r = runBounded(s, steadyWorkload());
    const auto& f = r.summary.failures;
    ASSERT_GT(f.fromCopy, 0u);
    EXPECT_EQ(f.fromCopy + f.recomputes + f.rerouted, f.hits);
    // The open tail is loaded only once sealed: each replica lacks what the tail held (1..15 tokens, or none at a
    // block boundary). A sequence whose prompt's last block is still open has no replica holding its whole prompt:
    // it is recomputed.
    std::uint64_t caughtUp = 0;
    for (const auto& m : r.requests) {
        if (m.restoredTokens == 0)
            continue;
        EXPECT_EQ(m.restoredTokens % 16, 0u) << "only sealed (full) blocks are restored, request " << m.id;
        EXPECT_LE(m.recomputedTokens, 15u) << m.id;
        caughtUp += m.recomputedTokens;
    }
    EXPECT_GT(caughtUp, 0u);
    expectAllAccounted(r, 40);
}

TEST(Failures, WithoutAnySurvivingCopyEveryRecoveryComputesEverything)
{
    // The plain copy keeps nothing at the prefill instance once decode has the KV: no copy, no prefix survives, so
    // "replica" falls back to recompute and a recompute computes the prompt and the generated tokens again.
    for (const auto recovery : {FailureRecovery::Replica, FailureRecovery::Recompute}) {
        Scenario s = threeGpuScenario("direct");
        failAt(s, "d0", kSecond, kSecond, recovery);
        const RunResult r = runBounded(s, steadyWorkload());
        const auto& f = r.summary.failures;
        EXPECT_GT(f.recomputes, 0u);
        EXPECT_EQ(f.fromCopy, 0u);
        EXPECT_EQ(f.recomputes + f.rerouted, f.hits);
        EXPECT_EQ(f.restoredTokens, 0u);
        for (const auto& m : r.requests) {
            if (m.recomputedTokens > 0) {
                EXPECT_GE(m.recomputedTokens, m.promptTokens) << m.id;
            }
        }
        EXPECT_EQ(resumeLoads(r.summary), nullptr);
        expectAllAccounted(r, 40);
    }
}

TEST(Failures, RequestsWaitForARepairWhenNoInstanceOfTheirRoleIsUp)
{
    Scenario s = fastPrefillScenario();
    failAt(s, "d0", 500 * kMillisecond, 3 * kSecond, FailureRecovery::Recompute);
    const RunResult r = runBounded(s, steadyWorkload());
    expectAllAccounted(r, 40);
    EXPECT_EQ(r.summary.failures.failed, 0u);
    // Everything that arrived after the detection (at 0.8 s) waited for d0 to come back.
    for (const auto& m : r.requests) {
        if (m.arrival > 800 * kMillisecond) {
            EXPECT_GE(m.decodeStart, 3500 * kMillisecond) << m.id;
        }
    }
}

TEST(Failures, RequestsFailWhenTheirRoleNeverComesBack)
{
    Scenario s = fastPrefillScenario();
    failAt(s, "d0", 500 * kMillisecond, std::nullopt, FailureRecovery::Recompute);
    const RunResult r = runBounded(s, steadyWorkload());
    expectAllAccounted(r, 40);
    EXPECT_EQ(r.summary.completed, 0u); // nothing finishes its 2 s of decoding by 0.5 s
    EXPECT_EQ(r.summary.failures.failed, 40u);
    EXPECT_EQ(r.summary.failures.failures[0].repaired, -1);
}

// A decode role down for good and a node failing at random elsewhere: the requests fail as soon as nothing can
// serve them, so the random failures stop with them instead of going on for ever.
TEST(Failures, RandomFailuresStopWhenTheRemainingRequestsCanNeverBeServed)
{
    Scenario s = fastPrefillScenario();
    failAt(s, "d0", 500 * kMillisecond, std::nullopt, FailureRecovery::Recompute);
    FailureEventSpec random;
    random.node = "p0";
    random.mtbf = 2 * kSecond;
    random.repair = 100 * kMillisecond;
    s.failures.events.push_back(random);
    const RunResult r = runBounded(s, steadyWorkload());
    expectAllAccounted(r, 40);
    EXPECT_EQ(r.summary.failures.failed, 40u);
    EXPECT_LT(r.summary.failures.failures.size(), 10u);
}

TEST(Failures, APrefillNodeFailureReroutesItsQueue)
{
    Scenario s = threeGpuScenario("msi-directory");
    s.topology.nodes.push_back(servingNode("p1", NodeRole::Prefill));
    s.topology.links.push_back(link("p1", "d0", kMicrosecond, 1e9));
    s.topology.links.push_back(link("p1", "d1", kMicrosecond, 1e9));
    s.serving.instances.insert(s.serving.instances.begin() + 1, {"prefill1", InstanceRole::Prefill, {"p1"}, 0, 0});
    failAt(s, "p0", 300 * kMillisecond, 5 * kSecond, FailureRecovery::Recompute);
    const RunResult r = runBounded(s, steadyWorkload());
    expectAllAccounted(r, 40);
    EXPECT_EQ(r.summary.failures.failed, 0u);
    EXPECT_EQ(r.summary.failures.failures[0].instances, (std::vector<std::string>{"prefill0"}));
    for (const auto& m : r.requests) {
        if (m.arrival > 600 * kMillisecond) {
            EXPECT_EQ(m.prefillInstance, 1u) << m.id;
        }
    }
}

TEST(Failures, RandomFailuresAreDrawnFromTheSeedAndStopWithTheRun)
{
    Scenario s = threeGpuScenario("msi-directory");
    FailureEventSpec event;
    event.node = "d1";
    event.mtbf = 400 * kMillisecond;
    event.repair = 200 * kMillisecond;
    s.failures.events = {event};
    s.failures.heartbeat = 100 * kMillisecond;
    s.failures.timeout = 100 * kMillisecond;
    const Workload w = steadyWorkload();
    const RunResult a = runBounded(s, w);
    const RunResult b = runBounded(s, w);
    EXPECT_EQ(a.summary.failures.failures, b.summary.failures.failures);
    EXPECT_GE(a.summary.failures.failures.size(), 2u);
    SimTime last = 0;
    for (const auto& m : a.requests)
        last = std::max(last, m.finish);
    for (const auto& f : a.summary.failures.failures)
        EXPECT_LE(f.failed, last);
    expectAllAccounted(a, 40);
    s.seed = 8;
    EXPECT_NE(runBounded(s, w).summary.failures.failures, a.summary.failures.failures);
}

// Random workloads with KV tiers and a decode failure at a random time, under every strategy: no run hangs, every
// request is accounted for, and every tier copy is gone at the end.
TEST(Failures, RandomRunsWithTiersAccountForEveryRequest)
{
    std::mt19937_64 rng(99);
    const std::vector<std::string> protocols = {"direct", "msi-directory", "sealed-lease", "lazy-causal"};
    const FailureRecovery recoveries[] = {FailureRecovery::Replica, FailureRecovery::Recompute, FailureRecovery::Fail};
    std::uint64_t hits = 0;
    for (int trial = 0; trial < 48; ++trial) {
        SCOPED_TRACE(trial);
        Scenario s = threeGpuScenario(protocols[trial % protocols.size()], 1 + trial % 2);
        // 20 blocks of HBM per decode GPU and a DRAM tier on a host behind them.
        constexpr double kBlockBytes = 16 * 256.0;
        for (auto& node : s.topology.nodes)
            if (node.role == NodeRole::Decode)
                node.memory[0].capacityBytes = (s.model.weightBytes() + 20.5 * kBlockBytes) / 0.9;
        s.topology.nodes.push_back(dramHost("h0"));
        s.topology.links.push_back(link("d0", "h0", 2 * kMicrosecond, 1e9));
        s.topology.links.push_back(link("d1", "h0", 2 * kMicrosecond, 1e9));
        s.serving.kvTiers.tiers = {Tier::Dram};
        s.serving.decodeMaxBatchSize = 1 + static_cast<std::uint32_t>(rng() % 6);
        // A second prefill GPU, and one to three failures of any serving node, permanent or not, some at random:
        // failures that overlap, hit a request twice or take the source of one waiting for its recovery.
        s.topology.nodes.push_back(servingNode("p1", NodeRole::Prefill, 1e14));
        for (const char* d : {"d0", "d1", "h0"})
            s.topology.links.push_back(link("p1", d, kMicrosecond, 1e9));
        s.serving.instances.push_back({"prefill1", InstanceRole::Prefill, {"p1"}, 0, 0});
        const char* nodes[] = {"d0", "d1", "p0", "p1"};
        const int failures = 1 + static_cast<int>(rng() % 3);
        for (int f = 0; f < failures; ++f) {
            const char* node = nodes[rng() % 4];
            const auto at = static_cast<SimTime>(rng() % 400) * kMillisecond;
            const auto repair = rng() % 3
                                    ? std::optional<SimTime>(static_cast<SimTime>(50 + rng() % 500) * kMillisecond)
                                    : std::nullopt;
            failAt(s, node, at, repair, recoveries[trial % 3]);
            if (repair && rng() % 4 == 0) { // this one again and again
                s.failures.events.back().at.reset();
                s.failures.events.back().mtbf = static_cast<SimTime>(500 + rng() % 1000) * kMillisecond;
            }
        }
        const Workload w = randomSmallWorkload(rng, 10, 60);
        const RunResult r = runBounded(s, w);
        expectAllAccounted(r, w.requests.size());
        hits += r.summary.failures.hits;
        for (const auto& t : r.summary.kvTiers.tiers)
            EXPECT_DOUBLE_EQ(t.occupancy.empty() ? 0.0 : t.occupancy.back().blocks, 0.0);
    }
    EXPECT_GT(hits, 48u) << "the failures took requests in most trials";
}

TEST(Failures, SummaryRoundTripsThroughJson)
{
    Scenario s = threeGpuScenario("msi-directory", 2);
    failAt(s, "d0", kSecond, kSecond, FailureRecovery::Replica);
    const FailuresSummary f = runBounded(s, steadyWorkload()).summary.failures;
    const FailuresSummary back = failuresFromJson(toJson(f));
    EXPECT_TRUE(back.enabled);
    EXPECT_EQ(back.recovery, "replica");
    EXPECT_EQ(back.failures, f.failures);
    EXPECT_EQ(back.instancesUp, f.instancesUp);
    EXPECT_EQ(back.hits, f.hits);
    EXPECT_EQ(back.fromCopy, f.fromCopy);
    EXPECT_EQ(back.restoredTokens, f.restoredTokens);
    EXPECT_EQ(back.recomputedTokens, f.recomputedTokens);
    EXPECT_DOUBLE_EQ(back.availability, f.availability);
}

// The run store keeps what the failures did to each request and to the run; the CSV export adds its columns.
TEST(Failures, RunStoreAndExportsKeepEachRequestsFailureFigures)
{
    Scenario s = threeGpuScenario("msi-directory", 2);
    failAt(s, "d0", kSecond, kSecond, FailureRecovery::Replica);
    const RunResult r = runBounded(s, steadyWorkload());
    TempDir dir;
    RunStore store(dir.file("runs.db"));
    const std::int64_t id = store.beginRun("failures", "{}", s.seed);
    store.completeRun(id, r);
    const RunResult loaded = store.loadRun(id);
    ASSERT_EQ(loaded.requests.size(), r.requests.size());
    bool hit = false;
    for (std::size_t i = 0; i < r.requests.size(); ++i) {
        EXPECT_EQ(loaded.requests[i].failureHits, r.requests[i].failureHits);
        EXPECT_EQ(loaded.requests[i].restoredTokens, r.requests[i].restoredTokens);
        EXPECT_EQ(loaded.requests[i].recomputedTokens, r.requests[i].recomputedTokens);
        hit = hit || r.requests[i].restoredTokens > 0;
    }
    EXPECT_TRUE(hit);
    EXPECT_EQ(loaded.summary.failures.failures, r.summary.failures.failures);
    EXPECT_EQ(loaded.summary.failures.fromCopy, r.summary.failures.fromCopy);
    std::ostringstream csv;
    writeRequestsCsv(csv, r);
    const std::string header = csv.str().substr(0, csv.str().find('\n'));
    EXPECT_NE(header.find(",failure_hits,restored_tokens,recomputed_tokens"), std::string::npos) << header;
}

nlohmann::json minimalWithFailures(const nlohmann::json& failures)
{
    nlohmann::json j = readFixtureJson("minimal.json");
    j["failures"] = failures;
    return j;
}

TEST(Failures, ParserReadsTheSectionAndReportsEachBadFieldWithItsFix)
{
    const Scenario ok =
        parseScenario(minimalWithFailures({{"events",
                                            {{{"node", "gpu1"}, {"at", "2 s"}, {"repair", "10 s"}},
                                             {{"node", "gpu0"}, {"mtbf", "600 s"}, {"repair", "30 s"}}}},
                                           {"detection", {{"heartbeat", "50 ms"}, {"timeout", "200 ms"}}},
                                           {"recovery", "replica"}}),
                      "mem/scenario.json");
    ASSERT_EQ(ok.failures.events.size(), 2u);
    EXPECT_EQ(*ok.failures.events[0].at, 2 * kSecond);
    EXPECT_EQ(*ok.failures.events[0].repair, 10 * kSecond);
    EXPECT_EQ(*ok.failures.events[1].mtbf, 600 * kSecond);
    EXPECT_EQ(ok.failures.heartbeat, 50 * kMillisecond);
    EXPECT_EQ(ok.failures.timeout, 200 * kMillisecond);
    EXPECT_EQ(ok.failures.recovery, FailureRecovery::Replica);

    const auto event = [](nlohmann::json e) { return nlohmann::json{{"events", {std::move(e)}}}; };
    problemAt(minimalWithFailures(event({{"node", "gpu9"}, {"at", "1 s"}})), "/failures/events/0/node");
    problemAt(minimalWithFailures(event({{"node", "sw0"}, {"at", "1 s"}})), "/failures/events/0/node");
    problemAt(minimalWithFailures(event({{"node", "gpu1"}})), "/failures/events/0/at");
    problemAt(minimalWithFailures(event({{"node", "gpu1"}, {"at", "1 s"}, {"mtbf", "9 s"}, {"repair", "1 s"}})),
              "/failures/events/0/mtbf");
    problemAt(minimalWithFailures(event({{"node", "gpu1"}, {"mtbf", "9 s"}})), "/failures/events/0/repair");
    problemAt(minimalWithFailures(event({{"node", "gpu1"}, {"at", "-1 s"}})), "/failures/events/0/at");
    problemAt(minimalWithFailures(event({{"node", "gpu1"}, {"at", "1 s"}, {"when", "now"}})),
              "/failures/events/0/when");
    problemAt(minimalWithFailures({{"events", nlohmann::json::array()}}), "/failures/events");
    problemAt(minimalWithFailures({{"events", {{{"node", "gpu1"}, {"at", "1 s"}}}}, {"recovery", "pray"}}),
              "/failures/recovery");
    problemAt(minimalWithFailures({{"events", {{{"node", "gpu1"}, {"at", "1 s"}}}},
                                   {"detection", {{"heartbeat", "1 s"}, {"timeout", "100 ms"}}}}),
              "/failures/detection/timeout");
    problemAt(minimalWithFailures({{"recovery", "fail"}}), "/failures/events");
}

} // namespace
} // namespace coh::test
