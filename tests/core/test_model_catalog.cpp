#include "core/scenario/model_catalog.h"

#include "tests/core/scenario_test_util.h"

#include "cli_runner.h"
#include "temp_dir.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <map>

using namespace coh::core;
using coh::test::DatasetsDirOverride;
using coh::test::fixtureDatasetsDir;
using coh::test::problemAt;

namespace {

std::vector<InputProblem> catalogProblems(const std::string& path)
{
    try {
        ModelCatalog::load(path);
    } catch (const InputError& e) {
        return e.problems();
    }
    ADD_FAILURE() << "expected an InputError for " << path;
    return {};
}

} // namespace

// The shipped catalog (datasets/models/catalog.json), checked against the config.json of each model.
TEST(ModelCatalog, ShippedCatalogKvBytesPerToken)
{
    auto catalog = ModelCatalog::load(std::string(COH_DATASETS_DIR) + "/models/catalog.json");
    const std::map<std::string, std::uint64_t> expected = {
        {"Llama-2-7B", 524288},  {"Llama-2-13B", 819200}, {"Llama-2-70B", 327680},  {"Llama-3-8B", 131072},
        {"Llama-3-70B", 327680}, {"Mistral-7B", 131072},  {"Mixtral-8x7B", 131072},
    };
    for (const auto& [name, bytes] : expected) {
        const ModelSpec* model = catalog.find(name);
        ASSERT_NE(model, nullptr) << name << " missing from the catalog";
        EXPECT_EQ(model->kvBytesPerToken(), bytes) << name;
    }
    const ModelSpec* mixtral = catalog.find("Mixtral-8x7B");
    EXPECT_LT(mixtral->activeParams, mixtral->params); // MoE: a token touches two of eight experts
}

TEST(ModelCatalog, ShippedCatalogEntriesAreConsistent)
{
    auto catalog = ModelCatalog::load(std::string(COH_DATASETS_DIR) + "/models/catalog.json");
    ASSERT_GE(catalog.models().size(), 7u);
    for (const auto& m : catalog.models()) {
        EXPECT_EQ(m.heads % m.kvHeads, 0u) << m.name;
        EXPECT_LE(m.activeParams, m.params) << m.name;
        EXPECT_GT(m.params, 1e8) << m.name;
        EXPECT_FALSE(m.source.empty()) << m.name << " has no source";
    }
}

TEST(ModelCatalog, FixtureValuesAndDefaults)
{
    auto catalog = ModelCatalog::load(fixtureDatasetsDir() + "/models/catalog.json");
    ASSERT_EQ(catalog.models().size(), 3u);
    EXPECT_EQ(catalog.names(), (std::vector<std::string>{"Llama-3-8B", "Tiny-MoE", "Plain-1B"}));
    const ModelSpec* moe = catalog.find("Tiny-MoE");
    ASSERT_NE(moe, nullptr);
    EXPECT_EQ(moe->dtypeBytes, 2u); // default
    EXPECT_DOUBLE_EQ(moe->activeParams, 5e8);
    EXPECT_EQ(moe->kvBytesPerToken(), 2u * 4 * 2 * 64 * 2);
    const ModelSpec* plain = catalog.find("Plain-1B");
    ASSERT_NE(plain, nullptr);
    EXPECT_DOUBLE_EQ(plain->activeParams, 1.2e9); // defaults to params
    EXPECT_EQ(plain->kvBytesPerToken(), 2u * 16 * 8 * 64 * 4);
    EXPECT_DOUBLE_EQ(plain->weightBytes(), 4.8e9);
    EXPECT_EQ(catalog.find("Llama-3-8B")->source, "fixture");
}

TEST(ModelCatalog, FindIgnoresCase)
{
    auto catalog = ModelCatalog::load(fixtureDatasetsDir() + "/models/catalog.json");
    ASSERT_NE(catalog.find("llama-3-8b"), nullptr);
    EXPECT_EQ(catalog.find("LLAMA-3-8B")->name, "Llama-3-8B");
    EXPECT_EQ(catalog.find("Llama-3-8"), nullptr);
    EXPECT_EQ(catalog.find(""), nullptr);
}

