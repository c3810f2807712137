// coherence.lease under sealed-lease: decode holds the prefill blocks it reads as leased replicas (R). When a lease
// runs out, `refetch` drops the copy as the table releases it, so the next read asks the master again (a Lease-Req
// and a Lease-Grant per block, paid as stall); `trust` keeps reading and counts every read after expiry, the bug
// of a store that reclaims expired blocks under a reader still using them.
#include "core/engine/traffic_counts.h"
#include "core/serving/serving_engine.h"
#include "engine_fixtures.h"

#include <gtest/gtest.h>

namespace coh::test {
namespace {

std::uint64_t countOf(const RunSummary& s, const std::string& name)
{
    for (const auto& k : s.messagesByKind)
        if (k.name == name)
            return k.count;
    return 0;
}

Scenario sealedScenario(std::optional<SimTime> ttl, LeaseExpiry onExpiry = LeaseExpiry::Refetch)
{
    Scenario s = twoGpuScenario();
    s.coherence.decode = s.coherence.prefill = "sealed-lease";
    s.coherence.lease.ttl = ttl;
    s.coherence.lease.onExpiry = onExpiry;
    return s;
}

// 100 prompt tokens: 6 full blocks decode reads under a lease, and the open tail it takes over and appends to.
Workload oneRequest()
{
    Workload w;
    w.requests.push_back({0, 100, 5, 0, 0});
    return w;
}

TEST(LeaseExpiry, ALeaseThatOutlivesTheRequestChangesNothing)
{
    const RunResult plain = runScenario(sealedScenario(std::nullopt), oneRequest());
    const RunResult leased = runScenario(sealedScenario(kSecond), oneRequest());
    ASSERT_EQ(leased.summary.completed, 1u);
    const LeaseSummary& l = leased.summary.lease;
    EXPECT_EQ(l.ttl, kSecond);
    EXPECT_EQ(l.grants, 6u);       // one Lease-Grant per full block, at the KV transfer
    EXPECT_EQ(l.leasedReads, 30u); // 5 decode steps read the 6 blocks
    EXPECT_EQ(l.expiredReads, 0u);
    EXPECT_EQ(l.refetches, 0u);
    EXPECT_EQ(trafficCounts(leased.summary).messages, trafficCounts(plain.summary).messages);
    EXPECT_EQ(leased.requests[0].finish, plain.requests[0].finish);
    EXPECT_EQ(plain.summary.lease.ttl, -1); // no coherence.lease: nothing tracked
    EXPECT_EQ(plain.summary.lease.grants, 0u);
}

TEST(LeaseExpiry, TrustCountsEveryReadAfterExpiryAndCostsNothing)
{
    // The first of the 5 decode steps starts at the instant the grants arrive, within a 1 ns lease; the 4 after it
    // read the 6 blocks after expiry.
    const RunResult plain = runScenario(sealedScenario(std::nullopt), oneRequest());
    const RunResult trust = runScenario(sealedScenario(1, LeaseExpiry::Trust), oneRequest());
    ASSERT_EQ(trust.summary.completed, 1u);
    const LeaseSummary& l = trust.summary.lease;
    EXPECT_FALSE(l.refetch);
    EXPECT_EQ(l.expiredReads, 24u);
    EXPECT_EQ(l.expiredSteps, 4u);
    EXPECT_EQ(l.leasedReads, 30u);
    EXPECT_EQ(l.refetches, 0u);
    // The bug is free, which is why stores ship it: same messages, same token times.
    EXPECT_EQ(trafficCounts(trust.summary).messages, trafficCounts(plain.summary).messages);
    EXPECT_EQ(trust.requests[0].finish, plain.requests[0].finish);
}

TEST(LeaseExpiry, RefetchAsksTheMasterAgainAndPaysTheRoundTripAsStall)
{
    const RunResult plain = runScenario(sealedScenario(std::nullopt), oneRequest());
    const RunResult refetch = runScenario(sealedScenario(1), oneRequest());
    ASSERT_EQ(refetch.summary.completed, 1u);
    const LeaseSummary& l = refetch.summary.lease;
    EXPECT_TRUE(l.refetch);
    EXPECT_EQ(l.expiredReads, 0u); // nothing reads an expired copy
    EXPECT_EQ(l.refetches, 24u);   // each step after the first fetches the 6 blocks again
    EXPECT_EQ(l.grants, 6u + 24u);
    // The sealed block needs no new Seal: the master answers each refetch from memory.
    EXPECT_EQ(countOf(refetch.summary, "Lease-Req"), countOf(plain.summary, "Lease-Req") + 24u);
    EXPECT_EQ(countOf(refetch.summary, "Lease-Grant"), countOf(plain.summary, "Lease-Grant") + 24u);
    EXPECT_EQ(countOf(refetch.summary, "Seal"), countOf(plain.summary, "Seal"));
    EXPECT_EQ(plain.requests[0].decodeStall + plain.requests[0].decodeTransfer, 0);
    // Each of the 4 steps waits for 6 Lease-Reqs (6 x 64 B over the 1 us, 1 GB/s link) and 6 blocks back
    // (6 x 4096 B), and that wait is all the difference.
    const RequestMetrics& m = refetch.requests[0];
    const SimTime roundTrip = (1'000 + 384) + (1'000 + 24'576);
    EXPECT_EQ(m.decodeStall + m.decodeTransfer, 4 * roundTrip);
    EXPECT_EQ(m.finish - plain.requests[0].finish, 4 * roundTrip);
}

TEST(LeaseExpiry, ShorterLeasesRefetchMoreAndTrustMissesMoreOnALoadedRun)
{
    const Workload w = poissonWorkload(200, 3.0, 150, 40, 5);
    std::uint64_t lastRefetches = UINT64_MAX, lastExpired = UINT64_MAX;
    // Decode steps here take about 20 ms, and a request decodes for about 0.8 s.
    for (const SimTime ttl : {10 * kMillisecond, 100 * kMillisecond, 400 * kMillisecond}) {
        SCOPED_TRACE(ttl);
        const RunResult refetch = runScenario(sealedScenario(ttl), w);
        const RunResult trust = runScenario(sealedScenario(ttl, LeaseExpiry::Trust), w);
        EXPECT_EQ(refetch.summary.completed, 200u);
        EXPECT_EQ(trust.summary.completed, 200u);
        EXPECT_EQ(countOf(refetch.summary, "Lease-Grant"), refetch.summary.lease.grants);
        EXPECT_LT(refetch.summary.lease.refetches, lastRefetches);
        EXPECT_LT(trust.summary.lease.expiredReads, lastExpired);
        EXPECT_LE(trust.summary.lease.expiredSteps, trust.summary.staleness.decodeSteps);
        EXPECT_GT(refetch.summary.tpotMs.p50, trust.summary.tpotMs.p50);
        lastRefetches = refetch.summary.lease.refetches;
        lastExpired = trust.summary.lease.expiredReads;
    }
}

TEST(LeaseExpiry, RefetchesKeepEveryRequestCorrectWithReplicas)
{
    // Replicas seal decode's own closed blocks too (their loads make decode publish them), so decode holds more
    // leases than the prompt's; every one is fetched again and the invariants hold on every step.
    Scenario s = sealedScenario(kMillisecond);
    s.topology.nodes.push_back(servingNode("r0", NodeRole::None));
    s.topology.links.push_back(link("d0", "r0", kMicrosecond, 1e9));
    s.serving.replication.factor = 2;
    const RunResult r = runScenario(s, poissonWorkload(100, 3.0, 150, 40, 9));
    EXPECT_EQ(r.summary.completed, 100u);
    EXPECT_GT(r.summary.lease.refetches, 0u);
    EXPECT_EQ(r.summary.lease.expiredReads, 0u);
    const Scenario unreplicated = sealedScenario(kMillisecond);
    const RunResult one = runScenario(unreplicated, poissonWorkload(100, 3.0, 150, 40, 9));
    EXPECT_GT(r.summary.lease.grants, one.summary.lease.grants); // decode's sealed closed blocks are leased too
}

} // namespace
} // namespace coh::test
