// The prefix pool's protocol in the run's summary (PrefixPoolSummary::protocol), as summary.protocol is the KV
// path's: what the engine runs the pool's blocks under, stored with the summary, and read from the stored
// scenario for runs stored before it was recorded (the schema-4 file, and a summary without the key).
#include "core/scenario/scenario_loader.h"
#include "core/serving/serving_engine.h"
#include "core/store/run_store.h"
#include "core/workload/workload_builder.h"
#include "temp_dir.h"

#include <SQLiteCpp/Database.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>

namespace coh::test {
namespace {

namespace fs = std::filesystem;
using namespace core;

const std::string kPoolScenario = std::string(COH_DATASETS_DIR) + "/scenarios/prefix-pool-cxl.json";

nlohmann::json poolScenario(const nlohmann::json& coherence)
{
    nlohmann::json j = nlohmann::json::parse(std::ifstream(kPoolScenario));
    j["coherence"] = coherence;
    return j;
}

RunResult runOf(const nlohmann::json& j, std::uint32_t requests = 20)
{
    Scenario s = parseScenario(j, kPoolScenario);
    limitRequests(s.workload, requests);
    return runScenario(s, buildWorkload(s.workload, s.seed));
}

TEST(PoolProtocol, TheSummaryNamesWhatThePoolsBlocksRanUnder)
{
    // The pool's tier protocol; else prefill's; else plain copies. The KV path's is summary.protocol.
    const RunResult tier = runOf(poolScenario({{"decode", "msi-directory"}, {"tiers", {{"cxl", "sealed-lease"}}}}));
    EXPECT_EQ(tier.summary.prefixPool.protocol, "sealed-lease");
    EXPECT_EQ(tier.summary.protocol, "msi-directory");
    bool poolMessages = false;
    for (const auto& m : tier.messages)
        poolMessages |= m.protocol == MessageProtocol::PrefixPool && m.sender != MessageSender::None;
    EXPECT_TRUE(poolMessages); // what the name serves: these records index sealed-lease's tables
    EXPECT_EQ(runOf(poolScenario({{"prefill", "moesi-directory"}})).summary.prefixPool.protocol, "moesi-directory");
    EXPECT_EQ(runOf(poolScenario(nlohmann::json::object())).summary.prefixPool.protocol, "direct");
}

TEST(PoolProtocol, StoredWithTheSummaryAndReadFromTheScenarioForOlderRuns)
{
    TempDir dir;
    const std::string path = dir.file("runs.db");
    const nlohmann::json scenario = poolScenario({{"tiers", {{"cxl", "sealed-lease"}}}});
    const RunResult result = runOf(scenario, 10);
    std::int64_t id = 0, unreadable = 0;
    {
        RunStore store(path);
        id = store.beginRun("pool", scenario.dump(), result.seed);
        store.completeRun(id, result);
        unreadable = store.beginRun("pool, scenario gone", "{\"not\": \"a scenario\"}", result.seed);
        store.completeRun(unreadable, result);
    }
    {
        RunStore store(path);
        EXPECT_EQ(store.loadRun(id).summary.prefixPool.protocol, "sealed-lease");
        EXPECT_EQ(store.runSummary(id)->prefixPool.protocol, "sealed-lease");
    }
    // A summary stored before the key existed: the run's own scenario says it, through the engine's rule.
    {
        SQLite::Database db(path, SQLite::OPEN_READWRITE);
        db.exec("UPDATE runs SET summary_json = json_remove(summary_json, '$.prefix_pool.protocol')");
        EXPECT_EQ(db.execAndGet("SELECT count(*) FROM runs WHERE json_type(summary_json, '$.prefix_pool.protocol') "
                                "IS NOT NULL")
                      .getInt(),
                  0);
    }
    RunStore store(path);
    EXPECT_EQ(store.loadRun(id).summary.prefixPool.protocol, "sealed-lease");
    EXPECT_EQ(store.runSummary(id)->prefixPool.protocol, "sealed-lease");
    // A scenario that does not parse tells nothing: unknown, not a guess.
    EXPECT_EQ(store.loadRun(unreadable).summary.prefixPool.protocol, "");
    EXPECT_EQ(store.runSummary(unreadable)->prefixPool.protocol, "");
}

TEST(PoolProtocol, TheSchemaFourFileHadNoPool)
{
    // `cohsim run datasets/scenarios/default.json --max-requests 2` by the schema-4 build: no prefix pool, and a
    // summary without the key, which reads as plain copies.
    TempDir dir;
    const std::string path = dir.file("old.db");
    fs::copy_file(std::string(COH_TEST_DATA_DIR) + "/store/schema4-default-2-requests.db", path);
    RunStore store(path);
    const RunResult run = store.loadRun(1);
    EXPECT_FALSE(run.summary.prefixPool.enabled);
    EXPECT_EQ(run.summary.prefixPool.protocol, "direct");
    EXPECT_EQ(store.runSummary(1)->prefixPool.protocol, "direct");
}

} // namespace
} // namespace coh::test
