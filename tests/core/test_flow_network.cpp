// The flow-level network: latency + serialization, and max-min fair sharing of bottlenecks.
#include "core/net/flow_network.h"
#include "core/net/max_min_fair.h"
#include "engine_fixtures.h"

#include <gtest/gtest.h>

#include <map>

namespace coh::test {
namespace {

struct Harness : FlowSink {
    enum : std::uint32_t { Wake, Deliver, Send };
    Topology topo;
    Simulator sim;
    Routing routing;
    FlowNetwork net;
    std::map<std::uint64_t, SimTime> delivered;
    std::vector<std::tuple<std::uint32_t, double, std::uint64_t>> pendingSends; // indexed by Send payload

    explicit Harness(Topology t)
        : topo(std::move(t))
        , routing(topo)
        , net(topo, routing, sim, Wake, Deliver, kSecond)
    {
        net.setSink(this);
    }
    void onFlowDelivered(const FlowInfo& f) override { delivered[f.cookie] = f.delivered; }
    void sendAt(SimTime t, std::uint32_t src, std::uint32_t dst, double bytes, std::uint64_t cookie)
    {
        pendingSends.emplace_back(routing.routeId(src, dst), bytes, cookie);
        sim.scheduleAt(t, Send, 0, pendingSends.size() - 1);
    }
    void operator()(const Event& ev)
    {
        if (ev.kind == Wake)
            net.onWake(ev);
        else if (ev.kind == Deliver)
            net.onDeliver(ev);
        else {
            auto [route, bytes, cookie] = pendingSends[ev.payload];
            net.send(route, bytes, cookie);
        }
    }
    void run() { sim.run(*this); }
};

// a --(1 us, 10 GB/s)-- s --(2 us, 5 GB/s)-- b
Topology chain()
{
    Topology t;
    t.nodes = {servingNode("a", NodeRole::Prefill), servingNode("s", NodeRole::None), servingNode("b", NodeRole::Decode)};
    t.links = {link("a", "s", kMicrosecond, 10e9), link("s", "b", 2 * kMicrosecond, 5e9)};
    return t;
}

TEST(FlowNetwork, UncontendedTransferIsLatencyPlusSizeOverBottleneck)
{
    Harness h(chain());
    h.sendAt(0, 0, 2, 1e9, 1);
    h.run();
    // 1 us + 2 us of latency, 1e9 B at the 5 GB/s bottleneck = 0.2 s.
    EXPECT_EQ(h.delivered.at(1), 3 * kMicrosecond + 200 * kMillisecond);
}

TEST(FlowNetwork, TwoEqualTransfersSharingABottleneckTakeTwiceTheSerialization)
{
    Harness h(chain());
    h.sendAt(0, 0, 2, 1e9, 1);
    h.sendAt(0, 0, 2, 1e9, 2);
    h.run();
    EXPECT_EQ(h.delivered.at(1), 3 * kMicrosecond + 400 * kMillisecond);
    EXPECT_EQ(h.delivered.at(2), 3 * kMicrosecond + 400 * kMillisecond);
}

TEST(FlowNetwork, OppositeDirectionsDoNotShareBandwidth)
{
    Harness h(chain());
    h.sendAt(0, 0, 2, 1e9, 1);
    h.sendAt(0, 2, 0, 1e9, 2);
    h.run();
    EXPECT_EQ(h.delivered.at(1), 3 * kMicrosecond + 200 * kMillisecond);
    EXPECT_EQ(h.delivered.at(2), 3 * kMicrosecond + 200 * kMillisecond);
}

TEST(FlowNetwork, RatesAreReallocatedWhenAFlowJoinsAndLeaves)
{
    Harness h(chain());
    h.sendAt(0, 0, 2, 1e9, 1);                   // alone at 5 GB/s for 0.1 s: 0.5e9 B left
    h.sendAt(100 * kMillisecond, 0, 2, 0.25e9, 2); // then both at 2.5 GB/s
    h.run();
    // Flow 2 drains in 0.1 s; flow 1 then has 0.25e9 B left at 5 GB/s: 0.05 s more.
    EXPECT_EQ(h.delivered.at(2), 200 * kMillisecond + 3 * kMicrosecond);
    EXPECT_EQ(h.delivered.at(1), 250 * kMillisecond + 3 * kMicrosecond);
}

TEST(FlowNetwork, LinkUsageCountsEveryByteInTheRightBucket)
{
    Harness h(chain());
    h.sendAt(0, 0, 2, 10e9, 1); // 2 s at 5 GB/s on both hops
    h.run();
    const auto& usage = h.net.usage();
    EXPECT_NEAR(usage.totalBytes(channelOf(0, true)), 10e9, 1.0);
    EXPECT_NEAR(usage.totalBytes(channelOf(1, true)), 10e9, 1.0);
    EXPECT_EQ(usage.totalBytes(channelOf(1, false)), 0.0);
    ASSERT_EQ(usage.buckets(channelOf(1, true)).size(), 2u);
    EXPECT_NEAR(usage.buckets(channelOf(1, true))[0], 5e9, 1.0);
    EXPECT_NEAR(usage.buckets(channelOf(1, true))[1], 5e9, 1.0);
}

TEST(MaxMinFair, AFlowLimitedElsewhereLeavesItsShareToOthers)
{
    // Channel 0 (10) is shared by flows 0 and 1; flow 1 also crosses channel 1 (2): max-min gives 8 and 2.
    const std::vector<std::uint32_t> f0{0}, f1{0, 1};
    const std::vector<std::span<const std::uint32_t>> flows{f0, f1};
    const std::vector<double> capacity{10.0, 2.0};
    std::vector<double> rates;
    MaxMinFairSolver solver;
    solver.solve(flows, capacity, rates);
    ASSERT_EQ(rates.size(), 2u);
    EXPECT_DOUBLE_EQ(rates[0], 8.0);
    EXPECT_DOUBLE_EQ(rates[1], 2.0);
}

TEST(Routing, PicksTheLowestLatencyPathNotTheFewestHops)
{
    Topology t;
    t.nodes = {servingNode("a", NodeRole::Prefill), servingNode("m", NodeRole::None), servingNode("b", NodeRole::Decode)};
    t.links = {link("a", "b", 10 * kMicrosecond, 1e9), link("a", "m", kMicrosecond, 1e9), link("m", "b", kMicrosecond, 1e9)};
    Routing r(t);
    const Route& route = r.route(0, 2);
    ASSERT_TRUE(route.reachable);
    EXPECT_EQ(route.latency, 2 * kMicrosecond);
    EXPECT_EQ(route.channels, (std::vector<std::uint32_t>{channelOf(1, true), channelOf(2, true)}));
    const Route& back = r.route(2, 0);
    EXPECT_EQ(back.channels, (std::vector<std::uint32_t>{channelOf(2, false), channelOf(1, false)}));
}

TEST(Routing, ReportsUnreachablePairs)
{
    Topology t;
    t.nodes = {servingNode("a", NodeRole::Prefill), servingNode("b", NodeRole::Decode)};
    Routing r(t);
    EXPECT_FALSE(r.route(0, 1).reachable);
    EXPECT_TRUE(r.route(0, 0).reachable);
}

} // namespace
} // namespace coh::test
