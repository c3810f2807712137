// RunStore: full round-trip of a RunResult, status transitions, atomic completion, interrupted runs,
// cascading deletes, migrations and refusing files that are not run databases.
#include "core/scenario/input_error.h"
#include "core/store/default_paths.h"
#include "core/store/run_store.h"
#include "core/store/schema.h"

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Statement.h>
#include <gtest/gtest.h>

#include <bit>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>

#include <sys/wait.h>
#include <unistd.h>

namespace coh::core {
namespace {

namespace fs = std::filesystem;

class TempDir {
  public:
    TempDir()
    {
        std::string pattern = (fs::temp_directory_path() / "coh-store-XXXXXX").string();
        if (!::mkdtemp(pattern.data()))
            throw std::runtime_error("mkdtemp failed");
        m_path = pattern;
    }
    ~TempDir() { fs::remove_all(m_path); }
    std::string file(const std::string& name) const { return (m_path / name).string(); }

  private:
    fs::path m_path;
};

Distribution distribution(double base)
{
    return {static_cast<std::uint64_t>(base * 10), base, base + 0.25, base + 0.5, base + 0.75, base + 1.125};
}

RunResult makeResult()
{
    RunResult r;
    r.scenarioName = "two-node, \"quoted\"";
    r.seed = std::numeric_limits<std::uint64_t>::max() - 7; // above INT64_MAX: must survive SQLite's int64
    r.nodeIds = {"gpu0", "gpu1", "switch"};
    r.linkIds = {"nvlink-a", "nvlink-b"};
    r.instanceIds = {"prefill-0", "decode-0"};

    RunSummary& s = r.summary;
    s.requests = 3;
    s.completed = 2;
    s.outputTokens = 777;
    s.makespan = 12'345'678'901;
    s.ttftMs = distribution(1);
    s.tpotMs = distribution(2);
    s.e2eMs = distribution(3);
    s.itlMs = distribution(4);
    s.queueMs = distribution(5);
    s.prefillMs = distribution(6);
    s.admissionMs = distribution(7);
    s.transferMs = distribution(8);
    s.loadMs = distribution(9);
    s.firstDecodeMs = distribution(10);
    s.throughputTokensPerSec = 1234.5;
    s.throughputRequestsPerSec = 2.25;
    s.goodputRequestsPerSec = 1.75;
    s.sloAttainment = 0.1 + 0.2; // not exactly representable: the round trip must keep every bit
    s.kvTransfers = 42;
    s.kvBytes = 3.5e9;
    s.flows = 77;
    s.protocol = "moesi-directory";
    s.messagesByKind = {{"GetS", false, 60, 3840}, {"Data", true, 39, 2.5e9}};
    s.links = {{"gpu0-nvswitch", true, 1.5e9, 0.25, 0.75}, {"gpu0-nvswitch", false, 2e6, 0.001, 0.5}};
    s.staleness.reads = 900;
    s.staleness.staleReads = 12;
    s.staleness.readerWaits = 4;
    s.staleness.decodeSteps = 300;
    s.staleness.staleSteps = 5;
    s.staleness.readsByVersionsBehind = {888, 12};
    s.staleness.staleAgeUs = {12, 1.5, 1.25, 2.0, 3.5, 4.0};
    s.staleness.boundVersions = 1;
    s.staleness.boundAge = 20'000;
    s.prefixPool = {true, 1000, 512, 65536.0, 131072.0, 40, 12, 3};
    s.eventsExecuted = 123456;
    s.wallSeconds = 0.0625;
    s.eventsPerSecond = 1.9e6;

    for (std::uint32_t i = 0; i < 3; ++i) {
        RequestMetrics m;
        m.id = 100 + i;
        m.promptTokens = 512 + i;
        m.outputTokens = 64 + i;
        m.prefillInstance = 0;
        m.decodeInstance = 1;
        m.arrival = 1000 * i + 1;
        m.prefillStart = m.arrival + 2;
        m.prefillEnd = m.arrival + 3;
        m.transferStart = m.arrival + 4;
        m.kvReady = m.arrival + 5;
        m.decodeStart = m.arrival + 6;
        m.firstToken = m.arrival + 7;
        m.finish = m.arrival + 8'000'000'000'000; // beyond 32 bits
        m.decodeCompute = 7'000'000'000 + i;
        m.decodeStall = 123'456 + i;
        m.decodeTransfer = 65'432 + i;
        m.staleReads = 7 + i;
        m.staleSteps = 3 + i;
        m.cachedTokens = 512 * i;
        r.requests.push_back(m);
    }
    r.linkInterval = 250 * kMillisecond;
    r.linkSeries = {{1, false, 4.5e11, 1e6, {0.0, 1.5, -0.0, 1e300, 0.1}}, {0, true, 9e11, 0, {}}};
    r.nodeBlocks = {{0, "M", 12, {0.0, 11.5, 12.0}, {{5, 12}, {600'000'000, 0}}, 1},
                    {1, "S", 3, {2.25}, {{8'000'000'000'000, 3}}, 64}};
    r.paths = {{{0, 1}, {true, false}}, {{1}, {true}}};
    for (std::uint32_t i = 0; i < 4; ++i) {
        MessageRecord m;
        m.start = 10 * i;
        m.end = 10 * i + 7;
        m.src = i % 2;
        m.dst = 1 - i % 2;
        m.path = i % 2;
        m.kind = 0;
        m.request = 100 + i % 3;
        m.firstBlock = 16 * i;
        m.blockCount = 3 + i;
        m.bytes = 1024.5 * (i + 1);
        m.sender = i == 0 ? MessageSender::None : i % 2 ? MessageSender::Cache : MessageSender::Home;
        m.protocol = i == 3 ? MessageProtocol::PrefixPool : MessageProtocol::Kv;
        m.transition = static_cast<std::uint16_t>(300 * i);
        m.fromState = static_cast<std::uint8_t>(i);
        m.toState = static_cast<std::uint8_t>(250 - i);
        r.messages.push_back(m);
    }
    r.messagesTotal = 40;
    return r;
}

void expectEqual(const Distribution& a, const Distribution& b, const char* name)
{
    SCOPED_TRACE(name);
    EXPECT_EQ(a.count, b.count);
    EXPECT_EQ(a.mean, b.mean);
    EXPECT_EQ(a.p50, b.p50);
    EXPECT_EQ(a.p90, b.p90);
    EXPECT_EQ(a.p99, b.p99);
    EXPECT_EQ(a.max, b.max);
}

void expectEqual(const RunResult& a, const RunResult& b)
{
    EXPECT_EQ(a.scenarioName, b.scenarioName);
    EXPECT_EQ(a.seed, b.seed);
    EXPECT_EQ(a.nodeIds, b.nodeIds);
    EXPECT_EQ(a.linkIds, b.linkIds);
    EXPECT_EQ(a.instanceIds, b.instanceIds);

    const RunSummary &s = a.summary, &t = b.summary;
    EXPECT_EQ(s.requests, t.requests);
    EXPECT_EQ(s.completed, t.completed);
    EXPECT_EQ(s.outputTokens, t.outputTokens);
    EXPECT_EQ(s.makespan, t.makespan);
    expectEqual(s.ttftMs, t.ttftMs, "ttft");
    expectEqual(s.tpotMs, t.tpotMs, "tpot");
    expectEqual(s.e2eMs, t.e2eMs, "e2e");
    expectEqual(s.itlMs, t.itlMs, "itl");
    expectEqual(s.queueMs, t.queueMs, "queue");
    expectEqual(s.prefillMs, t.prefillMs, "prefill");
    expectEqual(s.admissionMs, t.admissionMs, "admission");
    expectEqual(s.transferMs, t.transferMs, "transfer");
    expectEqual(s.loadMs, t.loadMs, "load");
    expectEqual(s.firstDecodeMs, t.firstDecodeMs, "firstDecode");
    EXPECT_EQ(s.throughputTokensPerSec, t.throughputTokensPerSec);
    EXPECT_EQ(s.throughputRequestsPerSec, t.throughputRequestsPerSec);
    EXPECT_EQ(s.goodputRequestsPerSec, t.goodputRequestsPerSec);
    EXPECT_EQ(s.sloAttainment, t.sloAttainment);
    EXPECT_EQ(s.kvTransfers, t.kvTransfers);
    EXPECT_EQ(s.kvBytes, t.kvBytes);
    EXPECT_EQ(s.flows, t.flows);
    EXPECT_EQ(s.protocol, t.protocol);
    ASSERT_EQ(s.messagesByKind.size(), t.messagesByKind.size());
    for (std::size_t k = 0; k < s.messagesByKind.size(); ++k) {
        EXPECT_EQ(s.messagesByKind[k].name, t.messagesByKind[k].name);
        EXPECT_EQ(s.messagesByKind[k].data, t.messagesByKind[k].data);
        EXPECT_EQ(s.messagesByKind[k].count, t.messagesByKind[k].count);
        EXPECT_EQ(s.messagesByKind[k].bytes, t.messagesByKind[k].bytes);
        EXPECT_EQ(s.messagesByKind[k].role, t.messagesByKind[k].role);
    }
    ASSERT_EQ(s.links.size(), t.links.size());
    for (std::size_t k = 0; k < s.links.size(); ++k) {
        EXPECT_EQ(s.links[k].link, t.links[k].link);
        EXPECT_EQ(s.links[k].forward, t.links[k].forward);
        EXPECT_EQ(s.links[k].bytes, t.links[k].bytes);
        EXPECT_EQ(s.links[k].meanUtilization, t.links[k].meanUtilization);
        EXPECT_EQ(s.links[k].peakUtilization, t.links[k].peakUtilization);
    }
    EXPECT_EQ(s.staleness.reads, t.staleness.reads);
    EXPECT_EQ(s.staleness.staleReads, t.staleness.staleReads);
    EXPECT_EQ(s.staleness.readerWaits, t.staleness.readerWaits);
    EXPECT_EQ(s.staleness.decodeSteps, t.staleness.decodeSteps);
    EXPECT_EQ(s.staleness.staleSteps, t.staleness.staleSteps);
    EXPECT_EQ(s.staleness.readsByVersionsBehind, t.staleness.readsByVersionsBehind);
    EXPECT_EQ(s.staleness.staleAgeUs.p99, t.staleness.staleAgeUs.p99);
    EXPECT_EQ(s.staleness.boundVersions, t.staleness.boundVersions);
    EXPECT_EQ(s.staleness.boundAge, t.staleness.boundAge);
    EXPECT_EQ(s.prefixPool.enabled, t.prefixPool.enabled);
    EXPECT_EQ(s.prefixPool.hitTokens, t.prefixPool.hitTokens);
    EXPECT_EQ(s.prefixPool.storeBytes, t.prefixPool.storeBytes);
    EXPECT_EQ(s.prefixPool.evictions, t.prefixPool.evictions);
    EXPECT_EQ(s.eventsExecuted, t.eventsExecuted);
    EXPECT_EQ(s.wallSeconds, t.wallSeconds);
    EXPECT_EQ(s.eventsPerSecond, t.eventsPerSecond);

    ASSERT_EQ(a.requests.size(), b.requests.size());
    for (std::size_t i = 0; i < a.requests.size(); ++i) {
        SCOPED_TRACE(i);
        const auto &x = a.requests[i], &y = b.requests[i];
        EXPECT_EQ(x.id, y.id);
        EXPECT_EQ(x.promptTokens, y.promptTokens);
        EXPECT_EQ(x.outputTokens, y.outputTokens);
        EXPECT_EQ(x.prefillInstance, y.prefillInstance);
        EXPECT_EQ(x.decodeInstance, y.decodeInstance);
        EXPECT_EQ(x.arrival, y.arrival);
        EXPECT_EQ(x.prefillStart, y.prefillStart);
        EXPECT_EQ(x.prefillEnd, y.prefillEnd);
        EXPECT_EQ(x.transferStart, y.transferStart);
        EXPECT_EQ(x.kvReady, y.kvReady);
        EXPECT_EQ(x.decodeStart, y.decodeStart);
        EXPECT_EQ(x.firstToken, y.firstToken);
        EXPECT_EQ(x.finish, y.finish);
        EXPECT_EQ(x.decodeCompute, y.decodeCompute);
        EXPECT_EQ(x.decodeStall, y.decodeStall);
        EXPECT_EQ(x.decodeTransfer, y.decodeTransfer);
        EXPECT_EQ(x.staleReads, y.staleReads);
        EXPECT_EQ(x.staleSteps, y.staleSteps);
        EXPECT_EQ(x.cachedTokens, y.cachedTokens);
    }

    EXPECT_EQ(a.linkInterval, b.linkInterval);
    ASSERT_EQ(a.nodeBlocks.size(), b.nodeBlocks.size());
    for (std::size_t i = 0; i < a.nodeBlocks.size(); ++i) {
        EXPECT_EQ(a.nodeBlocks[i].node, b.nodeBlocks[i].node);
        EXPECT_EQ(a.nodeBlocks[i].state, b.nodeBlocks[i].state);
        EXPECT_EQ(a.nodeBlocks[i].peakBlocks, b.nodeBlocks[i].peakBlocks);
        EXPECT_EQ(a.nodeBlocks[i].blocksPerBucket, b.nodeBlocks[i].blocksPerBucket);
        EXPECT_EQ(a.nodeBlocks[i].steps, b.nodeBlocks[i].steps);
        EXPECT_EQ(a.nodeBlocks[i].stepResolution, b.nodeBlocks[i].stepResolution);
    }
    ASSERT_EQ(a.linkSeries.size(), b.linkSeries.size());
    for (std::size_t i = 0; i < a.linkSeries.size(); ++i) {
        const auto &x = a.linkSeries[i], &y = b.linkSeries[i];
        EXPECT_EQ(x.link, y.link);
        EXPECT_EQ(x.forward, y.forward);
        EXPECT_EQ(x.bandwidthBytesPerSec, y.bandwidthBytesPerSec);
        EXPECT_EQ(x.totalBytes, y.totalBytes);
        ASSERT_EQ(x.bytesPerBucket.size(), y.bytesPerBucket.size());
        for (std::size_t k = 0; k < x.bytesPerBucket.size(); ++k) // bitwise, so -0.0 stays -0.0
            EXPECT_EQ(std::bit_cast<std::uint64_t>(x.bytesPerBucket[k]),
                      std::bit_cast<std::uint64_t>(y.bytesPerBucket[k]));
    }

    ASSERT_EQ(a.paths.size(), b.paths.size());
    for (std::size_t i = 0; i < a.paths.size(); ++i) {
        EXPECT_EQ(a.paths[i].links, b.paths[i].links);
        EXPECT_EQ(a.paths[i].forward, b.paths[i].forward);
    }

    ASSERT_EQ(a.messages.size(), b.messages.size());
    for (std::size_t i = 0; i < a.messages.size(); ++i) {
        SCOPED_TRACE(i);
        const auto &x = a.messages[i], &y = b.messages[i];
        EXPECT_EQ(x.start, y.start);
        EXPECT_EQ(x.end, y.end);
        EXPECT_EQ(x.src, y.src);
        EXPECT_EQ(x.dst, y.dst);
        EXPECT_EQ(x.path, y.path);
        EXPECT_EQ(x.kind, y.kind);
        EXPECT_EQ(x.request, y.request);
        EXPECT_EQ(x.firstBlock, y.firstBlock);
        EXPECT_EQ(x.blockCount, y.blockCount);
        EXPECT_EQ(x.bytes, y.bytes);
        EXPECT_EQ(x.sender, y.sender);
        EXPECT_EQ(x.protocol, y.protocol);
        EXPECT_EQ(x.transition, y.transition);
        EXPECT_EQ(x.fromState, y.fromState);
        EXPECT_EQ(x.toState, y.toState);
    }
    EXPECT_EQ(a.messagesTotal, b.messagesTotal);
}

std::int64_t countRows(const std::string& path, const std::string& table, std::int64_t runId)
{
    SQLite::Database db(path);
    // Table names cannot be bound; these come from the test itself.
    SQLite::Statement q(db, "SELECT count(*) FROM " + table + " WHERE run_id = ?");
    q.bind(1, runId);
    q.executeStep();
    return q.getColumn(0).getInt64();
}

void expectNotARunDatabase(const std::string& path)
{
    try {
        RunStore store(path);
        FAIL() << "opened " << path;
    } catch (const InputError& e) {
        ASSERT_EQ(e.problems().size(), 1u);
        EXPECT_EQ(e.problems()[0].file, path);
        EXPECT_NE(e.problems()[0].message.find("not a Coherence Studio run database"), std::string::npos);
        EXPECT_NE(e.problems()[0].fix.find("--db"), std::string::npos);
    }
}

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
    EXPECT_EQ(info->flows, 40u);               // the event record's total (messages_total)
    EXPECT_EQ(info->messages, 60u + 39u);      // the kinds' counts (traffic_counts.h)
    EXPECT_EQ(info->decodeProtocol, "direct"); // the scenario names none
    EXPECT_EQ(reopened.scenarioJson(id), R"({"name": "from-json", "seed": 5})");
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
    for (const char* failAt : {"requests", "messages", "summary"}) {
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
    EXPECT_EQ(countRows(path, "request_metrics", kept), 3);
    EXPECT_EQ(countRows(path, "link_series", kept), 2);
    EXPECT_EQ(countRows(path, "node_blocks", kept), 2);
    EXPECT_EQ(countRows(path, "messages", kept), 4);
}

TEST(RunStore, MigratesAnEmptyFileToTheCurrentSchema)
{
    TempDir dir;
    const std::string path = dir.file("empty.db");
    std::ofstream(path).close();
    ASSERT_EQ(fs::file_size(path), 0u);
    {
        RunStore store(path);
    }
    SQLite::Database db(path);
    EXPECT_EQ(db.execAndGet("PRAGMA user_version").getInt(), runStoreSchemaVersion());
    EXPECT_GE(runStoreSchemaVersion(), 1);
    EXPECT_EQ(db.execAndGet("PRAGMA application_id").getInt(), kRunStoreApplicationId);
    EXPECT_EQ(db.execAndGet("PRAGMA journal_mode").getString(), "wal");
    for (const char* table : {"runs", "request_metrics", "link_series", "node_blocks", "messages"})
        EXPECT_TRUE(db.tableExists(table)) << table;
    // Reopening an up-to-date file changes nothing.
    RunStore again(path);
    EXPECT_TRUE(again.listRuns().empty());
}

TEST(RunStore, MigratesASchemaOneDatabaseKeepingItsRuns)
{
    // A schema-1 file: today's tables without the columns migrations 2 and 3 add (SQLite >= 3.35 drops columns)
    // and without migration 4's table.
    TempDir dir;
    const std::string path = dir.file("v1.db");
    std::int64_t id = 0;
    {
        RunStore store(path);
        id = store.beginRun("old", "{}", 3);
        store.completeRun(id, makeResult());
    }
    {
        SQLite::Database db(path, SQLite::OPEN_READWRITE);
        for (const char* sql :
             {"ALTER TABLE request_metrics DROP COLUMN decode_transfer_ns",
              "ALTER TABLE request_metrics DROP COLUMN stale_reads",
              "ALTER TABLE request_metrics DROP COLUMN stale_steps",
              "ALTER TABLE request_metrics DROP COLUMN cached_tokens", "DROP TABLE node_blocks",
              "ALTER TABLE messages DROP COLUMN sender", "ALTER TABLE messages DROP COLUMN protocol",
              "ALTER TABLE messages DROP COLUMN transition", "ALTER TABLE messages DROP COLUMN from_state",
              "ALTER TABLE messages DROP COLUMN to_state"})
            db.exec(sql);
        db.exec("PRAGMA user_version = 1");
    }
    RunStore store(path);
    const RunResult loaded = store.loadRun(id);
    ASSERT_EQ(loaded.requests.size(), makeResult().requests.size());
    EXPECT_EQ(loaded.requests[0].decodeStall, makeResult().requests[0].decodeStall);
    EXPECT_EQ(loaded.requests[0].decodeTransfer, 0); // the new columns' default
    EXPECT_EQ(loaded.requests[0].staleReads, 0u);
    EXPECT_EQ(loaded.requests[0].cachedTokens, 0u);
    EXPECT_TRUE(loaded.nodeBlocks.empty()); // runs stored before migration 4 have none
    SQLite::Database db(path);
    EXPECT_EQ(db.execAndGet("PRAGMA user_version").getInt(), runStoreSchemaVersion());
}

TEST(RunStore, MigratesASchemaFourDatabaseKeepingItsMessagesAndBlockSeries)
{
    // A schema-4 file: messages without the transition that sent them, node_blocks without exact steps.
    TempDir dir;
    const std::string path = dir.file("v4.db");
    std::int64_t id = 0;
    {
        RunStore store(path);
        id = store.beginRun("old", "{}", 3);
        store.completeRun(id, makeResult());
    }
    {
        SQLite::Database db(path, SQLite::OPEN_READWRITE);
        for (const char* column : {"sender", "protocol", "transition", "from_state", "to_state"})
            db.exec(std::string("ALTER TABLE messages DROP COLUMN ") + column);
        for (const char* column : {"step_resolution_ns", "steps"})
            db.exec(std::string("ALTER TABLE node_blocks DROP COLUMN ") + column);
        db.exec("PRAGMA user_version = 4");
    }
    RunStore store(path);
    const RunResult loaded = store.loadRun(id);
    const RunResult original = makeResult();
    ASSERT_EQ(loaded.messages.size(), original.messages.size());
    for (std::size_t i = 0; i < loaded.messages.size(); ++i) {
        EXPECT_EQ(loaded.messages[i].start, original.messages[i].start);
        EXPECT_EQ(loaded.messages[i].bytes, original.messages[i].bytes);
        EXPECT_EQ(loaded.messages[i].sender, MessageSender::None); // the new columns' defaults
        EXPECT_EQ(loaded.messages[i].protocol, MessageProtocol::Kv);
        EXPECT_EQ(loaded.messages[i].transition, 0u);
    }
    ASSERT_EQ(loaded.nodeBlocks.size(), original.nodeBlocks.size());
    for (std::size_t i = 0; i < loaded.nodeBlocks.size(); ++i) {
        EXPECT_EQ(loaded.nodeBlocks[i].blocksPerBucket, original.nodeBlocks[i].blocksPerBucket);
        EXPECT_TRUE(loaded.nodeBlocks[i].steps.empty()); // stored before schema 5: averages only
        EXPECT_EQ(loaded.nodeBlocks[i].stepResolution, 1);
    }
    SQLite::Database db(path);
    EXPECT_EQ(db.execAndGet("PRAGMA user_version").getInt(), runStoreSchemaVersion());
}

TEST(RunStore, OpensARunDatabaseWrittenBySchemaFour)
{
    // A file the schema-4 cohsim wrote (`cohsim run datasets/scenarios/default.json --max-requests 2`): 52
    // messages of the default scenario's MSI run and 5 (node, state) series, without transitions or steps.
    TempDir dir;
    const std::string path = dir.file("old.db");
    fs::copy_file(std::string(COH_TEST_DATA_DIR) + "/store/schema4-default-2-requests.db", path);
    RunStore store(path);
    const RunResult run = store.loadRun(1);
    ASSERT_EQ(run.messages.size(), 52u);
    for (const auto& m : run.messages) {
        EXPECT_EQ(m.sender, MessageSender::None);
        EXPECT_LT(m.kind, run.summary.messagesByKind.size());
    }
    ASSERT_EQ(run.nodeBlocks.size(), 5u);
    for (const auto& s : run.nodeBlocks) {
        EXPECT_FALSE(s.blocksPerBucket.empty());
        EXPECT_TRUE(s.steps.empty());
    }
    // New runs go in beside it with everything.
    const std::int64_t id = store.beginRun("new", "{}", 1);
    store.completeRun(id, makeResult());
    expectEqual(store.loadRun(id), makeResult());
}

TEST(RunStore, RefusesAFileOfGarbageBytes)
{
    TempDir dir;
    const std::string path = dir.file("garbage.db");
    {
        std::ofstream out(path, std::ios::binary);
        for (int i = 0; i < 4096; ++i)
            out.put(static_cast<char>((i * 131 + 7) & 0xFF));
    }
    expectNotARunDatabase(path);
}

TEST(RunStore, RefusesAnotherApplicationsSqliteDatabase)
{
    TempDir dir;
    const std::string path = dir.file("other.db");
    {
        SQLite::Database db(path, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
        db.exec("CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT)");
    }
    const auto before = fs::file_size(path);
    expectNotARunDatabase(path);
    EXPECT_EQ(fs::file_size(path), before);
    SQLite::Database db(path);
    EXPECT_FALSE(db.tableExists("runs")); // refused, not altered (test_run_store_trust.cpp compares every byte)
    EXPECT_EQ(db.execAndGet("PRAGMA user_version").getInt(), 0);
}

TEST(RunStore, RefusesADatabaseFromANewerVersion)
{
    TempDir dir;
    const std::string path = dir.file("runs.db");
    {
        RunStore store(path);
        SQLite::Database db(path, SQLite::OPEN_READWRITE);
        db.exec("PRAGMA user_version = " + std::to_string(runStoreSchemaVersion() + 1));
    }
    try {
        RunStore store(path);
        FAIL() << "opened a newer database";
    } catch (const InputError& e) {
        EXPECT_EQ(e.problems()[0].file, path);
        EXPECT_NE(e.problems()[0].fix.find("upgrade Coherence Studio"), std::string::npos);
    }
}

TEST(RunStore, CannotOpenInAMissingFolderSaysSo)
{
    TempDir dir;
    const std::string path = dir.file("no/such/folder/runs.db");
    try {
        RunStore store(path);
        FAIL();
    } catch (const InputError& e) {
        EXPECT_EQ(e.problems()[0].file, path);
        EXPECT_NE(e.problems()[0].fix.find("--db"), std::string::npos);
    }
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

TEST(DefaultPaths, FollowsXdgThenHomeAndCreatesTheFolder)
{
    TempDir dir;
    const std::string xdg = dir.file("xdg");
    EXPECT_EQ(defaultRunDatabasePath(xdg.c_str(), "/nonexistent-home"), xdg + "/coherence-studio/runs.db");
    EXPECT_TRUE(fs::is_directory(xdg + "/coherence-studio"));

    const std::string home = dir.file("home");
    EXPECT_EQ(defaultRunDatabasePath("relative/ignored", home.c_str()),
              home + "/.local/share/coherence-studio/runs.db");
    EXPECT_EQ(defaultRunDatabasePath("", home.c_str()), home + "/.local/share/coherence-studio/runs.db");
    EXPECT_TRUE(fs::is_directory(home + "/.local/share/coherence-studio"));
    EXPECT_THROW(defaultRunDatabasePath(nullptr, nullptr), InputError);
}

} // namespace
} // namespace coh::core