TEST(ModelCatalog, DefaultPathFollowsDatasetsDir)
{
    {
        DatasetsDirOverride env(fixtureDatasetsDir());
        EXPECT_EQ(ModelCatalog::defaultPath(), fixtureDatasetsDir() + "/models/catalog.json");
        EXPECT_EQ(ModelCatalog::loadDefault().models().size(), 3u);
    }
    DatasetsDirOverride empty(""); // an empty override falls back to the configured folder
    EXPECT_EQ(ModelCatalog::defaultPath(), std::string(COH_DATASETS_DIR) + "/models/catalog.json");
}

TEST(ModelCatalog, EveryProblemInABadCatalogIsListed)
{
    const std::string path = fixtureDatasetsDir() + "/models/bad_catalog.json";
    auto problems = catalogProblems(path);
    EXPECT_EQ(problems.front().file, path);
    EXPECT_NE(problemAt(problems, "/1/kv_heads").message.find("missing required key 'kv_heads'"), std::string::npos);
    EXPECT_NE(problemAt(problems, "/2/name").message.find("listed twice"), std::string::npos);
    EXPECT_NE(problemAt(problems, "/3/layers").message.find("whole number"), std::string::npos);
    EXPECT_NE(problemAt(problems, "/4/parms").message.find("did you mean 'params'?"), std::string::npos);
    EXPECT_EQ(problemAt(problems, "/4/parms").fix, "rename it to \"params\"");
    problemAt(problems, "/4/params");
}

TEST(ModelCatalog, KvHeadsMustDivideHeads)
{
    auto problems = catalogProblems(fixtureDatasetsDir() + "/models/bad_catalog.json");
    // Entry 3 has two problems; the divisibility check runs even though layers is wrong.
    auto p = problemAt(problems, "/3/kv_heads");
    EXPECT_NE(p.message.find("must divide heads"), std::string::npos);
}

TEST(ModelCatalog, NotAnArrayOrMissing)
{
    auto problems = catalogProblems(fixtureDatasetsDir() + "/models/not_array.json");
    ASSERT_EQ(problems.size(), 1u);
    EXPECT_EQ(problems[0].field, "/");
    EXPECT_NE(problems[0].message.find("array"), std::string::npos);

    // An empty list is no catalog (it listed "0 models" with exit 0); an empty file's fix names a catalog's shape.
    coh::test::TempDir dir("coh-catalog");
    const std::string empty = dir.file("empty.json");
    std::ofstream(empty) << "[]";
    problems = catalogProblems(empty);
    ASSERT_EQ(problems.size(), 1u);
    EXPECT_EQ(problems[0].message, "the catalog lists no model");
    const std::string blank = dir.file("blank.json");
    std::ofstream(blank) << "\n";
    problems = catalogProblems(blank);
    ASSERT_EQ(problems.size(), 1u);
    EXPECT_NE(problems[0].fix.find("a model catalog an array"), std::string::npos) << problems[0].fix;

    problems = catalogProblems(fixtureDatasetsDir() + "/models/no_such_catalog.json");
    ASSERT_EQ(problems.size(), 1u);
    EXPECT_NE(problems[0].message.find("not found"), std::string::npos);
    EXPECT_FALSE(problems[0].fix.empty());
}

TEST(ModelCatalog, CliListsCatalogAsJson)
{
    DatasetsDirOverride env(fixtureDatasetsDir());
    const coh::test::CliResult r = coh::test::runCohsim("models --json", coh::test::Stderr::Inherit);
    ASSERT_EQ(r.exitCode, 0);
    auto array = nlohmann::json::parse(r.output);
    ASSERT_EQ(array.size(), 3u);
    EXPECT_EQ(array[0]["name"], "Llama-3-8B");
    EXPECT_EQ(array[0]["kv_bytes_per_token"], 131072);
    EXPECT_EQ(array[2]["kv_bytes_per_token"], 65536);
}
