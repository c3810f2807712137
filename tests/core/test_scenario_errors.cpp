// The loader on bad input: each mistake is reported at its JSON pointer, with the file and a fix, and all
// of a file's mistakes come back together.
#include "core/scenario/scenario_loader.h"

#include "tests/core/scenario_test_util.h"

#include <gtest/gtest.h>

using namespace coh::core;
using namespace coh::test;
using nlohmann::json;

namespace {

json base()
{
    return readFixtureJson("minimal.json");
}

bool contains(const std::string& text, const std::string& part)
{
    return text.find(part) != std::string::npos;
}

} // namespace

TEST(ScenarioErrors, BaseFixtureIsValid)
{
    EXPECT_NO_THROW(parseScenario(base(), "mem.json"));
}

TEST(ScenarioErrors, MalformedJsonNamesLineAndColumn)
{
    const std::string path = scenarioFixture("malformed.json");
    try {
        loadScenarioFile(path);
        FAIL() << "malformed JSON was accepted";
    } catch (const InputError& e) {
        ASSERT_EQ(e.problems().size(), 1u);
        const InputProblem& p = e.problems()[0];
        EXPECT_EQ(p.file, path);
        EXPECT_TRUE(contains(p.message, "malformed JSON at line 4, column")) << p.message;
        EXPECT_TRUE(contains(p.fix, "missing comma")) << p.fix;
        EXPECT_TRUE(contains(e.what(), path));
    }
}

TEST(ScenarioErrors, MissingFileIsAClearError)
{
    try {
        loadScenarioFile("/no/such/scenario.json");
        FAIL() << "a missing file was accepted";
    } catch (const InputError& e) {
        ASSERT_EQ(e.problems().size(), 1u);
        EXPECT_EQ(e.problems()[0].file, "/no/such/scenario.json");
        EXPECT_EQ(e.problems()[0].message, "file not found");
        EXPECT_FALSE(e.problems()[0].fix.empty());
    }
}

TEST(ScenarioErrors, EmptyFile)
{
    try {
        loadScenarioFile(scenarioFixture("empty.json"));
        FAIL() << "an empty file was accepted";
    } catch (const InputError& e) {
        ASSERT_EQ(e.problems().size(), 1u);
        EXPECT_EQ(e.problems()[0].message, "the file is empty");
        EXPECT_FALSE(e.problems()[0].fix.empty());
    }
}

TEST(ScenarioErrors, UnusableCatalogNamesItsPath)
{
    DatasetsDirOverride env("/nonexistent-datasets");
    json j = base();
    j["model"] = "Llama-3-8B";
    auto p = problemAt(j, "/model");
    EXPECT_TRUE(contains(p.message, "/nonexistent-datasets/models/catalog.json is unusable: file not found"))
        << p.message;
    EXPECT_TRUE(contains(p.fix, "COH_DATASETS_DIR")) << p.fix;
}

TEST(ScenarioErrors, UnknownNodeInLinkListsKnownNodes)
{
    json j = base();
    j["topology"]["links"][1]["a"] = "gpu9";
    auto p = problemAt(j, "/topology/links/1/a");
    EXPECT_TRUE(contains(p.message, "unknown node 'gpu9' in link")) << p.message;
    EXPECT_TRUE(contains(p.message, "known nodes: gpu0, gpu1, sw0")) << p.message;
    EXPECT_TRUE(contains(p.fix, "\"id\": \"gpu9\"")) << p.fix;

    j["topology"]["links"][1]["a"] = "gpu01";
    EXPECT_TRUE(contains(problemAt(j, "/topology/links/1/a").message, "did you mean 'gpu0'?"));
}

TEST(ScenarioErrors, NegativeOrZeroBandwidth)
{
    json j = base();
    j["topology"]["links"][0]["bandwidth"] = "-64 GB/s";
    auto p = problemAt(j, "/topology/links/0/bandwidth");
    EXPECT_TRUE(contains(p.message, "must be positive")) << p.message;
    EXPECT_TRUE(contains(p.fix, "\"64 GB/s\"")) << p.fix;

    j["topology"]["links"][0]["bandwidth"] = 0;
    EXPECT_TRUE(contains(problemAt(j, "/topology/links/0/bandwidth").message, "must be positive"));
}

