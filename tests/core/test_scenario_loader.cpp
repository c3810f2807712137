// The loader on valid input: every value lands where it should, defaults are filled, paths are resolved.
#include "core/scenario/scenario_loader.h"

#include "tests/core/scenario_test_util.h"

#include "cli_runner.h"

#include <gtest/gtest.h>

#include <sys/wait.h>

#include <cstdio>
#include <filesystem>

using namespace coh::core;
using namespace coh::test;
using nlohmann::json;
namespace fs = std::filesystem;

TEST(ScenarioLoader, ReadsEveryValueOfTheMinimalScenario)
{
    const std::string path = scenarioFixture("minimal.json");
    Scenario s = loadScenarioFile(path);
    EXPECT_EQ(s.name, "minimal");
    EXPECT_EQ(s.seed, 7u);
    EXPECT_EQ(s.sourcePath, path);
    EXPECT_EQ(s.json, readFixtureJson("minimal.json").dump(2));

    ASSERT_EQ(s.topology.nodes.size(), 3u);
    const Node& gpu0 = s.topology.nodes[0];
    EXPECT_EQ(gpu0.id, "gpu0");
    EXPECT_EQ(gpu0.kind, NodeKind::Gpu);
    EXPECT_EQ(gpu0.role, NodeRole::Prefill);
    EXPECT_DOUBLE_EQ(gpu0.compute.peakFlops, 9.89e14);
    EXPECT_DOUBLE_EQ(gpu0.compute.memoryBandwidthBytesPerSec, 3.35e12); // from the hbm tier
    ASSERT_EQ(gpu0.memory.size(), 2u);
    EXPECT_DOUBLE_EQ(gpu0.tier(Tier::Hbm)->capacityBytes, 80e9);
    EXPECT_DOUBLE_EQ(gpu0.tier(Tier::Dram)->capacityBytes, 64.0 * (1ull << 30));
    EXPECT_DOUBLE_EQ(gpu0.tier(Tier::Dram)->bandwidthBytesPerSec, 100e9);
    EXPECT_DOUBLE_EQ(gpu0.x, 120);
    EXPECT_DOUBLE_EQ(gpu0.y, 40);
    EXPECT_EQ(gpu0.source, "H100-like");
    const Node& gpu1 = s.topology.nodes[1];
    EXPECT_EQ(gpu1.role, NodeRole::Decode);
    EXPECT_DOUBLE_EQ(gpu1.compute.peakFlops, 312e12);
    EXPECT_DOUBLE_EQ(gpu1.compute.memoryBandwidthBytesPerSec, 2e12); // given explicitly
    EXPECT_DOUBLE_EQ(gpu1.tier(Tier::Hbm)->capacityBytes, 80e9);
    EXPECT_EQ(s.topology.nodes[2].kind, NodeKind::Switch);
    EXPECT_EQ(s.topology.nodes[2].role, NodeRole::None);
    EXPECT_FALSE(s.topology.nodes[2].canCompute());

    ASSERT_EQ(s.topology.links.size(), 2u);
    const Link& nv = s.topology.links[0];
    EXPECT_EQ(nv.id, "gpu0-sw0"); // default id
    EXPECT_EQ(nv.kind, LinkKind::Nvlink);
    EXPECT_EQ(nv.latency, 1500);
    EXPECT_DOUBLE_EQ(nv.bandwidthBytesPerSec, 50e9);
    EXPECT_EQ(s.topology.links[1].id, "gpu1-link");
    EXPECT_EQ(s.topology.links[1].latency, 700); // plain number: nanoseconds
    EXPECT_DOUBLE_EQ(s.topology.links[1].bandwidthBytesPerSec, 64e9);

    EXPECT_EQ(s.model.name, "tiny-8b");
    EXPECT_EQ(s.model.kvBytesPerToken(), 131072u);
    EXPECT_EQ(s.model.dtypeBytes, 2u);
    EXPECT_DOUBLE_EQ(s.model.activeParams, 8e9);

    ASSERT_EQ(s.workload.kind, WorkloadKind::Synthetic);
    const SyntheticWorkload& w = s.workload.synthetic;
    EXPECT_EQ(w.requests, 50u);
    EXPECT_EQ(w.arrival, ArrivalProcess::Gamma);
    EXPECT_DOUBLE_EQ(w.ratePerSec, 4.0);
    EXPECT_DOUBLE_EQ(w.cv, 2.5);
    EXPECT_EQ(w.prompt.kind, LengthKind::Lognormal);
    EXPECT_DOUBLE_EQ(w.prompt.median, 1024);
    EXPECT_DOUBLE_EQ(w.prompt.sigma, 0.8);
    EXPECT_EQ(w.prompt.min, 1u);
    EXPECT_EQ(w.prompt.max, 8192u);
    EXPECT_EQ(w.output.kind, LengthKind::Uniform);
    EXPECT_EQ(w.output.min, 64u);
    EXPECT_EQ(w.output.max, 512u);

    EXPECT_EQ(s.serving.blockTokens, 32u);
    EXPECT_EQ(s.serving.prefillMaxBatchTokens, 4096u);
    EXPECT_EQ(s.serving.prefillMaxBatchSize, 16u);
    EXPECT_EQ(s.serving.decodeMaxBatchSize, 128u);
    EXPECT_EQ(s.serving.iterationOverhead, 250 * kMicrosecond);
    EXPECT_DOUBLE_EQ(s.serving.flopsEfficiency, 0.6);
    EXPECT_EQ(s.slo.ttft, 1500 * kMillisecond);
    EXPECT_EQ(s.slo.tpot, 100 * kMillisecond);
    EXPECT_EQ(s.record.maxMessages, 100000u);
    EXPECT_EQ(s.metrics.linkInterval, kSecond);
}

