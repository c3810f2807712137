// RunStore, the life of a run: full round trip of a RunResult, status transitions, atomic completion,
// interrupted runs, cascading deletes and a large run. Opening files (migrations, refusals, default paths):
// test_run_store_files.cpp.
#include "core/base/input_error.h"
#include "core/store/run_store.h"

#include "run_store_fixtures.h"
#include "temp_dir.h"

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Statement.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>

#include <sys/wait.h>
#include <unistd.h>

namespace coh::core {
namespace {

using test::countRows;
using test::expectEqual;
using test::makeResult;
using test::TempDir;

TEST(RunStore, RoundTripsEveryFieldOfARunResult)
{
    TempDir dir;
    RunStore store(dir.file("runs.db"));
    const RunResult original = makeResult();
    const auto id = store.beginRun("baseline", R"({"name": "from-json", "seed": 5})", 5);
    EXPECT_EQ(store.runInfo(id)->scenarioName, "from-json");
    store.completeRun(id, original);

    expectEqual(store.loadRun(id), original);
    // A fresh connection sees the same (nothing lives only in the first connection's cache).
    RunStore reopened(dir.file("runs.db"));
    expectEqual(reopened.loadRun(id), original);

    const auto info = reopened.runInfo(id);
    ASSERT_TRUE(info);
    EXPECT_EQ(info->name, "baseline");
    EXPECT_EQ(info->scenarioName, original.scenarioName);
    EXPECT_EQ(info->seed, original.seed);
    EXPECT_EQ(info->version, COH_VERSION);
    EXPECT_EQ(info->backend, "simulated");
    EXPECT_EQ(info->status, RunStatus::Completed);
    EXPECT_EQ(info->pid, static_cast<std::int64_t>(::getpid()));
    EXPECT_EQ(info->createdAt.size(), 20u); // 2024-05-01T12:34:56Z
    EXPECT_EQ(info->createdAt.back(), 'Z');
    EXPECT_FALSE(info->finishedAt.empty());
    EXPECT_TRUE(info->hasSummary);
    EXPECT_EQ(info->requests, 3u);
    EXPECT_EQ(info->ttftP50Ms, original.summary.ttftMs.p50);
    EXPECT_EQ(info->ttftP99Ms, original.summary.ttftMs.p99);
    EXPECT_EQ(info->tpotP50Ms, original.summary.tpotMs.p50);
    EXPECT_EQ(info->tpotP99Ms, original.summary.tpotMs.p99);
    EXPECT_EQ(info->throughputTokensPerSec, 1234.5);
    EXPECT_EQ(info->goodputRequestsPerSec, 1.75);
    EXPECT_EQ(info->events, 123456u);
    EXPECT_EQ(info->wallSeconds, 0.0625);
    EXPECT_EQ(info->flows, 77u);               // the summary's flows (stored in messages_total too)
    EXPECT_EQ(info->messages, 60u + 39u);      // the kinds' counts (traffic_counts.h)
    EXPECT_EQ(info->decodeProtocol, "direct"); // the scenario names none
    EXPECT_EQ(reopened.scenarioJson(id), R"({"name": "from-json", "seed": 5})");
}

TEST(RunStore, ASimulatedRunNamesTheRealRunItModelsUntilThatOneIsDeleted)
{
    TempDir dir;
    RunStore store(dir.file("runs.db"));
    const auto real = store.beginRun("real", "{}", 1);
    const auto simulated = store.beginRun("simulated", "{}", 1);
    EXPECT_EQ(store.runInfo(simulated)->modelsRun, 0);
    store.setModelsRun(simulated, real);
    EXPECT_EQ(store.runInfo(simulated)->modelsRun, real);
    EXPECT_EQ(store.listRuns().front().modelsRun, real); // the listing reads it too
    EXPECT_EQ(store.modelsOf(real), std::vector<std::int64_t>{simulated});
    EXPECT_THROW(store.setModelsRun(simulated, real + 100), InputError);
    EXPECT_THROW(store.setModelsRun(real + 100, real), InputError);
    EXPECT_EQ(store.runInfo(simulated)->modelsRun, real); // a refused link changes nothing
    ASSERT_TRUE(store.deleteRun(real));
    EXPECT_EQ(store.runInfo(simulated)->modelsRun, 0);
}

TEST(RunStore, StatusFollowsTheRunsLife)
{
    TempDir dir;
    RunStore store(dir.file("runs.db"));
    const auto a = store.beginRun("a", "{}", 1);
    const auto b = store.beginRun("b", "{}", 2, "real-cpu");
    EXPECT_EQ(store.runInfo(a)->status, RunStatus::Running);
    EXPECT_FALSE(store.runInfo(a)->hasSummary);
    EXPECT_TRUE(store.runInfo(a)->finishedAt.empty());
    EXPECT_FALSE(store.runSummary(a));
    EXPECT_EQ(store.runInfo(b)->backend, "real-cpu");

    store.completeRun(a, makeResult());
    EXPECT_EQ(store.runInfo(a)->status, RunStatus::Completed);
    EXPECT_TRUE(store.runSummary(a));
    EXPECT_THROW(store.completeRun(a, makeResult()), InputError); // twice would duplicate every row

    store.failRun(b, RunStatus::Cancelled, "stopped by the user");
    const auto info = store.runInfo(b);
    EXPECT_EQ(info->status, RunStatus::Cancelled);
    EXPECT_EQ(info->error, "stopped by the user");
    EXPECT_FALSE(info->finishedAt.empty());
    EXPECT_THROW(store.completeRun(b, makeResult()), InputError);
    EXPECT_THROW(store.failRun(a, RunStatus::Failed, "late"), InputError);
    EXPECT_THROW(store.failRun(a, RunStatus::Completed, "no"), std::invalid_argument);
    EXPECT_THROW(store.completeRun(999, makeResult()), InputError);
    EXPECT_THROW(store.loadRun(999), InputError);
    EXPECT_FALSE(store.runInfo(999));

    const auto runs = store.listRuns();
    ASSERT_EQ(runs.size(), 2u);
    EXPECT_EQ(runs[0].id, b); // newest first
    EXPECT_EQ(runs[1].id, a);
    EXPECT_TRUE(store.renameRun(a, "renamed"));
    EXPECT_EQ(store.runInfo(a)->name, "renamed");
    EXPECT_FALSE(store.renameRun(999, "x"));
}

TEST(RunStore, FailureMidCompleteRollsBackEverything)
{
    TempDir dir;
    const std::string path = dir.file("runs.db");
    RunStore store(path);
    const auto id = store.beginRun("atomic", "{}", 1);
    for (const char* failAt : {"requests", "messages", "decode_iterations", "summary"}) {
        SCOPED_TRACE(failAt);
        store.setCompleteHookForTesting([failAt](std::string_view step) {
            if (step == failAt)
                throw std::runtime_error("injected");
        });
        EXPECT_THROW(store.completeRun(id, makeResult()), std::runtime_error);
        EXPECT_EQ(store.runInfo(id)->status, RunStatus::Running);
        EXPECT_FALSE(store.runInfo(id)->hasSummary);
        EXPECT_EQ(countRows(path, "request_metrics", id), 0);
        EXPECT_EQ(countRows(path, "messages", id), 0);
        EXPECT_EQ(countRows(path, "link_series", id), 0);
        EXPECT_EQ(countRows(path, "decode_iterations", id), 0);
    }
    store.setCompleteHookForTesting({});
    store.completeRun(id, makeResult()); // nothing left behind to collide with
    EXPECT_EQ(store.runInfo(id)->status, RunStatus::Completed);
    EXPECT_EQ(countRows(path, "messages", id), 4);
}

TEST(RunStore, RunsOfDeadProcessesAreMarkedInterrupted)
{
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0)
        ::_exit(0);
    ASSERT_EQ(::waitpid(child, nullptr, 0), child); // reaped: the pid is now free (ESRCH)