TEST(ScenarioErrors, ZeroCapacity)
{
    json j = base();
    j["topology"]["nodes"][0]["memory"][1]["capacity"] = "0 GB";
    auto p = problemAt(j, "/topology/nodes/0/memory/1/capacity");
    EXPECT_TRUE(contains(p.message, "must be positive")) << p.message;
    EXPECT_TRUE(contains(p.fix, "GB")) << p.fix;
}

TEST(ScenarioErrors, BadUnitsSayWhatIsWrong)
{
    json j = base();
    j["topology"]["nodes"][0]["memory"][0]["capacity"] = "80 Gb";
    j["topology"]["links"][0]["latency"] = "1.5 parsecs";
    j["topology"]["nodes"][1]["compute"]["peak_flops"] = true;
    auto problems = problemsOf(j);
    EXPECT_TRUE(contains(problemAt(problems, "/topology/nodes/0/memory/0/capacity").message, "bits"));
    EXPECT_TRUE(contains(problemAt(problems, "/topology/links/0/latency").message, "unknown time unit"));
    EXPECT_TRUE(contains(problemAt(problems, "/topology/nodes/1/compute/peak_flops").message, "not a boolean"));
}

TEST(ScenarioErrors, UnknownKeysAreErrorsWithASuggestion)
{
    json j = base();
    j["topology"]["links"][0]["bandwith"] = j["topology"]["links"][0]["bandwidth"];
    j["topology"]["links"][0].erase("bandwidth");
    j["colour"] = "blue";
    auto problems = problemsOf(j);
    auto typo = problemAt(problems, "/topology/links/0/bandwith");
    EXPECT_EQ(typo.message, "unknown key 'bandwith'; did you mean 'bandwidth'?");
    EXPECT_EQ(typo.fix, "rename it to \"bandwidth\"");
    problemAt(problems, "/topology/links/0/bandwidth"); // now missing, reported too
    auto stray = problemAt(problems, "/colour");
    EXPECT_EQ(stray.message, "unknown key 'colour'");
    EXPECT_TRUE(contains(stray.fix, "topology")) << stray.fix; // lists the keys allowed there
}

TEST(ScenarioErrors, UnknownEnumValueSuggestsTheNearestName)
{
    json j = base();
    j["topology"]["nodes"][2]["kind"] = "swich";
    auto p = problemAt(j, "/topology/nodes/2/kind");
    EXPECT_EQ(p.message, "unknown kind 'swich'; did you mean 'switch'?");
    EXPECT_TRUE(contains(p.fix, "cpu_socket, gpu, accelerator, cxl_memory, switch, storage")) << p.fix;
}

TEST(ScenarioErrors, UnknownModelListsTheCatalog)
{
    DatasetsDirOverride env(fixtureDatasetsDir());
    json j = base();
    j["model"] = "Llama-3-9B";
    auto p = problemAt(j, "/model");
    EXPECT_TRUE(contains(p.message, "unknown model 'Llama-3-9B'; did you mean 'Llama-3-8B'?")) << p.message;
    EXPECT_TRUE(contains(p.message, "Llama-3-8B, Tiny-MoE, Plain-1B")) << p.message;
    EXPECT_TRUE(contains(p.fix, "cohsim models")) << p.fix;
}

TEST(ScenarioErrors, MissingTraceFileNamesThePathsTried)
{
    DatasetsDirOverride env(fixtureDatasetsDir());
    json j = readFixtureJson("trace_workload.json");
    j["workload"]["path"] = "traces/missing.csv";
    auto p = problemAt(problemsOf(j, scenarioFixture("trace_workload.json")), "/workload/path");
    EXPECT_TRUE(contains(p.message, "trace file 'traces/missing.csv' not found")) << p.message;
    EXPECT_TRUE(contains(p.message, "scenarios/traces/missing.csv")) << p.message;
    EXPECT_TRUE(contains(p.message, "scenarios/datasets/traces/missing.csv")) << p.message;
    EXPECT_TRUE(contains(p.fix, "COH_DATASETS_DIR")) << p.fix;
}

TEST(ScenarioErrors, ServingRoleWithoutCompute)
{
    json j = base();
    j["topology"]["nodes"][0].erase("compute");
    auto p = problemAt(j, "/topology/nodes/0/compute");
    EXPECT_EQ(p.message, "node 'gpu0' has role 'prefill' but no compute");
    EXPECT_TRUE(contains(p.fix, "peak_flops")) << p.fix;
}

