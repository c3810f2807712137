// One vocabulary for a run's traffic (core/engine/traffic_counts.h): what each count adds up, that a real run's
// write-backs are its writeback-role messages, that summaries stored before the vocabulary read right, and the
// begin -> run -> store path with its default name.
#include "core/engine/traffic_counts.h"
#include "core/scenario/scenario_loader.h"
#include "core/serving/serving_engine.h"
#include "core/store/run_and_store.h"
#include "core/store/run_serialization.h"
#include "core/store/run_store.h"
#include "core/workload/workload_builder.h"

#include "temp_dir.h"

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Statement.h>
#include <gtest/gtest.h>

#include <atomic>
#include <fstream>

namespace coh::core {
namespace {

using test::TempDir;

const std::string kDefaultScenario = std::string(COH_TEST_DATA_DIR) + "/../../datasets/scenarios/default.json";

std::uint64_t kindCount(const RunSummary& s, const std::string& name)
{
    for (const auto& k : s.messagesByKind)
        if (k.name == name)
            return k.count;
    return 0;
}

Scenario defaultScenario(std::uint32_t requests)
{
    Scenario s = loadScenarioFile(kDefaultScenario);
    limitRequests(s.workload, requests);
    return s;
}

nlohmann::ordered_json legacySummary()
{
    std::ifstream in(std::string(COH_TEST_DATA_DIR) + "/runs/legacy-msi-summary.json");
    return nlohmann::ordered_json::parse(in);
}

TEST(TrafficCounts, AddsUpTheKinds)
{
    RunSummary s;
    s.flows = 5;
    s.messagesByKind = {{"GetS", false, 10, 640, "request"},
                        {"Data", true, 7, 7000, "data"},
                        {"Data to home", true, 3, 3000, "writeback"},
                        {"Inv", false, 2, 128, "invalidation"},
                        {"Weird", false, 1, 64, "no-such-role"}};
    const TrafficCounts c = trafficCounts(s);
    EXPECT_EQ(c.messages, 10u + 7u + 3u + 2u + 1u);
    EXPECT_EQ(c.flows, 5u);
    EXPECT_EQ(c.dataMessages, 7u + 3u);
    EXPECT_EQ(c.controlMessages, 10u + 2u + 1u);
    EXPECT_EQ(c.dataBytes, 10000.0);
    EXPECT_EQ(c.controlBytes, 640.0 + 128.0 + 64.0);
    EXPECT_EQ(c.writebacks, 3u);
    EXPECT_EQ(c.invalidations, 2u);
    EXPECT_EQ(c.messagesOf(coherence::MessageRole::Request), 10u);
    EXPECT_EQ(c.messagesOf(coherence::MessageRole::Other), 1u); // an unknown role is not lost
    std::uint64_t byRole = 0;
    for (auto n : c.messagesByRole)
        byRole += n;
    EXPECT_EQ(byRole, c.messages);
}

TEST(TrafficCounts, MsiRunsWriteBackUnderTheWritebackRole)
{
    const Scenario scenario = defaultScenario(60);
    const RunResult r = runScenario(scenario, buildWorkload(scenario.workload, scenario.seed));
    const TrafficCounts c = trafficCounts(r.summary);
    // MSI's owner answers a Fwd-GetS with Data to the reader and Data to the home: the second is a write-back,
    // counted under "Data to home", so the legend's writeback role and the write-back count are one number,
    // and each Fwd-GetS (one per shared read of a modified block) causes exactly one.
    EXPECT_GT(c.writebacks, 0u);
    EXPECT_EQ(c.writebacks, kindCount(r.summary, "Data to home"));
    EXPECT_EQ(c.writebacks, kindCount(r.summary, "Fwd-GetS"));
    EXPECT_EQ(c.flows, r.messages.size()); // the record holds every flow (under record.max_messages)
    EXPECT_GT(c.messages, c.flows);        // a flow carries a message for a group of blocks

    // The JSON that cohsim prints and exports carries the same numbers, and reads back to them.
    const auto j = toJson(r.summary);
    EXPECT_EQ(j["messages"].get<std::uint64_t>(), c.messages);
    EXPECT_EQ(j["flows"].get<std::uint64_t>(), c.flows);
    EXPECT_EQ(j["writebacks"].get<std::uint64_t>(), c.writebacks);
    EXPECT_EQ(j["data_messages"].get<std::uint64_t>() + j["control_messages"].get<std::uint64_t>(), c.messages);
    const TrafficCounts back = trafficCounts(summaryFromJson(j));
    EXPECT_EQ(back.messages, c.messages);
    EXPECT_EQ(back.flows, c.flows);
    EXPECT_EQ(back.writebacks, c.writebacks);
}

TEST(LegacyTraffic, ASummaryFromBeforeTheVocabularyReadsRight)
{
    // The fixture's "messages" (12983) were flows, its "writebacks" (17021) hid inside "Data" (56137).
    const auto old = legacySummary();
    ASSERT_FALSE(old.contains("flows"));
    const RunSummary s = summaryFromJson(old);
    const TrafficCounts c = trafficCounts(s);
    EXPECT_EQ(c.flows, 12983u);
    EXPECT_EQ(c.messages, 112836u);
    EXPECT_EQ(c.writebacks, 17021u);
    EXPECT_EQ(c.invalidations, 281u);
    EXPECT_EQ(kindCount(s, "Data"), 56137u - 17021u);
    EXPECT_EQ(s.messagesByKind.back().name, "Data to home"); // appended: the record's kind indices still hold
    EXPECT_EQ(s.messagesByKind.back().role, "writeback");
    EXPECT_NEAR(c.dataBytes, old["data_bytes"].get<double>(), 1.0);
    EXPECT_NEAR(c.controlBytes, old["control_bytes"].get<double>(), 1e-6);
    // And it is written back in today's words.
    EXPECT_EQ(toJson(s)["flows"].get<std::uint64_t>(), 12983u);
    EXPECT_EQ(toJson(s)["messages"].get<std::uint64_t>(), 112836u);
}

TEST(LegacyTraffic, AStoredLegacyRunListsAndLoadsRight)
{
    TempDir dir;
    const std::string path = dir.file("runs.db");
    std::int64_t id = 0;
    {
        RunStore store(path);
        const Scenario scenario = defaultScenario(20);
        StoredRunHooks hooks;
        hooks.begun = [&](std::int64_t begun) { id = begun; };
        runAndStore(store, scenario, buildWorkload(scenario.workload, scenario.seed), {}, {}, hooks);
    }
    {
        // What an older cohsim left in the row.
        SQLite::Database db(path, SQLite::OPEN_READWRITE);
        SQLite::Statement update(db, "UPDATE runs SET summary_json = ?, messages_total = 12983 WHERE id = ?");
        update.bind(1, legacySummary().dump());
        update.bind(2, id);
        ASSERT_EQ(update.exec(), 1);
    }
    RunStore store(path);
    const auto info = store.runInfo(id);
    ASSERT_TRUE(info);
    EXPECT_EQ(info->messages, 112836u);
    EXPECT_EQ(info->flows, 12983u);
    const auto summary = store.runSummary(id);
    ASSERT_TRUE(summary);
    EXPECT_EQ(trafficCounts(*summary).messages, info->messages);
    EXPECT_EQ(trafficCounts(*summary).flows, info->flows);
    EXPECT_EQ(trafficCounts(*summary).writebacks, 17021u);
}

TEST(RunAndStore, NamesTheRunByScenarioAndDecodeProtocol)
{
    TempDir dir;
    RunStore store(dir.file("runs.db"));
    const Scenario scenario = defaultScenario(10);
    EXPECT_EQ(defaultRunName(scenario), "default \u00b7 msi-directory");
    std::int64_t begun = 0;
    StoredRunHooks hooks;
    hooks.begun = [&](std::int64_t id) {
        begun = id;
        EXPECT_EQ(store.runInfo(id)->status, RunStatus::Running);
    };
    bool simulated = false;
    hooks.simulated = [&] { simulated = true; };
    const RunResult r = runAndStore(store, scenario, buildWorkload(scenario.workload, scenario.seed), {}, {}, hooks);
    EXPECT_TRUE(simulated);
    const auto info = store.runInfo(begun);
    ASSERT_TRUE(info);
    EXPECT_EQ(info->name, "default \u00b7 msi-directory");
    EXPECT_EQ(info->status, RunStatus::Completed);
    EXPECT_EQ(info->decodeProtocol, "msi-directory");
    EXPECT_EQ(info->prefillProtocol, "direct");
    EXPECT_EQ(info->tierProtocols, "");
    EXPECT_EQ(info->backend, "simulated");
    EXPECT_EQ(info->messages, trafficCounts(r.summary).messages);
    EXPECT_EQ(info->flows, r.summary.flows);

    // A cancelled run is recorded as such, with the reason given, and the cancellation propagates.
    std::atomic<bool> cancel{true};
    RunOptions options;
    options.cancel = &cancel;
    StoredRunHooks cancelHooks;
    cancelHooks.cancelReason = "stopped by the test";
    EXPECT_THROW(
        runAndStore(store, scenario, buildWorkload(scenario.workload, scenario.seed), options, "named", cancelHooks),
        RunCancelled);
    const auto cancelled = store.listRuns().front();
    EXPECT_EQ(cancelled.name, "named");
    EXPECT_EQ(cancelled.status, RunStatus::Cancelled);
    EXPECT_EQ(cancelled.error, "stopped by the test");
}

TEST(RunAndStore, ListsTheTierAndPrefillProtocols)
{
    TempDir dir;
    RunStore store(dir.file("runs.db"));
    const std::string json =
        R"({"name": "x", "coherence": {"decode": "lazy-causal", "prefill": "msi-directory", "tiers": {"cxl": "sealed-lease"}}})";
    const auto id = store.beginRun("x", json, 1);
    const auto info = store.runInfo(id);
    EXPECT_EQ(info->decodeProtocol, "lazy-causal");
    EXPECT_EQ(info->prefillProtocol, "msi-directory");
    EXPECT_EQ(info->tierProtocols, "cxl: sealed-lease");
    // A scenario column that is not JSON does not break the listing.
    const auto broken = store.beginRun("y", "not json", 1);
    EXPECT_EQ(store.runInfo(broken)->decodeProtocol, "direct");
    EXPECT_EQ(store.listRuns().size(), 2u);
}

} // namespace
} // namespace coh::core
