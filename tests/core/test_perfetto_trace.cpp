// The Perfetto export (Chrome trace-event JSON): a small run built by hand has exactly the tracks, slices, flows and
// counter samples its records imply; slices on one thread never overlap; a stored run exports through the CLI's
// path and parses.
#include "core/store/perfetto_trace.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <tuple>

namespace coh::test {
namespace {

using core::MessageRecord;
using core::MessageSender;
using core::SimTime;
using nlohmann::json;

MessageRecord message(SimTime start, SimTime end, std::uint32_t src, std::uint32_t dst, std::uint32_t path,
                      std::uint8_t kind, std::uint32_t block)
{
    MessageRecord m;
    m.start = start;
    m.end = end;
    m.src = src;
    m.dst = dst;
    m.path = path;
    m.kind = kind;
    m.firstBlock = block;
    m.blockCount = 1;
    m.bytes = 64;
    m.sender = MessageSender::Cache;
    return m;
}

// a --link0-- home --link1-- b; a reads block 5, which b owns: GetS a->home, Fwd-GetS home->b, Data b->a (two hops).
core::RunResult smallRun()
{
    core::RunResult run;
    run.scenarioName = "small";
    run.nodeIds = {"a", "home", "b"};
    run.linkIds = {"a-home", "home-b"};
    run.linkEnds = {{0, 1}, {1, 2}};
    run.instanceIds = {"p0", "d0"};
    run.paths = {{{0}, {true}}, {{1}, {true}}, {{1, 0}, {false, false}}};
    run.summary.messagesByKind = {
        {"GetS", false, 2, 128, "request"}, {"Fwd-GetS", false, 1, 64, "forward"}, {"Data", true, 1, 64, "data"}};
    run.messages = {
        message(0, 100, 0, 1, 0, 0, 5),   // GetS a -> home
        message(50, 150, 0, 1, 0, 0, 6),  // another block's GetS, overlapping the first on a->home
        message(100, 250, 1, 2, 1, 1, 5), // Fwd-GetS home -> b, sent as the GetS arrived
        message(250, 500, 2, 0, 2, 2, 5), // Data b -> a over both links, sent as the forward arrived
    };
    run.messages[2].sender = MessageSender::Home;
    for (std::uint32_t id : {0u, 1u}) {
        core::RequestMetrics r;
        r.id = id;
        r.promptTokens = 100;
        r.prefillInstance = 0;
        r.decodeInstance = 1;
        r.prefillStart = 0; // one batch
        r.prefillEnd = 1000;
        r.transferStart = 1000;
        r.kvReady = 1500;
        r.decodeStart = 2000;
        r.finish = id == 0 ? 5000 : 6000;
        run.requests.push_back(r);
    }
    run.linkInterval = 1000;
    core::LinkSeries series;
    series.link = 0;
    series.forward = true;
    series.bandwidthBytesPerSec = 1e9;
    series.bytesPerBucket = {100, 100, 0};
    run.linkSeries.push_back(series);
    core::NodeBlocksSeries blocks;
    blocks.node = 0;
    blocks.state = "S";
    blocks.steps = {{0, 1}, {500, 2}};
    run.nodeBlocks.push_back(blocks);
    return run;
}

TEST(PerfettoTrace, ASmallRunHasTheTracksSlicesFlowsAndCountersItsRecordsImply)
{
    const core::RunResult run = smallRun();
    core::PerfettoCounts counts;
    const json trace = json::parse(core::perfettoTrace(run, {"small run", {{0}, {2}}}, &counts).dump());
    // 3 nodes and the 4 link directions something crossed (a->home, home->b, b->home, home->a).
    EXPECT_EQ(counts.tracks, 7u);
    // Messages: one slice per hop (1 + 1 + 1 + 2); compute: one prefill batch, two decodes and two KV transfers.
    EXPECT_EQ(counts.slices, 10u);
    // GetS -> Fwd-GetS -> Data; the other block's GetS caused nothing.
    EXPECT_EQ(counts.flows, 2u);
    // Utilisation 10 % then 0 (2); recorded bytes in flight per link direction (4 + 2 + 2 + 2); requests decoding
    // at 2000, 5000, 6000 (3); block steps (2).
    EXPECT_EQ(counts.counters, 17u);

    std::map<std::string, int> phases;
    std::map<int, std::string> processNames;
    std::map<std::pair<int, int>, std::vector<std::pair<double, double>>> byThread;
    std::map<std::string, std::vector<json>> flows;
    for (const json& e : trace["traceEvents"]) {
        const std::string ph = e["ph"];
        ++phases[ph];
        if (ph == "M" && e["name"] == "process_name")
            processNames[e["pid"].get<int>()] = e["args"]["name"];
        if (ph == "X")
            byThread[{e["pid"].get<int>(), e["tid"].get<int>()}].push_back(
                {e["ts"], e["ts"].get<double>() + e["dur"].get<double>()});
        if (ph == "s" || ph == "f")
            flows[e["id"].dump()].push_back(e);
    }
    EXPECT_EQ(phases["X"], 6); // 5 message slices + 1 prefill batch
    EXPECT_EQ(phases["b"], 4);
    EXPECT_EQ(phases["e"], 4);
    EXPECT_EQ(phases["C"], 17);
    EXPECT_EQ(phases["s"], 2);
    EXPECT_EQ(phases["f"], 2);
    EXPECT_EQ(processNames.size(), 7u);
    EXPECT_EQ(processNames[4], "a-home a→home");
    EXPECT_EQ(processNames[7], "home-b b→home");
    // Complete slices on one thread never overlap (the two GetS of link a->home took two lanes).
    for (auto& [thread, slices] : byThread) {
        std::sort(slices.begin(), slices.end());
        for (std::size_t i = 1; i < slices.size(); ++i)
            EXPECT_LE(slices[i - 1].second, slices[i].first) << thread.first << "/" << thread.second;
    }
    EXPECT_EQ(byThread.count({4, 2}), 1u);
    // Each flow starts on its cause's first slice and ends on the message it caused: GetS (a->home) to Fwd-GetS
    // (home->b), then Fwd-GetS to the Data's first hop (b->home).
    ASSERT_EQ(flows.size(), 2u);
    std::set<std::pair<int, int>> links;
    for (const auto& [id, pair] : flows) {
        ASSERT_EQ(pair.size(), 2u);
        links.insert({pair[0]["pid"].get<int>(), pair[1]["pid"].get<int>()});
        EXPECT_EQ(pair[1]["bp"], "e");
    }
    EXPECT_EQ(links, (std::set<std::pair<int, int>>{{4, 6}, {6, 7}}));
    // Times are microseconds with the nanoseconds kept.
    EXPECT_EQ(trace["displayTimeUnit"], "ns");
    EXPECT_EQ(trace["otherData"]["run"], "small run");
}

TEST(PerfettoTrace, InstancesWithoutNodesGetTracksOfTheirOwn)
{
    core::RunResult run = smallRun();
    core::PerfettoCounts counts;
    const json trace = core::perfettoTrace(run, {"no nodes", {}}, &counts);
    EXPECT_EQ(counts.tracks, 9u); // the two instances join the 3 nodes and 4 link directions
    bool named = false;
    for (const json& e : trace["traceEvents"])
        named = named || (e["ph"] == "M" && e["name"] == "process_name" && e["args"]["name"] == "d0");
    EXPECT_TRUE(named);
}

TEST(PerfettoTrace, DecodeIterationsHoldTheirCoherenceWaitAndComputeAsNestedSlices)
{
    core::RunResult run = smallRun();
    // d0 (on node b) runs two iterations of both requests; the first waited 400 ns on coherence, the second none.
    run.iterations = {{2000, 2400, 3000, 1, 2, 200}, {3000, 3000, 4000, 1, 2, 202}};
    core::PerfettoCounts before, counts;
    core::perfettoTrace(smallRun(), {"small run", {{0}, {2}}}, &before);
    const json trace = json::parse(core::perfettoTrace(run, {"small run", {{0}, {2}}}, &counts).dump());
    EXPECT_EQ(counts.tracks, before.tracks);
    // Two iterations, each with its compute, and one wait.
    EXPECT_EQ(counts.slices, before.slices + 5);
    // The batch size: 2 at 2000, still 2 at 3000 (one iteration ends as the next starts), 0 at 4000.
    EXPECT_EQ(counts.counters, before.counters + 3);

    std::vector<json> decode;
    std::vector<double> batch;
    std::string threadName;
    for (const json& e : trace["traceEvents"]) {
        if (e["ph"] == "X" && e["pid"] == 3 && e["tid"] == 3000)
            decode.push_back(e);
        if (e["ph"] == "C" && e["name"] == "decode batch (sequences)")
            batch.push_back(e["args"]["value"]);
        if (e["ph"] == "M" && e["name"] == "thread_name" && e["pid"] == 3 && e["tid"] == 3000)
            threadName = e["args"]["name"];
    }
    EXPECT_EQ(threadName, "decode");
    ASSERT_EQ(decode.size(), 5u);
    EXPECT_EQ(decode[0]["name"], "decode iteration");
    EXPECT_EQ(decode[0]["ts"], 2.0);
    EXPECT_EQ(decode[0]["dur"], 1.0);
    EXPECT_EQ(decode[0]["args"]["sequences"], 2);
    EXPECT_EQ(decode[0]["args"]["context_tokens"], 200);
    EXPECT_EQ(decode[0]["args"]["coherence_wait_us"], 0.4);
    EXPECT_EQ(decode[1]["name"], "coherence wait");
    EXPECT_EQ(decode[1]["dur"], 0.4);
    EXPECT_EQ(decode[2]["name"], "compute");
    EXPECT_EQ(decode[2]["ts"], 2.4);
    EXPECT_EQ(decode[3]["name"], "decode iteration");
    EXPECT_EQ(decode[4]["name"], "compute"); // no wait: no wait slice
    EXPECT_EQ(batch, (std::vector<double>{2, 2, 0}));
}

TEST(PerfettoTrace, TwoRunsShareATraceWithoutSharingATrackOrAnId)
{
    const core::RunResult run = smallRun();
    const json first = core::perfettoTrace(run, {"sim", {{0}, {2}}, 0, "#1 · "});
    const json second = core::perfettoTrace(run, {"real", {{0}, {2}}, core::perfettoPidSpan(run), "#2 · "});
    const auto collect = [](const json& trace) {
        std::set<int> pids;
        std::set<std::string> ids;
        std::set<std::string> names;
        for (const json& e : trace["traceEvents"]) {
            pids.insert(e["pid"].get<int>());
            if (e.contains("id"))
                ids.insert(e["ph"].get<std::string>() + e["id"].dump());
            if (e["ph"] == "M" && e["name"] == "process_name")
                names.insert(e["args"]["name"].get<std::string>());
        }
        return std::tuple{pids, ids, names};
    };
    const auto [pids1, ids1, names1] = collect(first);
    const auto [pids2, ids2, names2] = collect(second);
    for (int pid : pids2)
        EXPECT_EQ(pids1.count(pid), 0u) << pid;
    for (const std::string& id : ids2)
        EXPECT_EQ(ids1.count(id), 0u) << id;
    EXPECT_EQ(names1.count("#1 · a"), 1u);
    EXPECT_EQ(names2.count("#2 · a"), 1u);
    EXPECT_EQ(names2.count("#2 · a-home a→home"), 1u);
}

} // namespace
} // namespace coh::test