TEST(ScenarioErrors, ServingRoleWithoutHbm)
{
    json j = base();
    j["topology"]["nodes"][1]["memory"][0]["tier"] = "dram";
    auto p = problemAt(j, "/topology/nodes/1/memory");
    EXPECT_TRUE(contains(p.message, "no hbm tier")) << p.message;
}

TEST(ScenarioErrors, ModelTooLargeForDerivedInstance)
{
    json j = base();
    j["model"]["params"] = 70e9; // 140 GB of BF16 weights on an 80 GB GPU
    auto problems = problemsOf(j);
    auto p = problemAt(problems, "/topology/nodes/0");
    EXPECT_TRUE(contains(p.message, "instance 'prefill-gpu0' cannot hold model 'tiny-8b'")) << p.message;
    EXPECT_TRUE(contains(p.message, "weights 140 GB")) << p.message;
    EXPECT_TRUE(contains(p.message, "usable HBM 72 GB (80 GB HBM x kv_memory_fraction 0.9)")) << p.message;
    EXPECT_TRUE(contains(p.fix, "tensor-parallel group of at least 2 nodes")) << p.fix;
    EXPECT_TRUE(contains(p.fix, "smaller model")) << p.fix;
    problemAt(problems, "/topology/nodes/1"); // the decode GPU too
}

TEST(ScenarioErrors, ModelTooLargeForExplicitInstanceButFitsItsGroup)
{
    json j = base();
    j["model"]["params"] = 40e9; // 80 GB: too much for one GPU, fits two
    j["topology"]["nodes"].push_back(j["topology"]["nodes"][1]);
    j["topology"]["nodes"][3]["id"] = "gpu3";
    j["topology"]["links"].push_back(
        {{"a", "gpu3"}, {"b", "sw0"}, {"kind", "pcie"}, {"latency", "1 us"}, {"bandwidth", "64 GB/s"}});
    j["serving"]["instances"] = json::array({
        {{"role", "prefill"}, {"nodes", {"gpu0"}}},
        {{"role", "decode"}, {"nodes", {"gpu1", "gpu3"}}},
    });
    auto problems = problemsOf(j);
    ASSERT_EQ(problems.size(), 1u) << problems.front().toString();
    EXPECT_EQ(problems[0].field, "/serving/instances/0");
    EXPECT_TRUE(contains(problems[0].message, "instance 'prefill0'")) << problems[0].message;
}

TEST(ScenarioErrors, NoDecodeInstance)
{
    json j = base();
    j["topology"]["nodes"][1]["role"] = "prefill";
    auto p = problemAt(j, "/topology/nodes");
    EXPECT_EQ(p.message, "there is no decode instance: no node has role 'decode' or 'both'");
    EXPECT_TRUE(contains(p.fix, "\"role\": \"decode\"")) << p.fix;

    j["serving"]["instances"] = json::array({{{"role", "prefill"}, {"nodes", {"gpu0"}}}});
    EXPECT_EQ(problemAt(j, "/serving/instances").message, "there is no decode instance");
}

TEST(ScenarioErrors, DecodeUnreachableFromPrefill)
{
    json j = base();
    j["topology"]["links"].erase(1); // gpu1 loses its only link
    auto p = problemAt(j, "/topology/links");
    EXPECT_TRUE(contains(p.message, "prefill instance 'prefill-gpu0' (node 'gpu0') has no path to decode "
                                    "instance(s) decode-gpu1"))
        << p.message;
}

TEST(ScenarioErrors, ExplicitInstanceNodesMustExistAndServe)
{
    json j = base();
    j["serving"]["instances"] = json::array({
        {{"role", "prefill"}, {"nodes", {"gpu0", "gpu7"}}},
        {{"role", "decode"}, {"nodes", {"sw0"}}, {"max_batch_tokens", 10}},
    });
    auto problems = problemsOf(j);
    EXPECT_TRUE(contains(problemAt(problems, "/serving/instances/0/nodes/1").message, "unknown node 'gpu7'"));
    EXPECT_TRUE(contains(problemAt(problems, "/serving/instances/1/nodes/0").message, "node 'sw0' has no compute"));
    EXPECT_TRUE(contains(problemAt(problems, "/serving/instances/1/max_batch_tokens").message, "prefill"));
}

