// Replicated KV (serving.replication): each sequence's blocks kept on R nodes, the replicas being more caches of
// the decode protocol. What a decode append does to them is the table's: MSI invalidates them and they re-fetch,
// lazy-causal pushes the update, sealed-lease replicates each block once it is sealed.
#include "core/engine/replica_placement.h"
#include "core/net/routing.h"
#include "core/scenario/replica_nodes.h"
#include "core/serving/serving_engine.h"
#include "core/store/run_serialization.h"
#include "engine_fixtures.h"
#include "tests/core/scenario_test_util.h"

#include <gtest/gtest.h>

namespace coh::test {
namespace {

std::uint64_t countOf(const RunSummary& s, const std::string& name)
{
    std::uint64_t count = 0;
    for (const auto& k : s.messagesByKind)
        if (k.name == name || k.name == name + " to home")
            count += k.count;
    return count;
}

// twoGpuScenario plus replica GPUs r0 (1 us from d0) and r1 (3 us from d0), each link 1 GB/s. The home of every
// block is d0, so decode's upgrade is local and its store waits exactly for the replicas' invalidation acks.
Scenario replicatedScenario(const std::string& protocol, std::uint32_t factor)
{
    Scenario s = twoGpuScenario();
    s.topology.nodes.push_back(servingNode("r0", NodeRole::None));
    s.topology.nodes.push_back(servingNode("r1", NodeRole::None));
    s.topology.links.push_back(link("d0", "r0", kMicrosecond, 1e9));
    s.topology.links.push_back(link("d0", "r1", 3 * kMicrosecond, 1e9));
    s.coherence.decode = s.coherence.prefill = protocol;
    s.coherence.home = HomePolicy::Node;
    s.coherence.homeNode = "d0";
    s.serving.replication.factor = factor;
    s.serving.replication.placement = ReplicaPlacement::Fixed;
    s.serving.replication.nodes = {"r0", "r1"};
    return s;
}

// 100 prompt tokens: 6 full blocks and a tail block (tokens 96..111) that all 5 output tokens append to.
RunResult runOne(const Scenario& s)
{
    Workload w;
    w.requests.push_back({0, 100, 5, 0, 0});
    RunResult r = runScenario(s, w);
    EXPECT_EQ(r.requests.size(), 1u);
    return r;
}

TEST(Replication, FactorOneIsTheDecodeCopyAlone)
{
    const RunResult one = runOne(replicatedScenario("msi-directory", 1));
    const ReplicationSummary& rep = one.summary.replication;
    EXPECT_EQ(rep.factor, 1u);
    EXPECT_TRUE(rep.nodes.empty());
    EXPECT_EQ(rep.messages, 0u);
    EXPECT_EQ(rep.fetches + rep.refetches, 0u);
}

TEST(Replication, MsiInvalidatesEveryReplicaOnEachAppendAndTheyRefetch)
{
    const RunResult one = runOne(replicatedScenario("msi-directory", 1));
    for (std::uint32_t factor : {2u, 3u}) {
        SCOPED_TRACE(factor);
        const RunResult r = runOne(replicatedScenario("msi-directory", factor));
        const RunSummary& s = r.summary;
        const std::uint64_t replicas = factor - 1;
        // Without replicas the tail is in M at decode after the first append, and the later appends hit.
        EXPECT_EQ(countOf(one.summary, "Inv"), 1u);
        // With them, every append (the first token's step and the 4 after it) finds the tail shared: an upgrade
        // (GetM), an Inv to each replica and its Inv-Ack, and each replica's refetch (GetS, answered by decode
        // with Fwd-GetS's data to it and a copy to the home).
        const std::uint64_t appends = 5;
        EXPECT_EQ(countOf(s, "GetM"), countOf(one.summary, "GetM") + appends - 1);
        EXPECT_EQ(countOf(s, "Inv"), 1u + appends * replicas);
        EXPECT_EQ(countOf(s, "Inv-Ack"), 1u + appends * replicas);
        EXPECT_EQ(s.upgrades, appends);
        EXPECT_EQ(s.replication.refetches, appends * replicas);
        // Each replica loaded the 7 blocks once: the prompt's, after prefill's write.
        EXPECT_EQ(s.replication.fetches, 7 * replicas);
        EXPECT_EQ(countOf(s, "GetS"), countOf(one.summary, "GetS") + s.replication.fetches + s.replication.refetches);
        EXPECT_EQ(s.replication.factor, factor);
        const std::vector<std::string> nodes =
            factor == 2 ? std::vector<std::string>{"r0"} : std::vector<std::string>{"r0", "r1"};
        EXPECT_EQ(s.replication.nodes, nodes);
        // Decode's store waits for the farthest replica's Inv-Ack: one 64 B message each way over its link.
        const SimTime farthest = factor == 2 ? kMicrosecond : 3 * kMicrosecond;
        EXPECT_EQ(r.requests[0].decodeStall, (appends - 1) * 2 * (farthest + 64));
        EXPECT_EQ(one.requests[0].decodeStall, 0);
        EXPECT_GT(r.summary.tpotStallMs.p50, 0.0);
    }
}

TEST(Replication, LazyCausalPushesEachUpdateToTheReplicasAndTheWriterNeverStalls)
{
    const RunResult one = runOne(replicatedScenario("lazy-causal", 1));
    for (std::uint32_t factor : {2u, 3u}) {
        SCOPED_TRACE(factor);
        const RunResult r = runOne(replicatedScenario("lazy-causal", factor));
        const RunSummary& s = r.summary;
        const std::uint64_t replicas = factor - 1;
        // Every store sends an Update home, which forwards it to each replica; each acknowledges to the writer.
        const std::uint64_t updates = countOf(one.summary, "Update");
        EXPECT_EQ(countOf(s, "Update"), updates);
        EXPECT_EQ(countOf(s, "Fwd-Update"), countOf(one.summary, "Fwd-Update") + updates * replicas);
        EXPECT_EQ(countOf(s, "Update-Ack"), countOf(one.summary, "Update-Ack") + updates * replicas);
        // Replicas are never invalidated, so nothing is fetched twice, and the writer's stores never wait.
        EXPECT_EQ(countOf(s, "Inv"), 0u);
        EXPECT_EQ(s.replication.refetches, 0u);
        EXPECT_EQ(s.replication.fetches, 7 * replicas);
        EXPECT_EQ(r.requests[0].decodeStall, one.requests[0].decodeStall);
        EXPECT_GT(s.replication.dataBytes, 0.0);
    }
}

TEST(Replication, SealedLeaseReplicatesEachBlockOnceItIsSealed)
{
    // 100 prompt tokens and 17 output tokens: the open tail (block 6) closes when block 7 opens.
    Workload w;
    w.requests.push_back({0, 100, 17, 0, 0});
    const RunResult one = runScenario(replicatedScenario("sealed-lease", 1), w);
    const RunResult r = runScenario(replicatedScenario("sealed-lease", 3), w);
    ASSERT_EQ(r.requests.size(), 1u);
    // The 6 sealed prompt blocks at once, block 6 once it is closed; the open tail (block 7) is never read, so
    // decode appends to it as without replicas.
    EXPECT_EQ(r.summary.replication.fetches, 2u * 7);
    EXPECT_EQ(r.summary.replication.refetches, 0u);
    EXPECT_EQ(countOf(r.summary, "Lease-Req"), countOf(one.summary, "Lease-Req") + 2u * 7);
    EXPECT_EQ(r.requests[0].decodeStall, one.requests[0].decodeStall);
}

TEST(Replication, EveryProtocolCompletesALoadedRunWithReplicas)
{
    for (const char* protocol : {"msi-directory", "mesi-directory", "moesi-directory", "migratory", "unified-memory",
                                 "mesi-snooping", "cxl-asymmetric", "sealed-lease", "lazy-causal"}) {
        SCOPED_TRACE(protocol);
        Scenario s = replicatedScenario(protocol, 3);
        s.coherence.home = HomePolicy::AllocatingNode;
        const RunResult r = runScenario(s, poissonWorkload(20, 200, 70, 20, 3));
        EXPECT_EQ(r.requests.size(), 20u);
        EXPECT_EQ(r.summary.replication.nodes, (std::vector<std::string>{"r0", "r1"}));
    }
}

// The DGX preset: gpu4..7 decode; GPUs meet at the NVSwitch (0.7 us a hop), each hangs off a CPU socket by PCIe
// (1 us; gpu4..7 on cpu1), and the sockets are 100 ns apart by UPI.
std::vector<std::string> placedOn(const Scenario& s, const std::string& decodeNode)
{
    const Routing routing(s.topology);
    ReplicaPlacer placer(s, routing);
    std::vector<std::string> ids;
    for (std::uint32_t n : placer.place(*s.topology.nodeIndex(decodeNode)))
        ids.push_back(s.topology.nodes[n].id);
    return ids;
}

Scenario dgxWith(std::uint32_t factor, ReplicaPlacement placement, std::vector<std::string> nodes = {})
{
    Scenario s = loadScenarioFile(std::string(COH_TEST_DATA_DIR) + "/../../datasets/presets/dgx-h100-8gpu.json");
    s.coherence.decode = "msi-directory";
    s.serving.replication = {factor, placement, std::move(nodes)};
    return s;
}

TEST(Replication, PlacementPoliciesPickTheirNodesOnTheDgxPreset)
{
    // nearest: gpu4's own socket's DRAM (1 us), then the other socket's (1.1 us); a GPU is 1.4 us away.
    EXPECT_EQ(placedOn(dgxWith(3, ReplicaPlacement::Nearest), "gpu4"), (std::vector<std::string>{"cpu1", "cpu0"}));
    EXPECT_EQ(placedOn(dgxWith(4, ReplicaPlacement::Nearest), "gpu4"),
              (std::vector<std::string>{"cpu1", "cpu0", "gpu0"}));
    // spread: the farthest from every copy placed: the GPUs, 1.4 us from gpu4 and from each other.
    EXPECT_EQ(placedOn(dgxWith(3, ReplicaPlacement::Spread), "gpu4"), (std::vector<std::string>{"gpu0", "gpu1"}));
    EXPECT_EQ(placedOn(dgxWith(2, ReplicaPlacement::Spread), "gpu0"), (std::vector<std::string>{"gpu1"}));
    // fixed: the list in order, the decode node skipped.
    EXPECT_EQ(placedOn(dgxWith(3, ReplicaPlacement::Fixed, {"gpu4", "gpu5", "cpu1"}), "gpu4"),
              (std::vector<std::string>{"gpu5", "cpu1"}));
    EXPECT_EQ(placedOn(dgxWith(3, ReplicaPlacement::Fixed, {"gpu4", "gpu5", "cpu1"}), "gpu6"),
              (std::vector<std::string>{"gpu4", "gpu5"}));
}

nlohmann::json minimalWith(const nlohmann::json& replication, const std::string& protocol = "msi-directory")
{
    nlohmann::json j = readFixtureJson("minimal.json");
    j["serving"]["replication"] = replication;
    j["coherence"] = {{"decode", protocol}};
    return j;
}

TEST(Replication, ParserReportsEachBadFieldWithItsFix)
{
    // minimal.json has two nodes with memory (gpu0, gpu1) and a switch.
    EXPECT_NE(problemAt(minimalWith({{"factor", 3}}), "/serving/replication/factor").message.find("2"),
              std::string::npos);
    EXPECT_NE(problemAt(minimalWith({{"factor", 15}}), "/serving/replication/factor").message.find("at most 14"),
              std::string::npos);
    problemAt(minimalWith({{"factor", 0}}), "/serving/replication/factor");
    problemAt(minimalWith({{"placement", "spread"}}), "/serving/replication/factor");
    problemAt(minimalWith({{"factor", 2}, {"placement", "everywhere"}}), "/serving/replication/placement");
    problemAt(minimalWith({{"factor", 2}, {"placement", "fixed"}}), "/serving/replication/nodes");
    problemAt(minimalWith({{"factor", 2}, {"placement", "nearest"}, {"nodes", {"gpu0"}}}),
              "/serving/replication/nodes");
    problemAt(minimalWith({{"factor", 2}, {"placement", "fixed"}, {"nodes", {"sw0"}}}), "/serving/replication/nodes/0");
    problemAt(minimalWith({{"factor", 2}, {"placement", "fixed"}, {"nodes", {"gpu9"}}}),
              "/serving/replication/nodes/0");
    // gpu1 decodes: naming it leaves no replica for its sequences.
    problemAt(minimalWith({{"factor", 2}, {"placement", "fixed"}, {"nodes", {"gpu1"}}}), "/serving/replication/nodes");
    problemAt(minimalWith({{"factor", 2}}, "direct"), "/serving/replication");
    // A node with memory that no link reaches cannot hold gpu1's replicas.
    nlohmann::json isolated = minimalWith({{"factor", 2}, {"placement", "fixed"}, {"nodes", {"gpu2"}}});
    isolated["topology"]["nodes"].push_back(
        {{"id", "gpu2"},
         {"kind", "gpu"},
         {"memory", {{{"tier", "hbm"}, {"capacity", "80 GB"}, {"bandwidth", "2 TB/s"}}}}});
    EXPECT_NE(problemAt(isolated, "/serving/replication/factor").message.find("reaches 0 nodes"), std::string::npos);
    const Scenario ok =
        parseScenario(minimalWith({{"factor", 2}, {"placement", "fixed"}, {"nodes", {"gpu0"}}}), "mem/scenario.json");
    EXPECT_EQ(ok.serving.replication.factor, 2u);
    EXPECT_EQ(ok.serving.replication.placement, ReplicaPlacement::Fixed);
    EXPECT_EQ(ok.serving.replication.nodes, std::vector<std::string>{"gpu0"});
}

// The editor offers replica nodes before the scenario validates: the ids come from the topology JSON as the loader
// reads it, with the loader's rule (a tier other than storage), a node with a bad value judged on what it reads.
TEST(Replication, CandidateIdsComeFromTheTopologyJsonAsTheLoaderReadsIt)
{
    const auto topology = nlohmann::json::parse(R"({"nodes": [
        {"id": "gpu0", "kind": "gpu", "memory": [{"tier": "hbm", "capacity": "80 GB", "bandwidth": "3 TB/s"}]},
        {"id": "sw", "kind": "switch"},
        {"id": "disk", "kind": "storage", "memory": [{"tier": "storage", "capacity": "1 TB", "bandwidth": "1 GB/s"}]},
        {"id": "cpu0", "kind": "cpu_socket", "memory": [{"tier": "storage", "capacity": "1 TB", "bandwidth": "1 GB/s"},
                                                        {"tier": "dram", "capacity": "512 GB", "bandwidth": "200 GB/s"}]},
        {"id": "cxl0", "kind": "cxl_memory", "memory": [{"tier": "cxl", "capacity": "lots", "bandwidth": "64 GB/s"}]}
    ], "links": []})");
    EXPECT_EQ(replicaCandidateIds(topology), (std::vector<std::string>{"gpu0", "cpu0"}));
    EXPECT_TRUE(replicaCandidateIds(nlohmann::json::array()).empty()); // not a topology: nothing to offer
}

