// serving.shared_prefix: the trace's prefix blocks as coherent blocks of the decode protocol, one per hash id with a
// cache per instance. A decode instance that holds a block (for a running sequence, or kept idle) reads it without a
// transfer; two decode instances reading one block at once are its sharers, and what that costs is the table's
// (nothing more under MSI, a migration per read under migratory). The section's errors name field and fix.
#include "core/serving/serving_engine.h"
#include "engine_fixtures.h"
#include "scenario_test_util.h"

#include <gtest/gtest.h>

#include <numeric>

namespace coh::test {
namespace {

constexpr double kTokenBytes = 256; // the tiny model's KV per token

// The two-GPU scenario under `protocol`, with 32-token shared prefix blocks (two 16-token KV blocks each).
Scenario sharedScenario(const std::string& protocol, bool shared, std::optional<double> capacity = std::nullopt)
{
    Scenario s = twoGpuScenario();
    s.serving.blockTokens = 16;
    s.coherence.decode = protocol;
    s.serving.sharedPrefix = {shared, 32, capacity};
    return s;
}

// A second decode GPU, d1, on its own 1 us link to p0; decode instances take requests in turn.
Scenario twoDecoders(const std::string& protocol)
{
    Scenario s = sharedScenario(protocol, true);
    s.topology.nodes.push_back(servingNode("d1", NodeRole::Decode));
    s.topology.links.push_back(link("p0", "d1", kMicrosecond, 1e9));
    s.serving.instances.push_back({"decode1", InstanceRole::Decode, {"d1"}, 0, 0});
    return s;
}

// Requests of 100 prompt tokens whose first three 32-token blocks are hash ids 1 2 3 (96 tokens shared; the last 4
// are each request's own), arriving `gap` apart.
Workload samePrefix(std::uint32_t count, SimTime gap, std::uint32_t output = 5)
{
    Workload w;
    for (std::uint32_t i = 0; i < count; ++i) {
        w.requests.push_back({i * gap, 100, output, static_cast<std::uint32_t>(w.prefixHashes.size()), 3});
        w.prefixHashes.insert(w.prefixHashes.end(), {1, 2, 3});
    }
    return w;
}

TEST(SharedPrefix, ALaterRequestOnTheSameDecoderReadsThePrefixItKeptWithoutATransfer)
{
    const Workload w = samePrefix(2, kSecond);
    const RunResult plain = runScenario(sharedScenario("msi-directory", false), w);
    const RunResult shared = runScenario(sharedScenario("msi-directory", true), w);
    ASSERT_EQ(shared.summary.completed, 2u);
    const SharedPrefixSummary& sp = shared.summary.sharedPrefix;
    EXPECT_TRUE(sp.enabled);
    EXPECT_EQ(sp.blocks, 3u);
    EXPECT_EQ(sp.sharedTokens, 192u);
    EXPECT_EQ(sp.writes, 3u);        // the first prefill writes the blocks ...
    EXPECT_EQ(sp.writesSkipped, 3u); // ... the second computes the same content again and writes nothing
    EXPECT_EQ(sp.acquires, 6u);
    EXPECT_EQ(sp.acquireHits, 3u); // decode kept the first request's blocks idle and the second reads them there
    EXPECT_EQ(sp.reads, 2u * 5u * 3u);
    EXPECT_EQ(sp.readMisses, 0u);
    EXPECT_EQ(sp.evictions, 0u);
    // Exactly the second request's 96 prefix tokens stay off the link; every other byte moves as before.
    EXPECT_DOUBLE_EQ(plain.summary.kvBytes - shared.summary.kvBytes, 96 * kTokenBytes);
    EXPECT_EQ(plain.summary.kvTransfers - shared.summary.kvTransfers, 6u);
    EXPECT_FALSE(plain.summary.sharedPrefix.enabled);
    EXPECT_EQ(plain.summary.sharedPrefix.acquires, 0u);
}

TEST(SharedPrefix, ADecoderWithNoRoomForIdleBlocksFetchesThePrefixAgain)
{
    const Workload w = samePrefix(2, kSecond);
    const RunResult plain = runScenario(sharedScenario("msi-directory", false), w);
    const RunResult none = runScenario(sharedScenario("msi-directory", true, 0.0), w);
    ASSERT_EQ(none.summary.completed, 2u);
    EXPECT_EQ(none.summary.sharedPrefix.capacityBlocks, 0u);
    EXPECT_EQ(none.summary.sharedPrefix.acquireHits, 0u);
    // The copy went home when the first request ended, so the second fetches the same bytes a private copy would.
    EXPECT_DOUBLE_EQ(none.summary.kvBytes, plain.summary.kvBytes);

    // Room for one idle block of the three: as each request ends, the two released first are dropped (4 in all),
    // and the second request finds the one kept.
    const RunResult one = runScenario(sharedScenario("msi-directory", true, 32 * kTokenBytes), w);
    EXPECT_EQ(one.summary.sharedPrefix.capacityBlocks, 1u);
    EXPECT_EQ(one.summary.sharedPrefix.evictions, 4u);
    EXPECT_EQ(one.summary.sharedPrefix.acquireHits, 1u);
    EXPECT_DOUBLE_EQ(plain.summary.kvBytes - one.summary.kvBytes, 32 * kTokenBytes);
}

TEST(SharedPrefix, TwoDecodersShareABlockForFreeUnderMsiButPassItBackAndForthUnderMigratory)
{
    // Both requests arrive together: decode0 and decode1 read the same three blocks on every step.
    const Workload w = samePrefix(2, 0, 20);
    const RunResult msi = runScenario(twoDecoders("msi-directory"), w);
    const RunResult migratory = runScenario(twoDecoders("migratory"), w);
    ASSERT_EQ(msi.summary.completed, 2u);
    ASSERT_EQ(migratory.summary.completed, 2u);
    // The prefill instance and both decoders use each block at once.
    EXPECT_EQ(msi.summary.sharedPrefix.peakHolders, 3u);
    EXPECT_EQ(msi.summary.sharedPrefix.acquireHits, 0u);
    EXPECT_EQ(msi.summary.sharedPrefix.reads, 2u * 20u * 3u);
    // MSI: both decoders keep S copies; every read hits.
    EXPECT_EQ(msi.summary.sharedPrefix.readMisses, 0u);
    // Migratory: a read takes the block writable from the last reader, so the other decoder's next read misses.
    EXPECT_GT(migratory.summary.sharedPrefix.readMisses, 20u);
    EXPECT_GT(migratory.summary.sharedPrefix.transfers, msi.summary.sharedPrefix.transfers + 20u);
    const auto stall = [](const RunResult& r) {
        return std::accumulate(
            r.requests.begin(), r.requests.end(), SimTime{0},
            [](SimTime sum, const RequestMetrics& m) { return sum + m.decodeStall + m.decodeTransfer; });
    };
    // Both pay the same for their own tail blocks; the migrations come on top, on every step.
    EXPECT_GT(stall(migratory), stall(msi) + 20 * kMicrosecond);
}

TEST(SharedPrefix, CacheAwareRoutingSendsDecodeWhereThePrefixIsHeld)
{
    // The second request is routed while the first still decodes on decode0 (instance 1), which holds the blocks.
    const Workload w = samePrefix(2, 100 * kMillisecond, 20);
    Scenario balanced = twoDecoders("msi-directory");
    balanced.serving.router.policy = RouterPolicy::LeastLoaded;
    Scenario affinity = twoDecoders("msi-directory");
    affinity.serving.router.policy = RouterPolicy::CacheAware;
    const RunResult b = runScenario(balanced, w);
    const RunResult a = runScenario(affinity, w);
    ASSERT_EQ(b.summary.completed, 2u);
    ASSERT_EQ(a.summary.completed, 2u);
    EXPECT_EQ(b.requests[0].decodeInstance, 1u);
    EXPECT_EQ(b.requests[1].decodeInstance, 2u); // least loaded: the idle decoder, which holds nothing
    EXPECT_EQ(b.summary.sharedPrefix.acquireHits, 0u);
    EXPECT_EQ(a.requests[1].decodeInstance, 1u); // where its three blocks are
    EXPECT_EQ(a.summary.sharedPrefix.acquireHits, 3u);
    EXPECT_DOUBLE_EQ(b.summary.kvBytes - a.summary.kvBytes, 96 * kTokenBytes);

    // An instance at max_imbalance x the mean load (at least that many sequences) gets no more for affinity.
    affinity.serving.router.maxImbalance = 1;
    const RunResult capped = runScenario(affinity, w);
    EXPECT_EQ(capped.requests[1].decodeInstance, 2u);
}

TEST(SharedPrefix, LeasesOnSharedCopiesExpireAsOnPrivateOnes)
{
    // One request under sealed-lease: its 96 shared tokens are 6 KV blocks decode reads under a lease, as its 6 full
    // private blocks are without sharing, so every lease count is the same either way.
    const Workload w = samePrefix(1, 0);
    for (const LeaseExpiry policy : {LeaseExpiry::Trust, LeaseExpiry::Refetch}) {
        SCOPED_TRACE(policy == LeaseExpiry::Trust ? "trust" : "refetch");
        Scenario plain = sharedScenario("sealed-lease", false);
        plain.coherence.lease = {1, policy};
        Scenario shared = sharedScenario("sealed-lease", true);
        shared.coherence.lease = {1, policy};
        const RunResult p = runScenario(plain, w);
        const RunResult s = runScenario(shared, w);
        ASSERT_EQ(s.summary.completed, 1u);
        const LeaseSummary& a = p.summary.lease;
        const LeaseSummary& b = s.summary.lease;
        EXPECT_EQ(b.grants, a.grants);
        EXPECT_EQ(b.leasedReads, a.leasedReads);
        EXPECT_EQ(b.expiredReads, a.expiredReads);
        EXPECT_EQ(b.expiredSteps, a.expiredSteps);
        EXPECT_EQ(b.refetches, a.refetches);
        if (policy == LeaseExpiry::Trust) {
            EXPECT_EQ(b.expiredReads, 24u); // the 4 steps after the first read the 6 blocks after expiry
            EXPECT_EQ(s.summary.sharedPrefix.readMisses, 0u);
        } else {
            EXPECT_GT(b.refetches, 0u);
            EXPECT_EQ(s.summary.sharedPrefix.readMisses * 2, b.refetches); // a prefix block is two KV blocks
        }
    }
}

// Blocks the prefill GPU (node 0) holds when the run ends, over every protocol state.
double prefillBlocksAtEnd(const RunResult& r)
{
    double blocks = 0;
    for (const NodeBlocksSeries& series : r.nodeBlocks)
        if (series.node == 0 && !series.steps.empty())
            blocks += series.steps.back().blocks;
    return blocks;
}

TEST(SharedPrefix, ARequestDecodeRejectsDropsWhatItsPrefillHolds)
{
    // decode0's HBM leaves 70 MB of KV (17,089 blocks) after the weights: the first request's million output
    // tokens never fit there (they would on decode1), so decode0 rejects it after its prefill wrote the blocks; the
    // second decodes on decode1.
    Scenario s = twoDecoders("msi-directory");
    s.topology.nodes[1].memory = {{Tier::Hbm, 2.3e9, 1e11}};
    Workload w = samePrefix(2, kSecond);
    w.requests[0].outputTokens = 1'000'000;
    const RunResult r = runScenario(s, w);
    EXPECT_EQ(r.summary.completed, 1u);
    EXPECT_EQ(r.summary.sharedPrefix.writes, 3u);
    EXPECT_EQ(r.summary.sharedPrefix.acquires, 3u);
    // The prefill instance keeps nothing once both requests are done with: the rejected one's copies went too.
    EXPECT_EQ(prefillBlocksAtEnd(r), 0.0);
}

TEST(SharedPrefix, EveryProtocolWritesEachBlockOnceAndCompletesEveryRequest)
{
    // Twelve requests at random times over four prefixes that share their first block.
    Workload w;
    for (std::uint32_t i = 0; i < 12; ++i) {
        const auto offset = static_cast<std::uint32_t>(w.prefixHashes.size());
        w.prefixHashes.insert(w.prefixHashes.end(), {7, 10 + i % 4, 20 + i % 4});
        w.requests.push_back({static_cast<SimTime>((i * 7919) % 13) * kMillisecond, 100 + i, 6, offset, 3});
    }
    std::sort(w.requests.begin(), w.requests.end(),
              [](const Request& a, const Request& b) { return a.arrival < b.arrival; });
    for (const char* protocol : {"msi-directory", "mesi-directory", "moesi-directory", "migratory", "mesi-snooping",
                                 "cxl-asymmetric", "sealed-lease", "lazy-causal", "unified-memory"}) {
        SCOPED_TRACE(protocol);
        const RunResult r = runScenario(twoDecoders(protocol), w);
        ASSERT_EQ(r.summary.completed, 12u);
        const SharedPrefixSummary& sp = r.summary.sharedPrefix;
        EXPECT_EQ(sp.blocks, 9u); // 7, four second blocks, four third blocks
        EXPECT_EQ(sp.writes, 9u);
        EXPECT_EQ(sp.writes + sp.writesSkipped, 12u * 3u);
        EXPECT_EQ(sp.acquires, 12u * 3u);
        EXPECT_EQ(sp.reads, 12u * 6u * 3u);
        EXPECT_EQ(sp.staleReads, 0u); // a load waits for the block's write, and nothing writes it again
    }
}

TEST(SharedPrefix, ALazyReplicaLoadedBeforeTheUpdateReachesTheHomeIsAStaleRead)
{
    // lazy-causal with the home on d0: prefill's writes are performed at p0 at once and their Updates take 1 us to
    // reach the home, while decode0's loads reach it at once (same node) and are answered with the older version.
    // Each of the three blocks is read one version behind by the acquire and again by the first decode step, which
    // starts before the Updates (8 KiB each over the 1 GB/s link) have reached d0; the later steps read them current.
    Scenario s = sharedScenario("lazy-causal", true);
    s.coherence.home = HomePolicy::Node;
    s.coherence.homeNode = "d0";
    const RunResult r = runScenario(s, samePrefix(1, 0));
    ASSERT_EQ(r.summary.completed, 1u);
    EXPECT_EQ(r.summary.sharedPrefix.staleReads, 6u);
    EXPECT_EQ(r.summary.sharedPrefix.readMisses, 0u);
}

TEST(SharedPrefix, WithoutHashIdsNothingIsSharedAndNothingChanges)
{
    const Workload w = poissonWorkload(20, 50, 100, 8, 3);
    const RunResult plain = runScenario(sharedScenario("mesi-directory", false), w);
    const RunResult shared = runScenario(sharedScenario("mesi-directory", true), w);
    EXPECT_EQ(shared.summary.sharedPrefix.blocks, 0u);
    EXPECT_DOUBLE_EQ(shared.summary.kvBytes, plain.summary.kvBytes);
    ASSERT_EQ(shared.requests.size(), plain.requests.size());
    for (std::size_t i = 0; i < plain.requests.size(); ++i)
        EXPECT_EQ(shared.requests[i].finish, plain.requests[i].finish) << i;
}

nlohmann::json withSharedPrefix(const nlohmann::json& shared, const std::string& decode = "msi-directory")
{
    DatasetsDirOverride env(fixtureDatasetsDir());
    nlohmann::json root = readFixtureJson("minimal.json");
    root["serving"]["shared_prefix"] = shared;
    root["coherence"] = {{"decode", decode}};
    return root;
}

TEST(SharedPrefix, TheSectionIsReadAndEachBadFieldNamesItsFix)
{
    DatasetsDirOverride env(fixtureDatasetsDir());
    const Scenario s = parseScenario(withSharedPrefix({{"block_tokens", 256}, {"capacity", "2 GB"}}), "mem.json");
    EXPECT_TRUE(s.serving.sharedPrefix.enabled);
    EXPECT_EQ(s.serving.sharedPrefix.blockTokens, 256u);
    EXPECT_DOUBLE_EQ(*s.serving.sharedPrefix.capacityBytes, 2e9);
    const Scenario defaults = parseScenario(withSharedPrefix(nlohmann::json::object()), "mem.json");
    EXPECT_EQ(defaults.serving.sharedPrefix.blockTokens, 512u);
    EXPECT_FALSE(defaults.serving.sharedPrefix.capacityBytes.has_value());

    const auto direct = problemAt(withSharedPrefix(nlohmann::json::object(), "direct"), "/serving/shared_prefix");
    EXPECT_NE(direct.fix.find("/coherence/decode"), std::string::npos) << direct.fix;
    // 100 tokens is not a whole number of the fixture's 32-token KV blocks.
    problemAt(withSharedPrefix({{"block_tokens", 100}}), "/serving/shared_prefix/block_tokens");
    problemAt(withSharedPrefix({{"capacity", "lots"}}), "/serving/shared_prefix/capacity");
    // "0 B" (or 0) keeps no idle block, as the format says; below zero is refused.
    for (const nlohmann::json& zero : {nlohmann::json("0 B"), nlohmann::json(0)}) {
        const Scenario none = parseScenario(withSharedPrefix({{"capacity", zero}}), "mem.json");
        ASSERT_TRUE(none.serving.sharedPrefix.capacityBytes.has_value());
        EXPECT_EQ(*none.serving.sharedPrefix.capacityBytes, 0.0);
    }
    problemAt(withSharedPrefix({{"capacity", "-1 GB"}}), "/serving/shared_prefix/capacity");
    problemAt(withSharedPrefix({{"blocks", 4}}), "/serving/shared_prefix/blocks");
    problemAt(withSharedPrefix(true), "/serving/shared_prefix");
    // Seventeen instances (nine prefill on gpu0, eight decode on gpu1) are one cache too many for a protocol.
    nlohmann::json many = withSharedPrefix(nlohmann::json::object());
    many["serving"]["instances"] = nlohmann::json::array();
    for (int i = 0; i < 17; ++i)
        many["serving"]["instances"].push_back(
            {{"role", i < 9 ? "prefill" : "decode"}, {"nodes", {i < 9 ? "gpu0" : "gpu1"}}});
    const auto crowded = problemAt(many, "/serving/shared_prefix");
    EXPECT_NE(crowded.message.find("17 instances"), std::string::npos) << crowded.message;
    many["serving"]["instances"].erase(many["serving"]["instances"].begin());
    EXPECT_NO_THROW(parseScenario(many, "mem.json"));
    nlohmann::json failing = withSharedPrefix(nlohmann::json::object());
    failing["failures"] = {{"events", {{{"node", "gpu1"}, {"at", "1 s"}}}}};
    const auto failures = problemAt(failing, "/serving/shared_prefix");
    EXPECT_NE(failures.message.find("not modelled"), std::string::npos) << failures.message;
}

} // namespace
} // namespace coh::test