TEST(ScenarioErrors, RangesOfServingAndWorkloadValues)
{
    json j = base();
    j["serving"]["block_tokens"] = 0;
    j["serving"]["flops_efficiency"] = 1.5;
    j["serving"]["kv_memory_fraction"] = 0;
    j["workload"]["arrival"]["rate"] = 0;
    j["workload"]["output"]["min"] = 600;
    j["slo"]["tpot"] = "0 ms";
    j["seed"] = -1;
    auto problems = problemsOf(j);
    EXPECT_TRUE(contains(problemAt(problems, "/serving/block_tokens").message, "between 1 and"));
    EXPECT_TRUE(contains(problemAt(problems, "/serving/flops_efficiency").message, "(0, 1]"));
    problemAt(problems, "/serving/kv_memory_fraction");
    EXPECT_TRUE(contains(problemAt(problems, "/workload/arrival/rate").message, "must be positive"));
    EXPECT_TRUE(contains(problemAt(problems, "/workload/output/max").message, "below min"));
    EXPECT_TRUE(contains(problemAt(problems, "/slo/tpot").message, "must be positive"));
    problemAt(problems, "/seed");
}

TEST(ScenarioErrors, KeysOfTheOtherWorkloadTypeAreRejected)
{
    json j = base();
    j["workload"]["path"] = "x.csv";
    j["workload"]["arrival"]["cv"] = 2.0;
    j["workload"]["arrival"]["process"] = "poisson";
    j["workload"]["prompt"]["value"] = 5;
    auto problems = problemsOf(j);
    EXPECT_TRUE(contains(problemAt(problems, "/workload/path").message, "only used by \"type\": \"trace\""));
    EXPECT_TRUE(contains(problemAt(problems, "/workload/arrival/cv").message, "gamma"));
    EXPECT_TRUE(contains(problemAt(problems, "/workload/prompt/value").message, "lognormal"));
}

TEST(ScenarioErrors, DuplicateIdsAndSelfLinks)
{
    json j = base();
    j["topology"]["nodes"][2]["id"] = "gpu1";
    j["topology"]["links"][0]["b"] = "gpu0";
    auto problems = problemsOf(j);
    EXPECT_TRUE(contains(problemAt(problems, "/topology/nodes/2/id").message, "used twice"));
    EXPECT_TRUE(contains(problemAt(problems, "/topology/links/0/b").message, "to itself"));
}

TEST(ScenarioErrors, WrongTypesAndMissingSections)
{
    json j = base();
    j.erase("workload");
    j["topology"]["nodes"][0]["memory"] = {{"tier", "hbm"}};
    j["serving"] = "fast";
    auto problems = problemsOf(j);
    EXPECT_TRUE(contains(problemAt(problems, "/workload").message, "missing required key 'workload'"));
    EXPECT_TRUE(contains(problemAt(problems, "/topology/nodes/0/memory").message, "array of tiers"));
    EXPECT_TRUE(contains(problemAt(problems, "/serving").message, "must be an object"));

    auto top = problemsOf(json::array());
    ASSERT_EQ(top.size(), 1u);
    EXPECT_EQ(top[0].field, "/");
}

TEST(ScenarioErrors, AllProblemsComeBackInOnePass)
{
    json j = base();
    j["topology"]["links"][0]["b"] = "gpu9";
    j["topology"]["links"][1]["bandwidth"] = -5;
    j["topology"]["nodes"][0]["memory"][0]["capacity"] = 0;
    j["model"]["kv_heds"] = 8;
    j["workload"]["requests"] = 0;
    auto problems = problemsOf(j);
    EXPECT_GE(problems.size(), 5u);
    problemAt(problems, "/topology/links/0/b");
    problemAt(problems, "/topology/links/1/bandwidth");
    problemAt(problems, "/topology/nodes/0/memory/0/capacity");
    problemAt(problems, "/model/kv_heds");
    problemAt(problems, "/workload/requests");
    for (const auto& p : problems)
        EXPECT_EQ(p.file, "mem/scenario.json");
}

TEST(ScenarioErrors, PointersEscapeSpecialCharacters)
{
    json j = base();
    j["serving"]["a/b~c"] = 1;
    problemAt(j, "/serving/a~1b~0c");
}