TEST(Replication, TheStoredSummaryKeepsTheBlockOnlyWhenReplicated)
{
    const RunResult r = runOne(replicatedScenario("msi-directory", 3));
    const nlohmann::ordered_json j = toJson(r.summary);
    ASSERT_TRUE(j.contains("replication"));
    const ReplicationSummary back = summaryFromJson(j).replication;
    const ReplicationSummary& rep = r.summary.replication;
    EXPECT_EQ(back.factor, 3u);
    EXPECT_EQ(back.placement, "fixed");
    EXPECT_EQ(back.nodes, rep.nodes);
    EXPECT_EQ(back.messages, rep.messages);
    EXPECT_EQ(back.dataMessages, rep.dataMessages);
    EXPECT_DOUBLE_EQ(back.dataBytes, rep.dataBytes);
    EXPECT_DOUBLE_EQ(back.controlBytes, rep.controlBytes);
    EXPECT_EQ(back.fetches, rep.fetches);
    EXPECT_EQ(back.refetches, rep.refetches);
    // R = 1 writes no block (summaries of unreplicated runs are unchanged) and reads back as factor 1.
    const nlohmann::ordered_json plain = toJson(runOne(replicatedScenario("msi-directory", 1)).summary);
    EXPECT_FALSE(plain.contains("replication"));
    EXPECT_EQ(summaryFromJson(plain).replication.factor, 1u);
}

} // namespace
} // namespace coh::test
