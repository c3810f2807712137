// The flow-level network: latency + serialization, and max-min fair sharing of bottlenecks.
#include "core/net/flow_network.h"
#include "core/net/simulation_limit.h"
#include "engine_fixtures.h"
#include "max_min_reference.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <random>

namespace coh::test {
namespace {

struct Harness : FlowEndpoint {
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
    }
    void onFlowDelivered(const FlowInfo& f) override { delivered[f.tag] = f.delivered; }
    void sendAt(SimTime t, std::uint32_t src, std::uint32_t dst, double bytes, std::uint64_t tag)
    {
        pendingSends.emplace_back(routing.routeId(src, dst), bytes, tag);
        sim.scheduleAt(t, Send, 0, pendingSends.size() - 1);
    }
    void operator()(const Event& ev)
    {
        if (ev.kind == Wake)
            net.onWake(ev);
        else if (ev.kind == Deliver)
            net.onDeliver(ev);
        else {
            auto [route, bytes, tag] = pendingSends[ev.payload];
            net.send(route, bytes, *this, tag);
        }
    }
    void run() { sim.run(*this); }
};

// a --(1 us, 10 GB/s)-- s --(2 us, 5 GB/s)-- b
Topology chain()
{
    Topology t;
    t.nodes = {servingNode("a", NodeRole::Prefill), servingNode("s", NodeRole::None),
               servingNode("b", NodeRole::Decode)};
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
    h.sendAt(0, 0, 2, 1e9, 1);                     // alone at 5 GB/s for 0.1 s: 0.5e9 B left
    h.sendAt(100 * kMillisecond, 0, 2, 0.25e9, 2); // then both at 2.5 GB/s
    h.run();
    // Flow 2 drains in 0.1 s; flow 1 then has 0.25e9 B left at 5 GB/s: 0.05 s more.
    EXPECT_EQ(h.delivered.at(2), 200 * kMillisecond + 3 * kMicrosecond);
    EXPECT_EQ(h.delivered.at(1), 250 * kMillisecond + 3 * kMicrosecond);
}

// An endpoint that records what reached it, beside the harness's own.
struct Recorder : FlowEndpoint {
    std::vector<std::pair<std::uint64_t, SimTime>> got;
    void onFlowDelivered(const FlowInfo& f) override { got.emplace_back(f.tag, f.delivered); }
};

TEST(FlowNetwork, EachFlowIsDeliveredToTheEndpointThatSentItWithItsTag)
{
    Harness h(chain());
    Recorder a, b;
    // The same tag at three endpoints: the tag means something only to its endpoint.
    h.net.send(h.routing.routeId(0, 2), 1e9, a, 7);
    h.net.send(h.routing.routeId(2, 0), 1e9, b, 7);
    h.net.send(h.routing.routeId(0, 0), 100, b, 9); // same node: delivered at once, through the queue
    h.net.send(h.routing.routeId(0, 2), 0, h, 7);
    h.run();
    ASSERT_EQ(a.got.size(), 1u);
    EXPECT_EQ(a.got[0], std::make_pair(std::uint64_t{7}, 3 * kMicrosecond + 200 * kMillisecond));
    ASSERT_EQ(b.got.size(), 2u);
    EXPECT_EQ(b.got[0], std::make_pair(std::uint64_t{9}, SimTime{0}));
    EXPECT_EQ(b.got[1], std::make_pair(std::uint64_t{7}, 3 * kMicrosecond + 200 * kMillisecond));
    ASSERT_EQ(h.delivered.size(), 1u);
    EXPECT_EQ(h.delivered.at(7), 3 * kMicrosecond); // an empty message takes the route's latency
}

TEST(FlowNetwork, IdenticalMessagesSentAtOneInstantShareAsSeparateFlowsAndArriveInOrder)
{
    Harness h(chain());
    Recorder bundle;
    // Three equal messages a -> b at one instant (one bundle), and one of half their size s -> b beside them.
    for (std::uint64_t tag : {3, 1, 2})
        h.net.send(h.routing.routeId(0, 2), 1e9, bundle, tag);
    h.net.send(h.routing.routeId(1, 2), 0.5e9, h, 9);
    // Two more over a -> b: a smaller one, not of the bundle, and an empty one (latency only).
    h.net.send(h.routing.routeId(0, 2), 0.25e9, h, 10);
    h.net.send(h.routing.routeId(0, 2), 0, h, 11);
    h.run();
    // Five flows share s-b (5 GB/s) at 1 GB/s each: flow 10 drains at 0.25 s; then four at 1.25 GB/s: flow 9 has
    // 0.25e9 B left, 0.2 s more; the three then have 0.5e9 B left each at 5/3 GB/s: 0.3 s more.
    EXPECT_EQ(h.delivered.at(10), 250 * kMillisecond + 3 * kMicrosecond);
    EXPECT_EQ(h.delivered.at(9), 450 * kMillisecond + 2 * kMicrosecond);
    EXPECT_EQ(h.delivered.at(11), 3 * kMicrosecond);
    ASSERT_EQ(bundle.got.size(), 3u);
    const SimTime end = 450 * kMillisecond + 300 * kMillisecond + 3 * kMicrosecond;
    for (std::size_t i = 0; i < 3; ++i)
        EXPECT_EQ(bundle.got[i].second, end) << i;
    EXPECT_EQ(bundle.got[0].first, 3u) << "a bundle arrives in the order it was sent";
    EXPECT_EQ(bundle.got[1].first, 1u);
    EXPECT_EQ(bundle.got[2].first, 2u);
    // Every byte of every member crossed both links.
    const LinkUsage& usage = h.net.usage();
    EXPECT_NEAR(usage.totalBytes(channelOf(0, true)), 3.25e9, 1.0);
    EXPECT_NEAR(usage.totalBytes(channelOf(1, true)), 3.75e9, 1.0);
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

TEST(FlowNetwork, AMessageThatDrainsWithinANanosecondIsNotFairShared)
{
    Harness h(chain());
    h.sendAt(0, 0, 2, 1e9, 1);            // 0.2 s at the 5 B/ns bottleneck
    h.sendAt(kMillisecond, 0, 2, 5.0, 2); // 5 B: one ns at 5 B/ns
    h.sendAt(kMillisecond, 0, 2, 5.5, 3); // a little more: fair-shared with flow 1
    h.run();
    EXPECT_EQ(h.delivered.at(2), kMillisecond + 3 * kMicrosecond + 1);
    // Flow 3 shares 5 B/ns with flow 1 for 2.2 ns (rounded up to 3) and costs flow 1 its 5.5 B, a ns more.
    EXPECT_EQ(h.delivered.at(3), kMillisecond + 3 * kMicrosecond + 3);
    EXPECT_EQ(h.delivered.at(1), 3 * kMicrosecond + 200 * kMillisecond + 2);
    // Every byte is on the link; a fair-shared flow's last, partial ns is accounted whole (at most 5 B each).
    const double carried = h.net.usage().totalBytes(channelOf(1, true));
    EXPECT_GE(carried, 1e9 + 10.5);
    EXPECT_LE(carried, 1e9 + 10.5 + 2 * 5.0);
}

TEST(FlowNetwork, AMessageEndingPastTheClockIsRefusedNamingItsSlowestLink)
{
    Topology t = chain();
    t.links[1].bandwidthBytesPerSec = 0.1; // s-b
    Harness h(t);
    // 1e9 B at 0.1 B/s: 10^10 s = 10^19 ns, past the 9.2 x 10^18 ns a 64-bit clock holds.
    h.sendAt(0, 0, 2, 1e9, 1);
    try {
        h.run();
        FAIL() << "no SimulationLimitError";
    } catch (const SimulationLimitError& e) {
        EXPECT_EQ(e.link(), 1u);
        EXPECT_EQ(e.field(), "bandwidth");
        EXPECT_NE(std::string(e.what()).find("link 's-b'"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("representable"), std::string::npos) << e.what();
    }
}

TEST(FlowNetwork, AMessageOfDecadesIsDeliveredWithBoundedUsageBuckets)
{
    Topology t = chain();
    t.links[1].bandwidthBytesPerSec = 0.1;
    Harness h(t);
    // 1e8 B at 0.1 B/s: 10^18 ns (31.7 years) plus 3 us of latency, within the clock. One-second buckets
    // coarsen to 2^18 s: 3,815 of them instead of 10^9.
    h.sendAt(0, 0, 2, 1e8, 1);
    h.run();
    // 0.1 B/s is not exact in binary: the end may sit a few doubles' spacing (128 ns at 1e18) off.
    EXPECT_NEAR(static_cast<double>(h.delivered.at(1)), 1e18 + 3e3, 4096.0);
    const auto& usage = h.net.usage();
    EXPECT_EQ(usage.interval(), kSecond << 18);
    EXPECT_LE(usage.buckets(channelOf(1, true)).size(), kMaxSeriesBuckets);
    double carried = 0;
    for (double b : usage.buckets(channelOf(1, true)))
        carried += b;
    EXPECT_NEAR(carried, 1e8, 1e-6 * 1e8);
    EXPECT_NEAR(usage.totalBytes(channelOf(1, true)), 1e8, 1e-6 * 1e8);
}

// The reference the incremental solve must reproduce: a fluid simulation that re-solves every active flow with
// the plain max-min solver at every start and end, with the network's rounding (completions at whole ns, a
// flow drained once less than a ns of it is left) and its rule for messages that drain within a ns.
struct ReferenceSend {
    SimTime at;
    std::uint32_t route;
    double bytes;
    std::uint64_t tag;
};

std::map<std::uint64_t, SimTime> referenceDeliveries(const Topology& topo, const Routing& routing,
                                                     std::vector<ReferenceSend> sends)
{
    std::vector<double> capacity(topo.links.size() * 2);
    for (std::uint32_t l = 0; l < topo.links.size(); ++l)
        capacity[channelOf(l, true)] = capacity[channelOf(l, false)] = topo.links[l].bandwidthBytesPerSec * 1e-9;
    struct Active {
        ReferenceSend send;
        double remaining, rate;
    };
    std::vector<Active> active;
    std::map<std::uint64_t, SimTime> delivered;
    MaxMinFairSolver solver;
    std::vector<std::span<const std::uint32_t>> paths;
    std::vector<double> rates;
    std::stable_sort(sends.begin(), sends.end(), [](const auto& a, const auto& b) { return a.at < b.at; });
    std::size_t next = 0;
    SimTime now = 0;
    while (next < sends.size() || !active.empty()) {
        for (auto it = active.begin(); it != active.end();) {
            if (it->remaining <= it->rate + 1e-9 * it->send.bytes) {
                delivered[it->send.tag] = now + routing.route(it->send.route).latency;
                it = active.erase(it);
            } else {
                ++it;
            }
        }
        for (; next < sends.size() && sends[next].at == now; ++next) {
            const Route& route = routing.route(sends[next].route);
            double bottleneck = std::numeric_limits<double>::infinity();
            for (auto c : route.channels)
                bottleneck = std::min(bottleneck, capacity[c]);
            if (sends[next].bytes <= bottleneck)
                delivered[sends[next].tag] = now + route.latency + 1;
            else
                active.push_back({sends[next], sends[next].bytes, 0});
        }
        paths.clear();
        for (const auto& a : active)
            paths.emplace_back(routing.route(a.send.route).channels);
        solver.solve(paths, capacity, rates);
        double soonest = std::numeric_limits<double>::infinity();
        for (std::size_t i = 0; i < active.size(); ++i) {
            active[i].rate = rates[i];
            soonest = std::min(soonest, active[i].remaining / rates[i]);
        }
        SimTime then = std::isfinite(soonest) ? now + static_cast<SimTime>(std::ceil(soonest)) : kTimeInfinity;
        if (next < sends.size())
            then = std::min(then, sends[next].at);
        for (auto& a : active)
            a.remaining -= a.rate * static_cast<double>(then - now);
        now = then;
    }
    return delivered;
}

TEST(FlowNetwork, SolvingOnlyTheChangedComponentMatchesSolvingEverything)
{
    for (std::uint64_t seed = 1; seed <= 5; ++seed) {
        std::mt19937_64 rng(seed);
        // Six nodes: a chain (so every pair is reachable) plus random shortcuts, links of 1 to 50 GB/s.
        Topology topo;
        const std::vector<std::string> ids = {"n0", "n1", "n2", "n3", "n4", "n5"};
        for (const auto& id : ids)
            topo.nodes.push_back(servingNode(id, NodeRole::None));
        std::uniform_real_distribution<double> gbps(1, 50);
        for (std::size_t n = 1; n < ids.size(); ++n)
            topo.links.push_back(link(ids[n - 1], ids[n], kMicrosecond, gbps(rng) * 1e9));
        topo.links.push_back(link("n0", "n3", 2 * kMicrosecond, gbps(rng) * 1e9));
        topo.links.push_back(link("n2", "n5", 3 * kMicrosecond, gbps(rng) * 1e9));
        Harness h(topo);
        std::vector<ReferenceSend> sends;
        std::uniform_int_distribution<int> node(0, 5);
        std::uniform_int_distribution<SimTime> when(0, 200 * kMicrosecond);
        std::uniform_real_distribution<double> logBytes(1, 7); // 10 B .. 10 MB: control messages and KV blocks
        for (std::uint64_t tag = 0; tag < 300; ++tag) {
            const int src = node(rng);
            int dst = node(rng);
            if (dst == src)
                dst = (dst + 1) % 6;
            // Some sends share an instant, as a decode step's do.
            const SimTime at = tag % 7 == 0 && !sends.empty() ? sends.back().at : when(rng);
            const double bytes = std::round(std::pow(10.0, logBytes(rng)));
            h.sendAt(at, src, dst, bytes, tag);
            sends.push_back({at, h.routing.routeId(src, dst), bytes, tag});
        }
        h.run();
        const auto expected = referenceDeliveries(h.topo, h.routing, sends);
        ASSERT_EQ(h.delivered.size(), expected.size());
        for (const auto& [tag, at] : expected)
            // Both round completions up to whole ns; the order of floating-point updates may move one by a ns.
            EXPECT_NEAR(static_cast<double>(h.delivered.at(tag)), static_cast<double>(at), 2.0)
                << "seed " << seed << ", message " << tag;
    }
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
    t.nodes = {servingNode("a", NodeRole::Prefill), servingNode("m", NodeRole::None),
               servingNode("b", NodeRole::Decode)};
    t.links = {link("a", "b", 10 * kMicrosecond, 1e9), link("a", "m", kMicrosecond, 1e9),
               link("m", "b", kMicrosecond, 1e9)};
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
