// Decode KV below HBM (serving.kv_tiers): sequences grow block by block, a full HBM offloads a victim to the tier
// and fetches it back before it decodes again, each move under the tier's protocol (or a plain copy).
#include "bounded_run.h"
#include "core/coherence/protocol_registry.h"
#include "core/serving/serving_engine.h"
#include "core/store/run_serialization.h"
#include "engine_fixtures.h"
#include "kv_tier_fixtures.h"
#include "tests/core/scenario_test_util.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <numeric>
#include <random>

namespace coh::test {
namespace {

constexpr double kBlockBytes = 16 * 256.0; // tinyModel: 256 bytes per token, 16-token blocks

// twoGpuScenario whose decode GPU holds 20 KV blocks, with a host socket h0 (DRAM) 2 us and 1 GB/s from it.
Scenario tieredScenario(const std::vector<Tier>& tiers, const std::string& tierProtocol = "direct",
                        TierWrite write = TierWrite::WriteBack)
{
    return withKvTiers(twoGpuScenario(), tiers, tierProtocol, write);
}

const KvTierUsage& dram(const RunResult& r)
{
    EXPECT_TRUE(r.summary.kvTiers.enabled);
    EXPECT_EQ(r.summary.kvTiers.tiers.size(), 1u);
    return r.summary.kvTiers.tiers.front();
}

TEST(KvTiers, WithoutTiersTheSecondSequenceWaitsForTheFirstToFinish)
{
    const RunResult r = runBounded(tieredScenario({}), twoLongSequences());
    ASSERT_EQ(r.requests.size(), 2u);
    EXPECT_FALSE(r.summary.kvTiers.enabled);
    // 13 + 13 blocks reserved up front do not fit in 20: the second is admitted when the first has finished.
    const auto& [first, second] =
        std::minmax(r.requests[0], r.requests[1], [](const auto& a, const auto& b) { return a.finish < b.finish; });
    EXPECT_GE(second.transferStart, first.finish);
}

TEST(KvTiers, AFullHbmOffloadsTheNewestSequenceAndFetchesItBack)
{
    const RunResult without = runBounded(tieredScenario({}), twoLongSequences());
    const RunResult r = runBounded(tieredScenario({Tier::Dram}), twoLongSequences());
    ASSERT_EQ(r.requests.size(), 2u);
    const KvTiersSummary& t = r.summary.kvTiers;
    const KvTierUsage& u = dram(r);
    EXPECT_EQ(u.tier, "dram");
    EXPECT_EQ(u.protocol, "direct");
    EXPECT_EQ(u.nodes, std::vector<std::string>{"h0"});
    EXPECT_EQ(u.capacityBlocks, static_cast<std::uint64_t>(1e9 / kBlockBytes));
    // Both are admitted at once and decode together until their 20 blocks run out; then one goes to DRAM
    // (both last decoded in the same step: the later admitted is the victim), and comes back when the other is done.
    EXPECT_GE(t.preemptions, 1u);
    EXPECT_EQ(u.offloads, t.preemptions);
    EXPECT_EQ(u.fetches, u.offloads);
    EXPECT_EQ(u.blocksDown, u.blocksUp);
    EXPECT_GT(u.blocksDown, 0u);
    // Plain copies: one message per block moved (counted per block, as all of a run's messages), every block's
    // bytes over the link.
    EXPECT_EQ(u.messages, u.blocksDown + u.blocksUp);
    EXPECT_DOUBLE_EQ(u.bytesDown, u.blocksDown * kBlockBytes);
    EXPECT_DOUBLE_EQ(u.bytesUp, u.blocksUp * kBlockBytes);
    EXPECT_GT(t.offHbmMs, 0.0);
    EXPECT_DOUBLE_EQ(u.peakBlocks, static_cast<double>(u.blocksDown / u.offloads));
    ASSERT_FALSE(u.occupancy.empty());
    EXPECT_DOUBLE_EQ(u.occupancy.back().blocks, 0.0); // everything came back
    // The replay's per-node counts hold the host's copies under the tier's name, as the tier's own series does.
    const auto host = std::find_if(r.nodeBlocks.begin(), r.nodeBlocks.end(),
                                   [](const NodeBlocksSeries& n) { return n.node == 2 && n.state == "dram"; });
    ASSERT_NE(host, r.nodeBlocks.end());
    EXPECT_DOUBLE_EQ(host->peakBlocks, u.peakBlocks);
    EXPECT_EQ(host->steps, u.occupancy);
    // The second sequence no longer waits for the first: its first token comes earlier.
    const auto second = [](const RunResult& run) {
        return std::max(run.requests[0].firstToken, run.requests[1].firstToken);
    };
    EXPECT_LT(second(r), second(without));
    // Every token is still generated; its time off HBM shows in the victim's TPOT as stall.
    EXPECT_EQ(r.summary.outputTokens, 200u);
    EXPECT_GT(r.summary.tpotStallMs.max, without.summary.tpotStallMs.max);
}

// Four sequences of 60 prompt tokens growing to 260 (17 blocks) in 20 blocks of HBM: they take turns, and some are
// offloaded more than once.
Workload fourTakingTurns()
{
    Workload w;
    for (int i = 0; i < 4; ++i)
        w.requests.push_back({0, 60, 200, 0, 0});
    return w;
}

TEST(KvTiers, EveryTierProtocolMovesTheSameBlocksAndKeepsItsInvariants)
{
    for (const Workload& workload : {twoLongSequences(), fourTakingTurns()}) {
        const RunResult plain = runBounded(tieredScenario({Tier::Dram}), workload);
        if (workload.requests.size() == 4) { // repeated offloads of one sequence: each move is its own transaction
            EXPECT_GT(plain.summary.kvTiers.preemptions, 4u);
        }
        for (const auto& table : coherence::allProtocols()) {
            const std::string protocol = table.name;
            SCOPED_TRACE(protocol);
            const RunResult r = runBounded(tieredScenario({Tier::Dram}, protocol), workload);
            ASSERT_EQ(r.requests.size(), workload.requests.size());
            const KvTierUsage& u = dram(r);
            EXPECT_EQ(u.protocol, protocol);
            EXPECT_EQ(u.offloads, dram(plain).offloads);
            EXPECT_EQ(u.fetches, u.offloads);
            EXPECT_EQ(u.blocksDown, dram(plain).blocksDown);
            // A protocol sends requests and acks besides the data: more messages than the plain copies' two per move.
            EXPECT_GT(u.messages, dram(plain).messages);
        }
    }
}

TEST(KvTiers, MsiWritesDownThroughGetMAndPutMAndReadsBackThroughGetS)
{
    const RunResult r = runBounded(tieredScenario({Tier::Dram}, "msi-directory"), twoLongSequences());
    const KvTierUsage& u = dram(r);
    std::uint64_t getM = 0, getS = 0, putM = 0;
    for (const auto& k : r.summary.messagesByKind) {
        getM += k.name == "dram GetM" ? k.count : 0;
        getS += k.name == "dram GetS" ? k.count : 0;
        putM += k.name.rfind("dram PutM", 0) == 0 ? k.count : 0;
    }
    // One message per block moved: the offload's store misses (GetM), its eviction writes the data home (PutM),
    // the fetch's load misses (GetS).
    EXPECT_EQ(getM, u.blocksDown);
    EXPECT_EQ(putM, u.blocksDown);
    EXPECT_EQ(getS, u.blocksUp);
    // MSI allocates on a write: the directory sends the block to the writer before it is written back.
    EXPECT_DOUBLE_EQ(u.bytesDown, u.blocksDown * kBlockBytes);
    EXPECT_DOUBLE_EQ(u.bytesUp, (u.blocksDown + u.blocksUp) * kBlockBytes);
}

TEST(KvTiers, WriteThroughWritesBlocksAsTheyFillSoAnOffloadWritesOnlyTheTail)
{
    const RunResult back = runBounded(tieredScenario({Tier::Dram}), twoLongSequences());
    const RunResult through =
        runBounded(tieredScenario({Tier::Dram}, "direct", TierWrite::WriteThrough), twoLongSequences());
    ASSERT_EQ(through.requests.size(), 2u);
    const KvTierUsage& b = dram(back);
    const KvTierUsage& t = dram(through);
    EXPECT_EQ(through.summary.kvTiers.write, "write_through");
    // Every full block of both sequences goes down once (6 prompt blocks, then each block decode fills: 12 in all
    // by token 192), plus the open tail at each offload.
    EXPECT_GE(t.blocksDown, 2u * 12u);
    EXPECT_LE(t.blocksDown, 2u * 12u + t.offloads);
    EXPECT_GT(t.blocksDown, b.blocksDown);
    // The copies stay for each sequence's life; all are gone at the end.
    EXPECT_GT(t.peakBlocks, b.peakBlocks);
    EXPECT_DOUBLE_EQ(t.occupancy.back().blocks, 0.0);
}

TEST(KvTiers, SummaryRoundTripsThroughJson)
{
    const RunResult r = runBounded(tieredScenario({Tier::Dram}, "msi-directory"), twoLongSequences());
    const RunSummary back = summaryFromJson(toJson(r.summary));
    ASSERT_TRUE(back.kvTiers.enabled);
    EXPECT_EQ(back.kvTiers.preemptions, r.summary.kvTiers.preemptions);
    EXPECT_DOUBLE_EQ(back.kvTiers.offHbmMs, r.summary.kvTiers.offHbmMs);
    ASSERT_EQ(back.kvTiers.tiers.size(), 1u);
    const KvTierUsage& a = r.summary.kvTiers.tiers[0];
    const KvTierUsage& b = back.kvTiers.tiers[0];
    EXPECT_EQ(b.protocol, a.protocol);
    EXPECT_EQ(b.nodes, a.nodes);
    EXPECT_EQ(b.blocksDown, a.blocksDown);
    EXPECT_EQ(b.messages, a.messages);
    EXPECT_DOUBLE_EQ(b.bytesUp, a.bytesUp);
    EXPECT_EQ(b.occupancy, a.occupancy);
    // A run without tiers writes no block and reads as none.
    const RunResult plain = runBounded(tieredScenario({}), twoLongSequences());
    EXPECT_FALSE(toJson(plain.summary).contains("kv_tiers"));
    EXPECT_FALSE(summaryFromJson(toJson(plain.summary)).kvTiers.enabled);
}

// A capacity per decode instance caps its share of the node: here 13 blocks of the host's 244,140, room for all of
// the second 13-block sequence, admitted beyond HBM.
TEST(KvTiers, ACapacityCapsEachDecodeInstancesShare)
{
    Scenario s = tieredScenario({Tier::Dram});
    s.serving.kvTiers.capacityBytes[Tier::Dram] = 13.5 * kBlockBytes;
    const RunResult r = runBounded(s, twoLongSequences());
    ASSERT_EQ(r.requests.size(), 2u);
    EXPECT_EQ(dram(r).capacityBlocks, 13u);
    EXPECT_GE(dram(r).offloads, 1u);
    EXPECT_LE(dram(r).peakBlocks, 13.0);
    // Too small for the second sequence: it is not admitted beside the first, as without tiers, and nothing leaves
    // HBM.
    s.serving.kvTiers.capacityBytes[Tier::Dram] = 2 * kBlockBytes;
    const RunResult none = runBounded(s, twoLongSequences());
    ASSERT_EQ(none.requests.size(), 2u);
    EXPECT_EQ(dram(none).offloads, 0u);
}

// A sequence admitted beyond HBM needs room below for all of it: with 3 blocks of DRAM, two 11-block sequences
// (22 > 20 blocks of HBM) are not admitted together, so the run cannot end with both stuck for a block.
TEST(KvTiers, AdmissionBeyondHbmNeedsRoomBelowForAllOfIt)
{
    Scenario s = tieredScenario({Tier::Dram});
    s.serving.kvTiers.capacityBytes[Tier::Dram] = 3 * kBlockBytes;
    Workload w;
    w.requests.push_back({0, 150, 26, 0, 0}); // 176 tokens: 11 blocks
    w.requests.push_back({0, 150, 26, 0, 0});
    const RunResult r = runBounded(s, w);
    ASSERT_EQ(r.requests.size(), 2u);
    EXPECT_EQ(dram(r).offloads, 0u);
    const auto& [first, second] =
        std::minmax(r.requests[0], r.requests[1], [](const auto& a, const auto& b) { return a.finish < b.finish; });
    EXPECT_GE(second.transferStart, first.finish);
}

// DRAM with room for 10 blocks, then a CXL node with plenty: a victim bigger than what DRAM has left spills to CXL.
TEST(KvTiers, SequencesSpillToTheNextTierWhenTheFirstIsFull)
{
    Scenario s = tieredScenario({Tier::Dram, Tier::Cxl});
    s.topology.nodes[2].memory[0].capacityBytes = 10.5 * kBlockBytes;
    Node cxl;
    cxl.id = "x0";
    cxl.kind = NodeKind::CxlMemory;
    cxl.memory = {{Tier::Cxl, 1e9, 6.4e10}};
    s.topology.nodes.push_back(cxl);
    s.topology.links.push_back(link("d0", "x0", 3 * kMicrosecond, 1e9));
    const RunResult r = runBounded(s, fourTakingTurns());
    ASSERT_EQ(r.requests.size(), 4u);
    const auto& tiers = r.summary.kvTiers.tiers;
    ASSERT_EQ(tiers.size(), 2u);
    EXPECT_EQ(tiers[0].tier, "dram");
    EXPECT_EQ(tiers[1].tier, "cxl");
    EXPECT_EQ(tiers[0].capacityBlocks, 10u);
    EXPECT_EQ(tiers[1].nodes, std::vector<std::string>{"x0"});
    EXPECT_LE(tiers[0].peakBlocks, 10.0);
    EXPECT_GT(tiers[1].offloads, 0u);
    for (const auto& t : tiers) {
        EXPECT_EQ(t.fetches, t.offloads) << t.tier;
        EXPECT_EQ(t.blocksUp, t.blocksDown) << t.tier;
    }
    EXPECT_EQ(tiers[0].offloads + tiers[1].offloads, r.summary.kvTiers.preemptions);
}

// Random small workloads in 20 blocks of HBM, under each policy and several tier protocols: every request that fits
// completes, every offload comes back, and no run livelocks.
TEST(KvTiers, RandomWorkloadsAllCompleteUnderEveryPolicy)
{
    std::mt19937_64 rng(2026);
    const std::vector<std::string> protocols = {"direct", "msi-directory", "sealed-lease", "lazy-causal"};
    for (int trial = 0; trial < 48; ++trial) {
        SCOPED_TRACE(trial);
        Scenario s = tieredScenario({Tier::Dram}, protocols[trial % protocols.size()],
                                    trial % 2 ? TierWrite::WriteThrough : TierWrite::WriteBack);
        s.serving.kvTiers.eviction = (trial / 2) % 2 ? TierEviction::Largest : TierEviction::Lru;
        s.serving.decodeMaxBatchSize = 1 + static_cast<std::uint32_t>(rng() % 6);
        if (trial % 3 == 0) // a DRAM share that holds one sequence or two, not every offload
            s.topology.nodes[2].memory[0].capacityBytes = (12 + rng() % 20) * kBlockBytes;
        const Workload w = randomSmallWorkload(rng, 8, 20);
        const RunResult r = runBounded(s, w);
        EXPECT_EQ(r.requests.size(), w.requests.size());
        for (const auto& t : r.summary.kvTiers.tiers) {
            EXPECT_EQ(t.fetches, t.offloads);
            EXPECT_DOUBLE_EQ(t.occupancy.empty() ? 0.0 : t.occupancy.back().blocks, 0.0);
        }
    }
}

nlohmann::json minimalWithTiers(const nlohmann::json& tiers)
{
    nlohmann::json j = readFixtureJson("minimal.json");
    j["serving"]["kv_tiers"] = tiers;
    return j;
}

TEST(KvTiers, ParserReportsEachBadFieldWithItsFix)
{
    // minimal.json: gpu0 (prefill) has HBM and DRAM, gpu1 decodes; no node has CXL memory.
    const Scenario ok =
        parseScenario(minimalWithTiers({{"tiers", {"dram"}}, {"eviction", "largest"}, {"write", "write_through"}}),
                      "mem/scenario.json");
    EXPECT_EQ(ok.serving.kvTiers.tiers, std::vector<Tier>{Tier::Dram});
    EXPECT_EQ(ok.serving.kvTiers.eviction, TierEviction::Largest);
    EXPECT_EQ(ok.serving.kvTiers.write, TierWrite::WriteThrough);
    problemAt(minimalWithTiers(nlohmann::json::object()), "/serving/kv_tiers/tiers");
    problemAt(minimalWithTiers({{"tiers", nlohmann::json::array()}}), "/serving/kv_tiers/tiers");
    problemAt(minimalWithTiers({{"tiers", "dram"}}), "/serving/kv_tiers/tiers");
    problemAt(minimalWithTiers({{"tiers", {"hbm"}}}), "/serving/kv_tiers/tiers/0");
    problemAt(minimalWithTiers({{"tiers", {"dram", "dram"}}}), "/serving/kv_tiers/tiers/1");
    problemAt(minimalWithTiers({{"tiers", {"dram", 3}}}), "/serving/kv_tiers/tiers/1");
    EXPECT_NE(problemAt(minimalWithTiers({{"tiers", {"dram", "cxl"}}}), "/serving/kv_tiers/tiers/1")
                  .message.find("reaches no node with cxl memory"),
              std::string::npos);
    problemAt(minimalWithTiers({{"tiers", {"dram"}}, {"eviction", "random"}}), "/serving/kv_tiers/eviction");
    problemAt(minimalWithTiers({{"tiers", {"dram"}}, {"write", "sometimes"}}), "/serving/kv_tiers/write");
    problemAt(minimalWithTiers({{"tiers", {"dram"}}, {"size", 3}}), "/serving/kv_tiers/size");
    // capacity: bytes per decode instance for listed tiers only.
    const Scenario capped =
        parseScenario(minimalWithTiers({{"tiers", {"dram"}}, {"capacity", {{"dram", "4 GiB"}}}}), "mem/scenario.json");
    EXPECT_DOUBLE_EQ(capped.serving.kvTiers.capacityBytes.at(Tier::Dram), 4.0 * 1024 * 1024 * 1024);
    problemAt(minimalWithTiers({{"tiers", {"dram"}}, {"capacity", {{"cxl", "4 GiB"}}}}),
              "/serving/kv_tiers/capacity/cxl");
    problemAt(minimalWithTiers({{"tiers", {"dram"}}, {"capacity", {{"hbm", "4 GiB"}}}}),
              "/serving/kv_tiers/capacity/hbm");
    problemAt(minimalWithTiers({{"tiers", {"dram"}}, {"capacity", {{"dram", "lots"}}}}),
              "/serving/kv_tiers/capacity/dram");
    problemAt(minimalWithTiers({{"tiers", {"dram"}}, {"capacity", "4 GiB"}}), "/serving/kv_tiers/capacity");
    // A tier protocol now governs something when decode KV spills to that tier.
    nlohmann::json withProtocol = minimalWithTiers({{"tiers", {"dram"}}});
    withProtocol["coherence"] = {{"tiers", {{"dram", "msi-directory"}}}};
    EXPECT_EQ(parseScenario(withProtocol, "mem/scenario.json").coherence.tiers.at(Tier::Dram), "msi-directory");
}

} // namespace
} // namespace coh::test