TEST(ScenarioLoader, DerivesOneInstancePerServingNode)
{
    Scenario s = loadScenarioFile(scenarioFixture("minimal.json"));
    ASSERT_EQ(s.serving.instances.size(), 2u);
    const InstanceSpec& p = s.serving.instances[0];
    EXPECT_EQ(p.id, "prefill-gpu0");
    EXPECT_EQ(p.role, InstanceRole::Prefill);
    EXPECT_EQ(p.nodes, std::vector<std::string>{"gpu0"});
    EXPECT_EQ(p.maxBatchSize, 16u);
    EXPECT_EQ(p.maxBatchTokens, 4096u);
    const InstanceSpec& d = s.serving.instances[1];
    EXPECT_EQ(d.id, "decode-gpu1");
    EXPECT_EQ(d.role, InstanceRole::Decode);
    EXPECT_EQ(d.maxBatchSize, 128u);
    EXPECT_EQ(d.maxBatchTokens, 0u);
}

TEST(ScenarioLoader, ExplicitInstancesFormTensorParallelGroups)
{
    json j = readFixtureJson("minimal.json");
    j["topology"]["nodes"].push_back(j["topology"]["nodes"][0]);
    j["topology"]["nodes"][3]["id"] = "gpu2";
    j["topology"]["nodes"][3].erase("role");
    j["topology"]["links"].push_back(
        {{"a", "gpu2"}, {"b", "sw0"}, {"kind", "nvlink"}, {"latency", 0}, {"bandwidth", "450 GB/s"}});
    j["serving"]["instances"] = json::array({
        {{"role", "prefill"}, {"nodes", {"gpu0", "gpu2"}}, {"max_batch_size", 8}},
        {{"id", "dec"}, {"role", "decode"}, {"nodes", {"gpu1"}}},
    });
    Scenario s = parseScenario(j, "mem.json");
    ASSERT_EQ(s.serving.instances.size(), 2u);
    EXPECT_EQ(s.serving.instances[0].id, "prefill0");
    EXPECT_EQ(s.serving.instances[0].nodes, (std::vector<std::string>{"gpu0", "gpu2"}));
    EXPECT_EQ(s.serving.instances[0].maxBatchSize, 8u);
    EXPECT_EQ(s.serving.instances[0].maxBatchTokens, 4096u);
    EXPECT_EQ(s.serving.instances[1].id, "dec");
    EXPECT_EQ(s.serving.instances[1].maxBatchSize, 128u);
    EXPECT_EQ(s.topology.links[2].latency, 0); // a latency may be zero
}

