// `cohsim run --set POINTER=VALUE`: edits to a scenario's JSON before it is read.
#include "core/base/input_error.h"
#include "core/scenario/scenario_overrides.h"
#include "tests/core/cli_runner.h"
#include "tests/core/scenario_test_util.h"

#include <gtest/gtest.h>

namespace coh::test {
namespace {

using nlohmann::json;

TEST(ScenarioOverrides, SetsValuesWordsAndCreatesObjectsOnTheWay)
{
    json root = {{"coherence", {{"decode", "msi-directory"}}}, {"serving", {{"instances", {{{"id", "a"}}}}}}};
    core::applyOverride(root, "/coherence/decode=lazy-causal", "s.json");
    core::applyOverride(root, "/serving/replication/factor=3", "s.json");
    core::applyOverride(root, "/serving/instances/0/id=\"b\"", "s.json");
    core::applyOverride(root, "/failures={\"events\": []}", "s.json");
    EXPECT_EQ(root["coherence"]["decode"], "lazy-causal");
    EXPECT_EQ(root["serving"]["replication"]["factor"], 3);
    EXPECT_EQ(root["serving"]["instances"][0]["id"], "b");
    EXPECT_TRUE(root["failures"]["events"].is_array());
    core::applyOverride(root, "/failures=null", "s.json");
    EXPECT_FALSE(root.contains("failures"));
}

TEST(ScenarioOverrides, RefusesWhatCannotBeSetNamingThePointer)
{
    json root = {{"coherence", {{"decode", "msi-directory"}}}, {"list", {1, 2}}};
    for (const char* bad : {"coherence=1", "/coherence/decode/x=1", "/list/7=1", "/list/x=1", "/nothing/here=null"}) {
        SCOPED_TRACE(bad);
        try {
            core::applyOverride(root, bad, "s.json");
            ADD_FAILURE() << "accepted";
        } catch (const core::InputError& e) {
            ASSERT_EQ(e.problems().size(), 1u);
            EXPECT_EQ(e.problems()[0].file, "s.json");
            EXPECT_FALSE(e.problems()[0].fix.empty());
        }
    }
}

TEST(ScenarioOverrides, CohsimRunAppliesThemBeforeReadingTheScenario)
{
    const auto r = runCohsim("run --no-store --json --max-requests 5 " + std::string(COH_DATASETS_DIR) +
                                 "/scenarios/default.json --set /coherence/decode=lazy-causal",
                             Stderr::Discard);
    ASSERT_EQ(r.exitCode, 0) << r.output;
    EXPECT_EQ(json::parse(r.output)["summary"]["protocol"], "lazy-causal");
    const auto bad = runCohsim("run --no-store " + std::string(COH_DATASETS_DIR) +
                               "/scenarios/default.json --set /coherence/decode/x=1");
    EXPECT_EQ(bad.exitCode, 2);
    EXPECT_NE(bad.output.find("/coherence/decode/x"), std::string::npos) << bad.output;
}

} // namespace
} // namespace coh::test
