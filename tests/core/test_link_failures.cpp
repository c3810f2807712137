// Link failures (docs/engine.md#link-failures): routing avoids a link it knows is down and gives a path found again
// its old id; the flow network stops the flows crossing a failed link and sends them again, whole, over the route
// around it once the failure is detected, or over the link once it is back; in a serving run every request still
// completes, later. Times follow from latency + size / bottleneck, as in test_flow_network.cpp.
#include "bounded_run.h"
#include "core/net/flow_network.h"
#include "core/store/failures_json.h"
#include "engine_fixtures.h"
#include "tests/core/scenario_test_util.h"

#include <gtest/gtest.h>

#include <map>

namespace coh::test {
namespace {

// Sends and link events at set times, through one flow network.
struct LinkHarness : FlowEndpoint {
    enum : std::uint32_t { Wake, Deliver, Send, Fail, Detect, Repair };
    Topology topo;
    Simulator sim;
    Routing routing;
    FlowNetwork net;
    std::map<std::uint64_t, FlowInfo> delivered;
    std::vector<std::tuple<std::uint32_t, double, std::uint64_t>> sends; // by Send payload

    explicit LinkHarness(Topology t)
        : topo(std::move(t))
        , routing(topo)
        , net(topo, routing, sim, Wake, Deliver, kSecond)
    {
    }
    void onFlowDelivered(const FlowInfo& f) override { delivered[f.tag] = f; }
    void sendAt(SimTime t, const std::string& src, const std::string& dst, double bytes, std::uint64_t tag)
    {
        sends.emplace_back(routing.routeId(*topo.nodeIndex(src), *topo.nodeIndex(dst)), bytes, tag);
        sim.scheduleAt(t, Send, 0, sends.size() - 1);
    }
    void linkAt(SimTime t, std::uint32_t kind, const std::string& link)
    {
        sim.scheduleAt(t, kind, *topo.linkIndex(link));
    }
    void operator()(const Event& ev)
    {
        switch (ev.kind) {
        case Wake:
            net.onWake(ev);
            break;
        case Deliver:
            net.onDeliver(ev);
            break;
        case Send: {
            auto [route, bytes, tag] = sends[ev.payload];
            net.send(route, bytes, *this, tag);
            break;
        }
        case Fail:
            net.linkFailed(ev.target);
            break;
        case Detect:
            net.linkDetected(ev.target);
            break;
        case Repair:
            net.linkRepaired(ev.target);
            break;
        }
    }
    void run() { sim.run(*this); }
    SimTime at(std::uint64_t tag) const { return delivered.at(tag).delivered; }
};

// a --(1 us, 10 GB/s)-- s1 --(1 us, 10 GB/s)-- b, and around it a --(2 us, 5 GB/s)-- s2 --(2 us, 5 GB/s)-- b.
Topology diamond()
{
    Topology t;
    for (const char* id : {"a", "s1", "s2", "b"})
        t.nodes.push_back(servingNode(id, NodeRole::None));
    t.links = {link("a", "s1", kMicrosecond, 10e9), link("s1", "b", kMicrosecond, 10e9),
               link("a", "s2", 2 * kMicrosecond, 5e9), link("s2", "b", 2 * kMicrosecond, 5e9)};
    return t;
}

// a --(1 us, 10 GB/s)-- s --(2 us, 5 GB/s)-- b, and c --(1 us, 10 GB/s)-- s.
Topology star()
{
    Topology t;
    for (const char* id : {"a", "s", "b", "c"})
        t.nodes.push_back(servingNode(id, NodeRole::None));
    t.links = {link("a", "s", kMicrosecond, 10e9), link("s", "b", 2 * kMicrosecond, 5e9),
               link("c", "s", kMicrosecond, 10e9)};
    return t;
}

TEST(LinkFailures, ABundleOfEqualMessagesStopsMemberByMemberAndIsSentAgainWhole)
{
    LinkHarness h(diamond());
    for (std::uint64_t tag : {1, 2, 3}) // one instant, one route, one size: one bundle at 10/3 GB/s each
        h.sendAt(0, "a", "b", 1e9, tag);
    h.linkAt(60 * kMillisecond, LinkHarness::Fail, "a-s1");
    h.linkAt(90 * kMillisecond, LinkHarness::Detect, "a-s1");
    h.run();
    // Sent again at 90 ms over a-s2-b, the three sharing 5 GB/s: 4 us + 3e9 B / 5 GB/s.
    for (std::uint64_t tag : {1, 2, 3}) {
        EXPECT_EQ(h.at(tag), 90 * kMillisecond + 4 * kMicrosecond + 600 * kMillisecond) << tag;
        EXPECT_EQ(h.delivered.at(tag).start, 0) << tag;
    }
    const auto& f = h.net.faultCounts();
    EXPECT_EQ(f.stopped, 3u);
    EXPECT_EQ(f.rerouted, 3u);
    EXPECT_NEAR(f.bytesResent, 6e8, 1.0); // 60 ms at 10 GB/s, a third each
    EXPECT_DOUBLE_EQ(f.stalledNs, 3 * 30e6);
    EXPECT_EQ(h.net.waitingFlows(), 0u);
}

TEST(LinkFailures, RoutingAvoidsADownLinkAndGivesAPathFoundAgainItsId)
{
    const Topology t = diamond();
    Routing routing(t);
    const std::uint32_t fast = routing.routeId(0, 3);
    EXPECT_EQ(routing.route(fast).latency, 2 * kMicrosecond);
    EXPECT_EQ(routing.epoch(), 0u);

    routing.setLinkDown(*t.linkIndex("a-s1"), true);
    EXPECT_NE(routing.epoch(), 0u);
    const std::uint32_t around = routing.current(fast);
    EXPECT_NE(around, fast);
    EXPECT_EQ(routing.route(around).latency, 4 * kMicrosecond);
    EXPECT_DOUBLE_EQ(routing.route(around).bottleneckBytesPerNs, 5.0);
    // The old route is still there for whoever holds it.
    EXPECT_EQ(routing.route(fast).channels.size(), 2u);

    routing.setLinkDown(*t.linkIndex("a-s2"), true);
    EXPECT_FALSE(routing.route(routing.current(fast)).reachable) << "both ways out of a are down";

    routing.setLinkDown(*t.linkIndex("a-s1"), false);
    routing.setLinkDown(*t.linkIndex("a-s2"), false);
    EXPECT_EQ(routing.current(fast), fast) << "the fast path found again keeps its id";
    routing.setLinkDown(*t.linkIndex("a-s1"), true);
    EXPECT_EQ(routing.current(fast), around) << "and so does the way around";
}

TEST(LinkFailures, AStoppedFlowIsSentAgainWholeAroundTheLinkOnceDetected)
{
    LinkHarness h(diamond());
    h.sendAt(0, "a", "b", 1e9, 1); // 100 ms at 10 GB/s, alone
    h.linkAt(50 * kMillisecond, LinkHarness::Fail, "a-s1");
    h.linkAt(80 * kMillisecond, LinkHarness::Detect, "a-s1");
    h.run();
    // Sent again at 80 ms over a-s2-b: 4 us + 1e9 B at 5 GB/s.
    EXPECT_EQ(h.at(1), 80 * kMillisecond + 4 * kMicrosecond + 200 * kMillisecond);
    EXPECT_EQ(h.delivered.at(1).start, 0) << "its latency counts the wait";
    EXPECT_EQ(h.routing.route(h.delivered.at(1).route).latency, 4 * kMicrosecond);
    const auto& f = h.net.faultCounts();
    EXPECT_EQ(f.stopped, 1u);
    EXPECT_EQ(f.rerouted, 1u);
    EXPECT_DOUBLE_EQ(f.bytesResent, 5e8); // 50 ms at 10 GB/s
    EXPECT_DOUBLE_EQ(f.stalledNs, 30e6);
    EXPECT_EQ(h.net.waitingFlows(), 0u);
}

TEST(LinkFailures, AMessageSentIntoAFailedLinkWaitsForTheDetectionThenGoesAround)
{
    LinkHarness h(diamond());
    h.linkAt(10 * kMillisecond, LinkHarness::Fail, "s1-b");
    h.sendAt(20 * kMillisecond, "a", "b", 1e6, 1);  // the sender still routes over s1
    h.sendAt(20 * kMillisecond, "a", "s1", 1e6, 2); // a link that works: unaffected
    h.linkAt(50 * kMillisecond, LinkHarness::Detect, "s1-b");
    h.sendAt(60 * kMillisecond, "a", "b", 1e6, 3); // with the route id from before: the network takes the new one
    h.run();
    EXPECT_EQ(h.at(1), 50 * kMillisecond + 4 * kMicrosecond + 200 * kMicrosecond);
    EXPECT_EQ(h.at(2), 20 * kMillisecond + kMicrosecond + 100 * kMicrosecond);
    EXPECT_EQ(h.at(3), 60 * kMillisecond + 4 * kMicrosecond + 200 * kMicrosecond);
    EXPECT_EQ(h.net.faultCounts().stopped, 1u);
    EXPECT_DOUBLE_EQ(h.net.faultCounts().bytesResent, 0.0);
}

TEST(LinkFailures, APartitionHoldsMessagesUntilTheRepair)
{
    LinkHarness h(star());
    h.sendAt(0, "a", "b", 1e9, 1); // 200 ms at the 5 GB/s bottleneck
    h.linkAt(10 * kMillisecond, LinkHarness::Fail, "s-b");
    h.linkAt(50 * kMillisecond, LinkHarness::Detect, "s-b"); // no way around: it waits on
    h.linkAt(100 * kMillisecond, LinkHarness::Repair, "s-b");
    h.run();
    EXPECT_EQ(h.at(1), 100 * kMillisecond + 3 * kMicrosecond + 200 * kMillisecond);
    const auto& f = h.net.faultCounts();
    EXPECT_EQ(f.stopped, 1u);
    EXPECT_EQ(f.rerouted, 0u) << "it went again over the same route";
    EXPECT_DOUBLE_EQ(f.bytesResent, 5e7);
    EXPECT_DOUBLE_EQ(f.stalledNs, 90e6);
}

TEST(LinkFailures, TheFlowsLeftOnASharedLinkTakeTheStoppedFlowsShare)
{
    // a->b and c->b share s-b (5 GB/s): 2.5 GB/s each. a-s fails at 100 ms and is back at 150 ms, before any
    // detection: c->b runs alone at 5 GB/s meanwhile, then both share again.
    LinkHarness h(star());
    h.sendAt(0, "a", "b", 1e9, 1);
    h.sendAt(0, "c", "b", 1e9, 2);
    h.linkAt(100 * kMillisecond, LinkHarness::Fail, "a-s");
    h.linkAt(150 * kMillisecond, LinkHarness::Repair, "a-s");
    h.linkAt(400 * kMillisecond, LinkHarness::Detect, "a-s"); // after the repair: nothing to do
    h.run();
    // c->b: 2.5e8 by 100 ms, 2.5e8 more by 150 ms alone, then 5e8 at 2.5 GB/s: drained at 350 ms.
    EXPECT_EQ(h.at(2), 350 * kMillisecond + 3 * kMicrosecond);
    // a->b, whole again from 150 ms: 5e8 by 350 ms at 2.5 GB/s, then 5e8 alone at 5 GB/s: 450 ms.
    EXPECT_EQ(h.at(1), 450 * kMillisecond + 3 * kMicrosecond);
    EXPECT_DOUBLE_EQ(h.net.faultCounts().bytesResent, 2.5e8);
    EXPECT_EQ(h.net.faultCounts().rerouted, 0u);
}

// The engine's three-GPU scenario (p0 prefills, d0 and d1 decode) with a second, slower way from p0 to d0 through
// a switch, so a failed p0-d0 link has a way around it.
Scenario detourScenario(const std::string& protocol)
{
    Scenario s = twoGpuScenario();
    s.topology.nodes[0] = servingNode("p0", NodeRole::Prefill, 1e14);
    s.topology.nodes.push_back(servingNode("sw", NodeRole::None));
    s.topology.links.push_back(link("p0", "sw", 5 * kMicrosecond, 0.5e9));
    s.topology.links.push_back(link("sw", "d0", 5 * kMicrosecond, 0.5e9));
    s.coherence.decode = protocol;
    return s;
}

void failLinkAt(Scenario& s, const std::string& link, SimTime at, std::optional<SimTime> repair)
{
    FailureEventSpec event;
    event.link = link;
    event.at = at;
    event.repair = repair;
    s.failures.events.push_back(event);
    s.failures.heartbeat = 100 * kMillisecond;
    s.failures.timeout = 300 * kMillisecond;
}

TEST(LinkFailures, AServingRunLosesNoRequestAndPaysTheDetourInLatency)
{
    const Workload w = poissonWorkload(40, 40.0, 200, 100, 11);
    for (const char* protocol : {"direct", "msi-directory", "sealed-lease"}) {
        SCOPED_TRACE(protocol);
        const Scenario healthy = detourScenario(protocol);
        Scenario failing = healthy;
        failLinkAt(failing, "p0-d0", 200 * kMillisecond, std::nullopt);
        const RunResult a = runBounded(healthy, w);
        const RunResult b = runBounded(failing, w);
        EXPECT_EQ(b.summary.completed, 40u);
        EXPECT_EQ(b.summary.failures.hits, 0u) << "a link takes no request";
        EXPECT_EQ(b.summary.failures.failed, 0u);
        EXPECT_DOUBLE_EQ(b.summary.failures.availability, 1.0);
        ASSERT_EQ(b.summary.failures.failures.size(), 1u);
        const FailureRecord& f = b.summary.failures.failures[0];
        EXPECT_EQ(f.link, "p0-d0");
        EXPECT_TRUE(f.node.empty());
        EXPECT_EQ(f.failed, 200 * kMillisecond);
        EXPECT_EQ(f.detected, 500 * kMillisecond); // the last beat at 200 ms, + 300 ms
        EXPECT_EQ(f.repaired, -1);
        EXPECT_GT(b.summary.failures.messagesStopped, 0u);
        EXPECT_EQ(b.summary.failures.messagesRerouted, b.summary.failures.messagesStopped);
        // Requests prefilled in the 300 ms before the detection waited for it.
        EXPECT_GT(b.summary.ttftMs.p99, a.summary.ttftMs.p99 + 100.0);
        EXPECT_GT(b.summary.failures.stalledMs, 0.0) << "what waited for the detection";
        // Back in JSON, as the run store keeps it.
        const FailuresSummary back = failuresFromJson(toJson(b.summary.failures));
        EXPECT_EQ(back.failures, b.summary.failures.failures);
        EXPECT_EQ(back.messagesStopped, b.summary.failures.messagesStopped);
        EXPECT_EQ(back.messagesRerouted, b.summary.failures.messagesRerouted);
        EXPECT_DOUBLE_EQ(back.bytesResent, b.summary.failures.bytesResent);
        EXPECT_DOUBLE_EQ(back.stalledMs, b.summary.failures.stalledMs);
    }
}

TEST(LinkFailures, RandomLinkFailuresComeAndGoAndEveryRequestCompletes)
{
    Scenario s = detourScenario("msi-directory");
    FailureEventSpec event;
    event.link = "p0-d0";
    event.mtbf = 150 * kMillisecond;
    event.repair = 100 * kMillisecond;
    s.failures.events.push_back(event);
    s.failures.heartbeat = 20 * kMillisecond;
    s.failures.timeout = 60 * kMillisecond;
    const RunResult r = runBounded(s, poissonWorkload(40, 40.0, 200, 100, 11));
    EXPECT_EQ(r.summary.completed, 40u);
    EXPECT_GT(r.summary.failures.failures.size(), 3u);
    for (const FailureRecord& f : r.summary.failures.failures) {
        EXPECT_EQ(f.link, "p0-d0");
        EXPECT_LE(f.detected, f.repaired);
    }
}

nlohmann::json minimalWithFailures(const nlohmann::json& failures)
{
    nlohmann::json j = readFixtureJson("minimal.json");
    j["failures"] = failures;
    return j;
}

TEST(LinkFailures, ParserReadsLinkEntriesAndRefusesWhatCannotHeal)
{
    const auto event = [](nlohmann::json e) { return nlohmann::json{{"events", {std::move(e)}}}; };
    // minimal.json: gpu0 --gpu0-sw0-- sw0 --gpu1-link-- gpu1, no other path.
    const Scenario ok = parseScenario(
        minimalWithFailures(event({{"link", "gpu1-link"}, {"at", "2 s"}, {"repair", "1 s"}})), "mem/scenario.json");
    ASSERT_EQ(ok.failures.events.size(), 1u);
    EXPECT_TRUE(ok.failures.events[0].isLink());
    EXPECT_EQ(ok.failures.events[0].link, "gpu1-link");

    problemAt(minimalWithFailures(event({{"link", "nope"}, {"at", "1 s"}, {"repair", "1 s"}})),
              "/failures/events/0/link");
    problemAt(minimalWithFailures(event({{"link", "gpu1-link"}, {"node", "gpu1"}, {"at", "1 s"}})),
              "/failures/events/0/link");
    problemAt(minimalWithFailures(event({{"at", "1 s"}})), "/failures/events/0/node");
    // For good, the only link to gpu1 would cut it off.
    const std::string why =
        problemAt(minimalWithFailures(event({{"link", "gpu1-link"}, {"at", "1 s"}})), "/failures/events/0/link")
            .message;
    EXPECT_NE(why.find("cuts node"), std::string::npos) << why;
}

} // namespace
} // namespace coh::test