    TempDir dir;
    const std::string path = dir.file("runs.db");
    std::int64_t dead = 0, reused = 0, alive = 0;
    {
        RunStore store(path);
        dead = store.beginRun("dead", "{}", 1);
        reused = store.beginRun("pid reused", "{}", 1);
        alive = store.beginRun("alive", "{}", 1);
        SQLite::Database db(path, SQLite::OPEN_READWRITE);
        SQLite::Statement setPid(db, "UPDATE runs SET pid = ? WHERE id = ?");
        setPid.bind(1, static_cast<std::int64_t>(child));
        setPid.bind(2, dead);
        setPid.exec();
        // Our own pid, but recorded for a process that started at another time: the pid was reused.
        SQLite::Statement setStart(db, "UPDATE runs SET process_start = 'another-boot:1' WHERE id = ?");
        setStart.bind(1, reused);
        setStart.exec();
    }
    RunStore store(path);
    EXPECT_EQ(store.runInfo(dead)->status, RunStatus::Interrupted);
    EXPECT_NE(store.runInfo(dead)->error.find(std::to_string(child)), std::string::npos);
    EXPECT_EQ(store.runInfo(reused)->status, RunStatus::Interrupted);
    EXPECT_EQ(store.runInfo(alive)->status, RunStatus::Running); // this process is alive
    EXPECT_THROW(store.completeRun(dead, makeResult()), InputError);
}

TEST(RunStore, DeleteCascadesToEveryChildTable)
{
    TempDir dir;
    const std::string path = dir.file("runs.db");
    RunStore store(path);
    const auto gone = store.beginRun("gone", "{}", 1);
    const auto kept = store.beginRun("kept", "{}", 1);
    store.completeRun(gone, makeResult());
    store.completeRun(kept, makeResult());
    ASSERT_EQ(countRows(path, "request_metrics", gone), 3);

    EXPECT_TRUE(store.deleteRun(gone));
    EXPECT_FALSE(store.deleteRun(gone));
    EXPECT_FALSE(store.runInfo(gone));
    EXPECT_EQ(countRows(path, "request_metrics", gone), 0);
    EXPECT_EQ(countRows(path, "link_series", gone), 0);
    EXPECT_EQ(countRows(path, "node_blocks", gone), 0);
    EXPECT_EQ(countRows(path, "messages", gone), 0);
    EXPECT_EQ(countRows(path, "decode_iterations", gone), 0);
    EXPECT_EQ(countRows(path, "request_metrics", kept), 3);
    EXPECT_EQ(countRows(path, "link_series", kept), 2);
    EXPECT_EQ(countRows(path, "node_blocks", kept), 2);
    EXPECT_EQ(countRows(path, "messages", kept), 4);
    EXPECT_EQ(countRows(path, "decode_iterations", kept), 2);
}

TEST(RunStore, StoresALargeRunQuickly)
{
    RunResult big = makeResult();
    big.requests.assign(20'000, big.requests[0]);
    big.messages.assign(100'000, big.messages[0]);
    for (std::size_t i = 0; i < big.messages.size(); ++i)
        big.messages[i].firstBlock = static_cast<std::uint32_t>(i);

    TempDir dir;
    RunStore store(dir.file("runs.db"));
    const auto id = store.beginRun("big", "{}", 1);
    const auto start = std::chrono::steady_clock::now();
    store.completeRun(id, big);
    const double storeSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const auto loadStart = std::chrono::steady_clock::now();
    const RunResult loaded = store.loadRun(id);
    const double loadSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - loadStart).count();
    std::printf("[ timing ] completeRun with 20000 requests + 100000 messages: %.3f s; loadRun: %.3f s\n", storeSeconds,
                loadSeconds);
    ASSERT_EQ(loaded.messages.size(), 100'000u);
    EXPECT_EQ(loaded.messages[99'999].firstBlock, 99'999u);
    EXPECT_EQ(loaded.requests.size(), 20'000u);
    EXPECT_LT(storeSeconds, 10.0); // generous: ~0.2 s in Release; a row-by-row commit would take minutes
}

} // namespace
} // namespace coh::core
