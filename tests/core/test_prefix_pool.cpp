// The shared prefix pool: LRU contents by hash id, prefill loading the cached leading blocks from the pool's
// node instead of computing them, storing the rest, and the scenario checks that name the field and fix.
#include "core/serving/prefix_pool.h"
#include "core/serving/serving_engine.h"
#include "engine_fixtures.h"
#include "scenario_test_util.h"

#include <gtest/gtest.h>

#include <array>

namespace coh::test {
namespace {

TEST(PrefixPool, HitsStopAtTheFirstMissingBlockAndTheLeastRecentlyUsedGoesFirst)
{
    core::PrefixPool pool(3);
    for (std::uint32_t h : {1u, 2u, 3u})
        pool.store(h);
    const std::array<std::uint32_t, 4> prompt = {1, 2, 9, 3};
    EXPECT_EQ(pool.leadingHits(prompt), 2u); // 3 is held but follows a miss: its KV depends on block 9
    pool.store(4);                           // full: evicts 3, the least recently used (1 and 2 were just hit)
    EXPECT_FALSE(pool.contains(3));
    EXPECT_TRUE(pool.contains(1) && pool.contains(2) && pool.contains(4));
    EXPECT_EQ(pool.evictions(), 1u);
    pool.store(2); // present: refreshed, nothing evicted
    EXPECT_EQ(pool.evictions(), 1u);
    EXPECT_EQ(pool.size(), 3u);
    core::PrefixPool none(0);
    none.store(1);
    EXPECT_EQ(none.size(), 0u);
}

// p0 (prefill) - d0 (decode), and the pool's node behind p0 on a 1 us, 1 GB/s link. Pool blocks of 16 tokens;
// the tiny model's KV is 256 B per token.
Scenario poolScenario(const std::string& poolNode)
{
    Scenario s = twoGpuScenario();
    Node host;
    host.id = "mem0";
    host.kind = NodeKind::CpuSocket;
    host.memory = {{Tier::Dram, 1e12, 1e11}};
    s.topology.nodes.push_back(host);
    s.topology.links.push_back(link("p0", "mem0", kMicrosecond, 1e9));
    s.serving.prefixPool.enabled = true;
    s.serving.prefixPool.node = poolNode;
    s.serving.prefixPool.tier = Tier::Dram;
    s.serving.prefixPool.capacityBytes = 1e9;
    s.serving.prefixPool.blockTokens = 16;
    return s;
}

// A: 64 tokens, blocks 1 2 3 4. B: 64 tokens, blocks 1 2 9 10, arriving at `second`.
Workload sharedPrefix(SimTime second)
{
    Workload w;
    w.prefixHashes = {1, 2, 3, 4, 1, 2, 9, 10};
    w.requests.push_back({0, 64, 2, 0, 4});
    w.requests.push_back({second, 64, 2, 4, 4});
    return w;
}

TEST(PrefixPoolRun, ALaterPromptLoadsItsSharedLeadingBlocksInsteadOfComputingThem)
{
    const Workload w = sharedPrefix(kSecond);
    const RunResult remote = runScenario(poolScenario("mem0"), w);
    ASSERT_EQ(remote.requests.size(), 2u);
    EXPECT_EQ(remote.requests[0].cachedTokens, 0u);
    EXPECT_EQ(remote.requests[1].cachedTokens, 32u); // blocks 1 and 2
    const PrefixPoolSummary& p = remote.summary.prefixPool;
    EXPECT_TRUE(p.enabled);
    EXPECT_EQ(p.promptTokens, 128u);
    EXPECT_EQ(p.hitTokens, 32u);
    EXPECT_DOUBLE_EQ(p.loadBytes, 32 * 256.0);
    EXPECT_DOUBLE_EQ(p.storeBytes, 64 * 256.0 + 32 * 256.0); // A's four blocks, then B's two new ones
    EXPECT_EQ(p.blocksHeld, 6u);
    // The same run with the pool in p0's own memory: the load costs nothing, so B's prefill is shorter by
    // exactly the load over the link: 1 us + 8,192 B / 1 GB/s.
    const RunResult local = runScenario(poolScenario("p0"), w);
    EXPECT_EQ(remote.requests[1].prefill() - local.requests[1].prefill(), 1'000 + 8'192);
    // And B computes half its prompt: shorter than A, which computed all of it.
    EXPECT_LT(local.requests[1].prefill(), local.requests[0].prefill());
}

TEST(PrefixPoolRun, BlocksCountAsCachedOnlyOnceTheirStoreHasArrived)
{
    const RunResult first = runScenario(poolScenario("mem0"), sharedPrefix(kSecond));
    // B arrives 1 ns after A's prefill ends: A's store (16,384 B on the 1 GB/s link) is still on its way.
    const RunResult early = runScenario(poolScenario("mem0"), sharedPrefix(first.requests[0].prefillEnd + 1));
    EXPECT_EQ(early.requests[1].cachedTokens, 0u);
    EXPECT_EQ(early.summary.prefixPool.hitTokens, 0u);
}

std::uint64_t countOf(const RunSummary& s, const std::string& kind)
{
    for (const auto& k : s.messagesByKind)
        if (k.name == kind)
            return k.count;
    ADD_FAILURE() << "no message kind " << kind;
    return 0;
}

TEST(PrefixPoolRun, UnderMsiEveryStoreIsAWritebackHomeAndEveryLoadAGetS)
{
    Scenario s = poolScenario("mem0");
    s.coherence.tiers[Tier::Dram] = "msi-directory";
    const RunResult msi = runScenario(s, sharedPrefix(kSecond));
    ASSERT_EQ(msi.requests.size(), 2u);
    EXPECT_EQ(msi.requests[1].cachedTokens, 32u);
    // A stores blocks 1-4 and B blocks 9 and 10: each a GetM (the data comes from the pool's memory), then the
    // instance writes it home (PutM, Put-Ack). B loads blocks 1 and 2: GetS and Data, then drops its copy
    // (PutS, Put-Ack).
    EXPECT_EQ(countOf(msi.summary, "pool GetM"), 6u);
    EXPECT_EQ(countOf(msi.summary, "pool PutM"), 6u);
    EXPECT_EQ(countOf(msi.summary, "pool GetS"), 2u);
    EXPECT_EQ(countOf(msi.summary, "pool PutS"), 2u);
    EXPECT_EQ(countOf(msi.summary, "pool Data"), 8u);
    EXPECT_EQ(countOf(msi.summary, "pool Put-Ack"), 8u);
    EXPECT_EQ(countOf(msi.summary, "Prefix-Load"), 0u); // no plain copies
    // Against the plain copy, B's load first sends two GetS (64 B each, sharing the 1 GB/s link) across the
    // 1 us hop; the two blocks' data (2 x 4,096 B) then take as long as the plain copy of both.
    const RunResult plain = runScenario(poolScenario("mem0"), sharedPrefix(kSecond));
    EXPECT_EQ(msi.requests[1].prefill() - plain.requests[1].prefill(), 1'000 + 128);
}

TEST(PrefixPoolRun, ThePrefillProtocolGovernsThePoolWhenItsTierNamesNone)
{
    Scenario viaTier = poolScenario("mem0");
    viaTier.coherence.tiers[Tier::Dram] = "msi-directory";
    Scenario viaPrefill = poolScenario("mem0");
    viaPrefill.coherence.prefill = "msi-directory";
    const RunResult a = runScenario(viaTier, sharedPrefix(kSecond));
    const RunResult b = runScenario(viaPrefill, sharedPrefix(kSecond));
    EXPECT_EQ(countOf(b.summary, "pool GetS"), 2u);
    EXPECT_EQ(b.summary.flows, a.summary.flows);
    EXPECT_EQ(b.requests[1].prefill(), a.requests[1].prefill());
}

// Two prefill instances (p0, p1) in front of one pool: the tier protocol's two caches.
Scenario twoPrefillPool()
{
    Scenario s = poolScenario("mem0");
    s.topology.nodes.push_back(servingNode("p1", NodeRole::Prefill));
    s.topology.links.push_back(link("p1", "d0", kMicrosecond, 1e9));
    s.topology.links.push_back(link("p1", "mem0", kMicrosecond, 1e9));
    s.serving.instances.push_back({"prefill1", InstanceRole::Prefill, {"p1"}, 0, 0});
    s.serving.router.policy = RouterPolicy::RoundRobin;
    return s;
}

// Requests sharing a 3-block system prompt, then one block of their own; arrivals 2 ms apart.
Workload systemPrompt(std::uint32_t count)
{
    Workload w;
    for (std::uint32_t i = 0; i < count; ++i) {
        const auto offset = static_cast<std::uint32_t>(w.prefixHashes.size());
        for (std::uint32_t h : {1u, 2u, 3u, 100u + i % 7})
            w.prefixHashes.push_back(h);
        w.requests.push_back({static_cast<SimTime>(i) * 2 * kMillisecond, 64, 4, offset, 4});
    }
    return w;
}

TEST(PrefixPoolRun, EveryTierProtocolKeepsItsInvariantsWithTwoInstancesSharingBlocks)
{
    const Workload w = systemPrompt(60);
    for (const char* protocol : {"msi-directory", "mesi-directory", "moesi-directory", "migratory", "mesi-snooping",
                                 "cxl-asymmetric", "sealed-lease", "lazy-causal", "unified-memory"}) {
        SCOPED_TRACE(protocol);
        Scenario s = twoPrefillPool();
        s.coherence.tiers[Tier::Dram] = protocol;
        const RunResult r = runScenario(s, w); // a violation or a deadlock throws
        EXPECT_EQ(r.summary.completed, 60u);
        // After the first prompt's blocks are home, every later prompt loads the 3 shared blocks (and its own
        // when a request with the same suffix came before).
        EXPECT_GE(r.summary.prefixPool.hitTokens, 59u * 48u);
    }
}

TEST(PrefixPoolScenario, ATierProtocolNeedsThePoolInThatTier)
{
    DatasetsDirOverride env(fixtureDatasetsDir());
    nlohmann::json root = readFixtureJson("minimal.json");
    root["coherence"] = {{"tiers", {{"dram", "sealed-lease"}}}};
    const auto none = problemAt(root, "/coherence/tiers/dram");
    EXPECT_NE(none.message.find("no KV lives in the dram tier"), std::string::npos) << none.message;
    EXPECT_NE(none.fix.find("prefix_pool"), std::string::npos) << none.fix;
    root["coherence"] = {{"tiers", {{"hbm", "msi-directory"}, {"dramm", "msi-directory"}, {"cxl", "msi-drectory"}}}};
    const auto problems = problemsOf(root);
    EXPECT_NE(problemAt(problems, "/coherence/tiers/hbm").message.find("decode"), std::string::npos);
    EXPECT_NE(problemAt(problems, "/coherence/tiers/dramm").message.find("unknown memory tier"), std::string::npos);
    EXPECT_NE(problemAt(problems, "/coherence/tiers/cxl").message.find("did you mean 'msi-directory'"),
              std::string::npos);
    root["coherence"] = {{"tiers", {{"dram", "sealed-lease"}}}};
    root["serving"]["prefix_pool"] = {{"node", "gpu0"}, {"tier", "dram"}};
    const core::Scenario s = core::parseScenario(root, "mem.json");
    EXPECT_EQ(s.coherence.tiers.at(Tier::Dram), "sealed-lease");
}

TEST(PrefixPoolScenario, ThePoolMustBeAMemoryTierOfAReachableNode)
{
    DatasetsDirOverride env(fixtureDatasetsDir());
    nlohmann::json root = readFixtureJson("minimal.json");
    root["serving"]["prefix_pool"] = {{"node", "gpu9"}};
    EXPECT_NE(problemAt(root, "/serving/prefix_pool/node").message.find("unknown node 'gpu9'"), std::string::npos);
    root["serving"]["prefix_pool"] = {{"node", "gpu1"}, {"tier", "dram"}};
    const auto tier = problemAt(root, "/serving/prefix_pool/tier");
    EXPECT_NE(tier.message.find("has no dram memory (it has: hbm)"), std::string::npos) << tier.message;
    root["serving"]["prefix_pool"] = {{"node", "gpu0"}, {"tier", "dram"}, {"capacity", "1 TB"}};
    EXPECT_NE(problemAt(root, "/serving/prefix_pool/capacity").message.find("larger than"), std::string::npos);
    root["serving"]["prefix_pool"] = {{"node", "gpu0"}, {"tier", "dram"}};
    const core::Scenario s = core::parseScenario(root, "mem.json");
    EXPECT_TRUE(s.serving.prefixPool.enabled);
    EXPECT_DOUBLE_EQ(s.serving.prefixPool.capacityBytes, 64.0 * (1ull << 30)); // the whole tier
}

} // namespace
} // namespace coh::test