TEST(ScenarioLoader, RoleBothGivesOneInstanceOfEachAndCatalogNamesIgnoreCase)
{
    DatasetsDirOverride env(fixtureDatasetsDir());
    Scenario s = loadScenarioFile(scenarioFixture("trace_workload.json"));
    EXPECT_EQ(s.model.name, "Llama-3-8B");
    EXPECT_EQ(s.model.source, "fixture"); // from the catalog COH_DATASETS_DIR points at
    ASSERT_EQ(s.serving.instances.size(), 2u);
    EXPECT_EQ(s.serving.instances[0].id, "prefill-gpu0");
    EXPECT_EQ(s.serving.instances[1].id, "decode-gpu0");
    EXPECT_DOUBLE_EQ(s.topology.nodes[0].compute.peakFlops, 9.89e14);
}

TEST(ScenarioLoader, TracePathPrefersTheScenarioFolder)
{
    DatasetsDirOverride env(fixtureDatasetsDir());
    Scenario s = loadScenarioFile(scenarioFixture("trace_workload.json"));
    ASSERT_EQ(s.workload.kind, WorkloadKind::Trace);
    const TraceWorkload& t = s.workload.trace;
    EXPECT_EQ(t.format, TraceFormat::Azure);
    EXPECT_EQ(t.path, "traces/tiny.csv");
    // traces/tiny.csv exists in both folders: the one next to the scenario wins.
    EXPECT_EQ(fs::path(t.resolvedPath), fs::absolute(scenarioFixture("traces/tiny.csv")).lexically_normal());
    EXPECT_TRUE(fs::path(t.resolvedPath).is_absolute());
    EXPECT_DOUBLE_EQ(t.timeScale, 0.5);
    EXPECT_EQ(t.maxRequests, 2u);
}

TEST(ScenarioLoader, TracePathFallsBackToTheDatasetsFolder)
{
    DatasetsDirOverride env(fixtureDatasetsDir());
    json j = readFixtureJson("trace_workload.json");
    j["workload"]["path"] = "traces/only_in_datasets.csv";
    Scenario s = parseScenario(j, scenarioFixture("trace_workload.json"));
    EXPECT_EQ(fs::path(s.workload.trace.resolvedPath),
              fs::absolute(fixtureDatasetsDir() + "/traces/only_in_datasets.csv").lexically_normal());

    const std::string absolute = fs::absolute(scenarioFixture("traces/tiny.csv")).lexically_normal().string();
    j["workload"]["path"] = absolute;
    s = parseScenario(j, "/nowhere/s.json");
    EXPECT_EQ(s.workload.trace.resolvedPath, absolute);
}

TEST(ScenarioLoader, CanonicalJsonIgnoresKeyOrderAndSpacing)
{
    json a = json::parse(R"({"b": 1, "a": {"y": 2, "x": 3}})");
    json b = json::parse(R"({ "a": { "x": 3, "y": 2 },
                              "b": 1 })");
    EXPECT_EQ(a.dump(2), b.dump(2));
    json j = readFixtureJson("minimal.json");
    Scenario s1 = parseScenario(j, "x.json");
    Scenario s2 = parseScenario(json::parse(j.dump()), "x.json");
    EXPECT_EQ(s1.json, s2.json);
    EXPECT_EQ(json::parse(s1.json), j);
}

namespace {

// Runs cohsim with `args`; returns its exit code and (stdout + stderr).
std::pair<int, std::string> runCohsimMerged(const std::string& args)
{
    CliResult r = runCohsim(args, Stderr::Merge);
    return {r.exitCode, std::move(r.output)};
}

} // namespace

TEST(ScenarioLoader, CliValidateSummarisesOrListsProblems)
{
    const std::string good = scenarioFixture("minimal.json");
    auto [code, out] = runCohsimMerged("validate " + good);
    EXPECT_EQ(code, 0) << out;
    EXPECT_NE(out.find(good + ": ok (3 nodes, 2 links, model tiny-8b, 1 prefill / 1 decode instances, 50 requests)"),
              std::string::npos)
        << out;

    const std::string bad = scenarioFixture("malformed.json");
    std::tie(code, out) = runCohsimMerged("validate " + good + " " + bad);
    EXPECT_EQ(code, 2) << out;
    EXPECT_NE(out.find(good + ": ok"), std::string::npos) << out; // every file is checked
    EXPECT_NE(out.find(bad + ": 1 problem"), std::string::npos) << out;
    EXPECT_NE(out.find("line 4"), std::string::npos) << out;
    EXPECT_NE(out.find("fix: "), std::string::npos) << out;
}
