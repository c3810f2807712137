// Memory follows the work, not the span or the square of the nodes: the time series keep at most
// kMaxSeriesBuckets buckets per channel (coarsening by merging pairs, every byte kept), routes are computed per
// source that sends, and a whole run with a 1 ns link interval or a 2,000-node chain stays small.
#include "cli_runner.h"
#include "core/coherence/protocol_registry.h"
#include "core/engine/node_block_states.h"
#include "core/net/flow_network.h"
#include "engine_fixtures.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <random>
#include <sys/resource.h>

namespace coh::test {
namespace {

namespace fs = std::filesystem;

// named("n", i) trips GCC 12's -Wrestrict false positive; appending does not.
std::string named(const char* prefix, std::size_t i)
{
    std::string id = prefix;
    id += std::to_string(i);
    return id;
}

double sum(const std::vector<double>& v)
{
    double total = 0;
    for (double x : v)
        total += x;
    return total;
}

TEST(SeriesBuckets, TheWidthDoublesUntilTheSpanFitsTheBound)
{
    EXPECT_EQ(seriesWidthCovering(kSecond, 0), kSecond);
    EXPECT_EQ(seriesWidthCovering(kSecond, 4095 * kSecond), kSecond); // bucket 4095 is the last of 4096
    EXPECT_EQ(seriesWidthCovering(kSecond, 4096 * kSecond), 2 * kSecond);
    // A 1 ns interval over an hour: 3.6e12 / 4096 = 8.8e8, so 2^30 ns (1.07 s) buckets, 3,353 of them.
    EXPECT_EQ(seriesWidthCovering(1, 3600 * kSecond), SimTime{1} << 30);
    // Up to the end of the clock without overflowing.
    const SimTime last = seriesWidthCovering(1, kTimeInfinity);
    EXPECT_LT(kTimeInfinity / last, static_cast<SimTime>(kMaxSeriesBuckets));
    EXPECT_EQ(seriesEnd(last), kTimeInfinity);
}

TEST(LinkUsage, BucketsStayBoundedWithANanosecondIntervalAndEveryByteIsKept)
{
    // 100,000 messages of whole bytes at random instants over 1,000 s, 1 ns buckets: a dense series would need
    // 10^12 buckets. The grid coarsens to 2^28 ns (0.27 s): 10^12 / 2^28 = 3,725 buckets.
    LinkUsage usage(2, 1);
    std::mt19937_64 rng(3);
    std::uniform_int_distribution<SimTime> when(0, 1000 * kSecond - 1);
    std::uniform_int_distribution<int> size(1, 4096);
    std::vector<std::pair<SimTime, double>> sent;
    for (int i = 0; i < 100'000; ++i)
        sent.emplace_back(when(rng), size(rng));
    std::sort(sent.begin(), sent.end()); // the network adds in time order
    sent.emplace_back(1000 * kSecond - 1, 1.0);
    double total = 0;
    for (const auto& [at, bytes] : sent) {
        usage.addAt(0, at, bytes);
        total += bytes;
    }
    EXPECT_EQ(usage.interval(), SimTime{1} << 28);
    EXPECT_LE(usage.buckets(0).size(), kMaxSeriesBuckets);
    EXPECT_EQ(usage.buckets(0).size(), static_cast<std::size_t>((1000 * kSecond - 1) / usage.interval() + 1));
    EXPECT_TRUE(usage.buckets(1).empty()); // the idle direction holds nothing
    // Whole bytes sum exactly in doubles: merging pairs loses none, and each lands in its bucket.
    EXPECT_EQ(usage.totalBytes(0), total);
    EXPECT_EQ(sum(usage.buckets(0)), total);
    std::map<std::size_t, double> expected;
    for (const auto& [at, bytes] : sent)
        expected[static_cast<std::size_t>(at / usage.interval())] += bytes;
    for (const auto& [bucket, bytes] : expected)
        ASSERT_EQ(usage.buckets(0)[bucket], bytes) << "bucket " << bucket;
}

TEST(LinkUsage, ASpanOfDecadesIsSplitIntoAtMostTheBoundOfBuckets)
{
    // 1 B/ns for 10^18 ns (31.7 years) at a 1 s interval: one add, 2^18 s buckets, every one a whole number.
    LinkUsage usage(1, kSecond);
    const SimTime to = 1'000'000'000'000'000'000;
    usage.add(0, 0, to, 1.0);
    EXPECT_EQ(usage.interval(), kSecond << 18); // 10^18 / (2^18 x 10^9) = 3,815 buckets
    EXPECT_EQ(usage.buckets(0).size(), static_cast<std::size_t>((to - 1) / usage.interval() + 1));
    EXPECT_EQ(sum(usage.buckets(0)), 1e18);
    EXPECT_EQ(usage.buckets(0).front(), static_cast<double>(usage.interval()));
}

TEST(LinkUsage, CoarseningToTheRunsGridMergesPairsExactly)
{
    LinkUsage usage(1, kMillisecond);
    for (SimTime t = 0; t < 10 * kMillisecond; t += kMillisecond / 2)
        usage.addAt(0, t, static_cast<double>(t / 1000 + 1));
    const std::vector<double> fine = usage.buckets(0);
    ASSERT_EQ(fine.size(), 10u);
    usage.coarsenTo(4 * kMillisecond);
    EXPECT_EQ(usage.interval(), 4 * kMillisecond);
    ASSERT_EQ(usage.buckets(0).size(), 3u);
    EXPECT_EQ(usage.buckets(0)[0], fine[0] + fine[1] + fine[2] + fine[3]);
    EXPECT_EQ(usage.buckets(0)[1], fine[4] + fine[5] + fine[6] + fine[7]);
    EXPECT_EQ(usage.buckets(0)[2], fine[8] + fine[9]);
    // Later additions land on the new grid.
    usage.addAt(0, 11 * kMillisecond, 5.0);
    EXPECT_EQ(usage.buckets(0)[2], fine[8] + fine[9] + 5.0);
}

TEST(NodeBlockStates, BucketsStayBoundedWithANanosecondIntervalAndBlockTimeIsKept)
{
    const coherence::Protocol& msi = coherence::findProtocol("msi-directory");
    const auto I = static_cast<std::uint8_t>(msi.cache.findState("I"));
    const auto M = static_cast<std::uint8_t>(msi.cache.findState("M"));
    NodeBlockStates blocks(msi, 3, 1);
    // Node 2 holds 1..3 blocks in M on and off over 100 s; a dense 1 ns series would be 10^11 buckets.
    std::mt19937_64 rng(5);
    std::uniform_int_distribution<SimTime> gap(1, 20 * kMillisecond);
    double blockNs = 0; // the exact integral of the count
    SimTime t = 0;
    for (int i = 0; i < 5000 && t < 100 * kSecond; ++i) {
        const std::uint32_t n = 1 + i % 3;
        blocks.change(t, 2, I, M, n);
        const SimTime held = gap(rng);
        blocks.change(t + held, 2, M, I, n);
        blockNs += static_cast<double>(n) * static_cast<double>(held);
        t += held + gap(rng);
    }
    const SimTime end = t;
    const auto series = blocks.series(end);
    ASSERT_EQ(series.size(), 1u);
    const SimTime width = seriesWidthCovering(1, end);
    EXPECT_EQ(blocks.interval(), width);
    EXPECT_LE(series[0].blocksPerBucket.size(), kMaxSeriesBuckets);
    EXPECT_GT(series[0].blocksPerBucket.size(), kMaxSeriesBuckets / 4);
    EXPECT_EQ(series[0].peakBlocks, 3.0);
    // The width is a power of two (in ns), so each average times the width is the bucket's exact block-ns.
    EXPECT_EQ(sum(series[0].blocksPerBucket) * static_cast<double>(width), blockNs);
}

// All-pairs shortest paths the slow way (Floyd-Warshall on the same weights), as the reference for the
// on-demand routes: latency x 4096 + 1 per hop.
struct AllPairs {
    std::vector<std::vector<std::uint64_t>> dist;
    std::vector<std::vector<int>> next; // first hop's channel from i towards j, -1 when none
};

AllPairs floydWarshall(const Topology& t)
{
    const std::size_t n = t.nodes.size();
    const std::uint64_t inf = std::numeric_limits<std::uint64_t>::max() / 4;
    AllPairs ap{std::vector<std::vector<std::uint64_t>>(n, std::vector<std::uint64_t>(n, inf)),
                std::vector<std::vector<int>>(n, std::vector<int>(n, -1))};
    for (std::size_t i = 0; i < n; ++i)
        ap.dist[i][i] = 0;
    for (std::uint32_t l = 0; l < t.links.size(); ++l) {
        const auto a = *t.nodeIndex(t.links[l].a), b = *t.nodeIndex(t.links[l].b);
        const std::uint64_t w = static_cast<std::uint64_t>(t.links[l].latency) * 4096 + 1;
        for (auto [u, v, c] : {std::tuple{a, b, channelOf(l, true)}, std::tuple{b, a, channelOf(l, false)}})
            if (w < ap.dist[u][v]) {
                ap.dist[u][v] = w;
                ap.next[u][v] = static_cast<int>(c);
            }
    }
    for (std::size_t k = 0; k < n; ++k)
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t j = 0; j < n; ++j)
                if (ap.dist[i][k] + ap.dist[k][j] < ap.dist[i][j]) {
                    ap.dist[i][j] = ap.dist[i][k] + ap.dist[k][j];
                    ap.next[i][j] = ap.next[i][k];
                }
    return ap;
}

std::vector<std::uint32_t> referencePath(const Topology& t, const AllPairs& ap, std::uint32_t src, std::uint32_t dst)
{
    std::vector<std::uint32_t> channels;
    for (std::uint32_t u = src; u != dst;) {
        const auto c = static_cast<std::uint32_t>(ap.next[u][dst]);
        channels.push_back(c);
        const Link& l = t.links[linkOfChannel(c)];
        u = *t.nodeIndex(isForwardChannel(c) ? l.b : l.a);
    }
    return channels;
}

TEST(Routing, RoutesAreComputedOnlyForSourcesThatSendAndMatchAllPairs)
{
    // 12 nodes: a ring plus random chords, random latencies drawn from a wide range so shortest paths are unique.
    std::mt19937_64 rng(11);
    std::uniform_int_distribution<SimTime> latency(1, 1'000'000'000);
    Topology t;
    for (int i = 0; i < 12; ++i)
        t.nodes.push_back(servingNode(named("n", i), NodeRole::None));
    for (int i = 0; i < 12; ++i)
        t.links.push_back(link(named("n", i), named("n", (i + 1) % 12), latency(rng), 1e9));
    std::uniform_int_distribution<int> node(0, 11);
    for (int k = 0; k < 10; ++k) {
        const int a = node(rng), b = (a + 2 + node(rng) % 9) % 12;
        Link chord = link(named("n", a), named("n", b), latency(rng), 1e9);
        chord.id += named("-", k);
        t.links.push_back(chord);
    }
    Routing routing(t);
    EXPECT_EQ(routing.cachedSources(), 0u);
    EXPECT_EQ(routing.cachedRoutes(), 0u);

    // Two sources send: only their trees are built, and only the routes asked for.
    const std::uint32_t first = routing.routeId(3, 7);
    EXPECT_EQ(first, 0u);
    EXPECT_EQ(routing.routeId(3, 7), first); // a lookup, not a new route
    routing.routeId(3, 9);
    routing.routeId(8, 3);
    EXPECT_EQ(routing.cachedSources(), 2u);
    EXPECT_EQ(routing.cachedRoutes(), 3u);
    const Route& r37 = routing.route(first);
    EXPECT_EQ(r37.src, 3u);
    EXPECT_EQ(r37.dst, 7u);

    // Every pair agrees with the all-pairs reference: latency, and the path itself (unique here).
    const AllPairs ap = floydWarshall(t);
    for (std::uint32_t s = 0; s < 12; ++s)
        for (std::uint32_t d = 0; d < 12; ++d) {
            const Route& r = routing.route(s, d);
            ASSERT_TRUE(r.reachable);
            EXPECT_EQ(r.channels, referencePath(t, ap, s, d)) << s << " -> " << d;
            SimTime sumLatency = 0;
            double bottleneck = std::numeric_limits<double>::infinity();
            for (auto c : r.channels) {
                sumLatency += t.links[linkOfChannel(c)].latency;
                bottleneck = std::min(bottleneck, t.links[linkOfChannel(c)].bandwidthBytesPerSec * 1e-9);
            }
            EXPECT_EQ(r.latency, sumLatency);
            EXPECT_EQ(static_cast<std::uint64_t>(r.latency) * 4096 + r.channels.size(), ap.dist[s][d]);
            EXPECT_EQ(r.bottleneckBytesPerNs, bottleneck);
        }
    EXPECT_EQ(routing.cachedSources(), 12u);
    EXPECT_EQ(routing.cachedRoutes(), 144u);
    // A reference taken earlier still names the same route.
    EXPECT_EQ(r37.src, 3u);
    EXPECT_EQ(&routing.route(3, 7), &r37);
}

Topology chainOf(std::size_t nodes)
{
    Topology t;
    t.nodes.push_back(servingNode("p", NodeRole::Prefill));
    for (std::size_t i = 1; i + 1 < nodes; ++i)
        t.nodes.push_back(servingNode(named("s", i), NodeRole::None));
    t.nodes.push_back(servingNode("d", NodeRole::Decode));
    for (std::size_t i = 0; i + 1 < nodes; ++i)
        t.links.push_back(link(t.nodes[i].id, t.nodes[i + 1].id, 10, 1e9 + static_cast<double>(i)));
    return t;
}

TEST(Routing, AChainOf2000NodesRoutesWithoutAllPairs)
{
    // All pairs would be 4 million routes of 667 hops on average, over 10 GB; one route is 1,999 hops.
    const Topology t = chainOf(2000);
    Routing routing(t);
    const Route& end = routing.route(0, 1999);
    ASSERT_TRUE(end.reachable);
    EXPECT_EQ(end.channels.size(), 1999u);
    EXPECT_EQ(end.latency, 1999 * 10);
    EXPECT_EQ(end.channels.front(), channelOf(0, true));
    EXPECT_EQ(end.channels.back(), channelOf(1998, true));
    EXPECT_EQ(end.bottleneckBytesPerNs, 1.0); // the first link, 1e9 B/s
    const Route& back = routing.route(1999, 0);
    EXPECT_EQ(back.channels.front(), channelOf(1998, false));
    EXPECT_EQ(routing.cachedSources(), 2u);
    EXPECT_EQ(routing.cachedRoutes(), 2u);
}

struct NetHarness : FlowEndpoint {
    enum : std::uint32_t { Wake, Deliver };
    Topology topo;
    Simulator sim;
    Routing routing;
    FlowNetwork net;
    std::map<std::uint64_t, SimTime> delivered;

    NetHarness(Topology t, SimTime interval)
        : topo(std::move(t))
        , routing(topo)
        , net(topo, routing, sim, Wake, Deliver, interval)
    {
    }
    void onFlowDelivered(const FlowInfo& f) override { delivered[f.tag] = f.delivered; }
    void operator()(const Event& ev) { ev.kind == Wake ? net.onWake(ev) : net.onDeliver(ev); }
};

TEST(FlowNetwork, AMessageAcrossA2000NodeChainBuildsOneTree)
{
    NetHarness h(chainOf(2000), 1);
    h.net.send(h.routing.routeId(0, 1999), 1e6, h, 1); // 1 MB at the 1 B/ns first link: 1 ms
    h.sim.run(h);
    EXPECT_EQ(h.delivered.at(1), 1999 * 10 + kMillisecond);
    EXPECT_EQ(h.routing.cachedSources(), 1u);
    // 1 ns buckets over a 1 ms transfer: 2^8 ns buckets, and every hop carried the megabyte.
    const LinkUsage& usage = h.net.usage();
    EXPECT_LE(usage.buckets(channelOf(1998, true)).size(), kMaxSeriesBuckets);
    EXPECT_NEAR(sum(usage.buckets(channelOf(1998, true))), 1e6, 1e-3);
}

// End to end: the real binary on the default scenario (MSI, so block series too) with a 1 ns interval.
TEST(MemoryBounds, ARunWithANanosecondLinkIntervalCompletesInBoundedMemory)
{
    const fs::path dir = fs::temp_directory_path() / ("cohsim-memory-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    auto scenario = nlohmann::json::parse(std::ifstream(std::string(COH_DATASETS_DIR) + "/scenarios/default.json"));
    scenario["metrics"]["link_interval"] = "1 ns";
    const fs::path path = dir / "interval-1ns.json";
    std::ofstream(path) << scenario.dump();
    const fs::path exported = dir / "run.json";
    // The run's own peak RSS (a dense series was 12.5 s x 10^9 buckets per link direction: it ran out of memory).
    const MeasuredResult measured = runShellMeasured(std::string(COH_COHSIM_PATH) + " run " + path.string() + " --db " +
                                                     (dir / "runs.db").string() + " --max-requests 20 --json -q 2>&1");
    const CliResult& r = measured.result;
    ASSERT_EQ(r.exitCode, 0) << r.output;
    const long peakKiB = measured.peakKiB;
    ASSERT_GT(peakKiB, 0);
    EXPECT_LT(peakKiB, 300L * 1024) << "peak RSS " << peakKiB << " KiB";
    const auto summary = nlohmann::json::parse(r.output.substr(r.output.find('{')));
    EXPECT_EQ(summary.at("summary").at("completed"), 20);

    // The stored run says the width it ended with, and no series is longer than the bound.
    const int id = summary.at("run_id").get<int>();
    const CliResult ex = runCohsim("export " + std::to_string(id) + " --format json --db " +
                                       (dir / "runs.db").string() + " -o " + exported.string(),
                                   Stderr::Merge);
    ASSERT_EQ(ex.exitCode, 0) << ex.output;
    const auto run = nlohmann::json::parse(std::ifstream(exported));
    const auto width = run.at("run").at("link_interval_ns").get<SimTime>();
    const auto makespan = summary.at("summary").at("makespan_ns").get<SimTime>();
    EXPECT_GT(width, 1);
    EXPECT_EQ(width & (width - 1), 0) << "1 ns doubled: a power of two";
    EXPECT_LT(makespan / width, static_cast<SimTime>(kMaxSeriesBuckets));
    ASSERT_FALSE(run.at("link_series").empty());
    for (const auto& series : run.at("link_series")) {
        const auto buckets = series.at("bytes_per_bucket").get<std::vector<double>>();
        EXPECT_LE(buckets.size(), kMaxSeriesBuckets);
        EXPECT_NEAR(sum(buckets), series.at("total_bytes").get<double>(),
                    1e-9 * series.at("total_bytes").get<double>());
    }
    ASSERT_FALSE(run.at("node_blocks").empty());
    for (const auto& series : run.at("node_blocks"))
        EXPECT_LE(series.at("blocks_per_bucket").size(), kMaxSeriesBuckets);
    fs::remove_all(dir);
}

} // namespace
} // namespace coh::test
