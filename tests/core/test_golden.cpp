// Golden runs: cohsim on the shipped scenarios must reproduce the checked-in summaries exactly (the engine
// is deterministic). A change that moves them is either a bug or intended; then run scripts/update-golden
// and say why in the commit.
#include "cli_runner.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>

namespace coh::test {
namespace {

struct GoldenCase {
    std::string name, scenario, args;
};

std::vector<GoldenCase> goldenCases()
{
    std::vector<GoldenCase> cases;
    std::ifstream in(std::string(COH_TEST_DATA_DIR) + "/../golden/cases.txt");
    for (std::string line; std::getline(in, line);) {
        std::istringstream words(line);
        GoldenCase c;
        if (!(words >> c.name >> c.scenario))
            continue;
        std::getline(words, c.args);
        cases.push_back(c);
    }
    return cases;
}

// Wall-clock figures differ between runs; everything else must match.
void dropTimings(nlohmann::json& summary)
{
    for (const char* key : {"wall_s", "events_per_s"})
        summary.erase(key);
}

TEST(Golden, ShippedScenariosReproduceTheirSummaries)
{
    const auto cases = goldenCases();
    ASSERT_GE(cases.size(), 6u);
    for (const auto& c : cases) {
        const CliResult r =
            runCohsim("run " + std::string(COH_DATASETS_DIR) + "/../" + c.scenario + " --no-store --json -q" + c.args,
                      Stderr::Inherit);
        ASSERT_EQ(r.exitCode, 0) << c.name;
        nlohmann::json actual = nlohmann::json::parse(r.output);
        std::ifstream in(std::string(COH_TEST_DATA_DIR) + "/../golden/" + c.name + ".json");
        ASSERT_TRUE(in) << "missing tests/golden/" << c.name << ".json: run scripts/update-golden";
        nlohmann::json expected = nlohmann::json::parse(in);
        dropTimings(actual["summary"]);
        dropTimings(expected["summary"]);
        // A JSON patch from expected to actual names exactly what moved.
        const nlohmann::json moved = nlohmann::json::diff(expected, actual);
        EXPECT_TRUE(moved.empty()) << c.name << " moved (if intended, run scripts/update-golden):\n"
                                   << moved.dump(1).substr(0, 4000);
    }
}

} // namespace
} // namespace coh::test
