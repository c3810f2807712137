#include "run_store_fixtures.h"

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Statement.h>
#include <gtest/gtest.h>

#include <bit>
#include <limits>

namespace coh::test {

using namespace coh::core;

namespace {

Distribution distribution(double base)
{
    return {static_cast<std::uint64_t>(base * 10), base, base + 0.25, base + 0.5, base + 0.75, base + 1.125};
}

} // namespace

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
    s.prefixPool = {true, "sealed-lease", 1000, 512, 65536.0, 131072.0, 40, 12, 3};
    s.lease = {250'000'000, false, 60, 7, 5, 0, 900};
    s.sharedPrefix = {true, 512, 20, 10240, 20, 6, 26, 4, 900, 30, 0, 3, 800, 2, 44, 2.9e9};
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
    // Two decode iterations of instance 1; the second waited on nothing. Context tokens beyond 32 bits.
    r.summary.decodeIterations = 9;
    r.iterations = {{100, 130, 190, 1, 2, 5'000'000'000ull}, {190, 190, 250, 1, 3, 7}};
    return r;
}

namespace {

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

} // namespace

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
    EXPECT_EQ(s.decodeIterations, t.decodeIterations);
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
    EXPECT_EQ(s.lease.ttl, t.lease.ttl);
    EXPECT_EQ(s.lease.refetch, t.lease.refetch);
    EXPECT_EQ(s.lease.grants, t.lease.grants);
    EXPECT_EQ(s.lease.expiredReads, t.lease.expiredReads);
    EXPECT_EQ(s.lease.expiredSteps, t.lease.expiredSteps);
    EXPECT_EQ(s.lease.refetches, t.lease.refetches);
    EXPECT_EQ(s.lease.leasedReads, t.lease.leasedReads);
    EXPECT_EQ(s.sharedPrefix.enabled, t.sharedPrefix.enabled);
    EXPECT_EQ(s.sharedPrefix.blockTokens, t.sharedPrefix.blockTokens);
    EXPECT_EQ(s.sharedPrefix.blocks, t.sharedPrefix.blocks);
    EXPECT_EQ(s.sharedPrefix.sharedTokens, t.sharedPrefix.sharedTokens);
    EXPECT_EQ(s.sharedPrefix.writes, t.sharedPrefix.writes);
    EXPECT_EQ(s.sharedPrefix.writesSkipped, t.sharedPrefix.writesSkipped);
    EXPECT_EQ(s.sharedPrefix.acquires, t.sharedPrefix.acquires);
    EXPECT_EQ(s.sharedPrefix.acquireHits, t.sharedPrefix.acquireHits);
    EXPECT_EQ(s.sharedPrefix.reads, t.sharedPrefix.reads);
    EXPECT_EQ(s.sharedPrefix.readMisses, t.sharedPrefix.readMisses);
    EXPECT_EQ(s.sharedPrefix.staleReads, t.sharedPrefix.staleReads);
    EXPECT_EQ(s.sharedPrefix.peakHolders, t.sharedPrefix.peakHolders);
    EXPECT_EQ(s.sharedPrefix.capacityBlocks, t.sharedPrefix.capacityBlocks);
    EXPECT_EQ(s.sharedPrefix.evictions, t.sharedPrefix.evictions);
    EXPECT_EQ(s.sharedPrefix.transfers, t.sharedPrefix.transfers);
    EXPECT_EQ(s.sharedPrefix.bytes, t.sharedPrefix.bytes);
    EXPECT_EQ(s.prefixPool.enabled, t.prefixPool.enabled);
    EXPECT_EQ(s.prefixPool.protocol, t.prefixPool.protocol);
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
    ASSERT_EQ(a.iterations.size(), b.iterations.size());
    for (std::size_t i = 0; i < a.iterations.size(); ++i) {
        SCOPED_TRACE(i);
        const auto &x = a.iterations[i], &y = b.iterations[i];
        EXPECT_EQ(x.start, y.start);
        EXPECT_EQ(x.computeStart, y.computeStart);
        EXPECT_EQ(x.end, y.end);
        EXPECT_EQ(x.instance, y.instance);
        EXPECT_EQ(x.sequences, y.sequences);
        EXPECT_EQ(x.contextTokens, y.contextTokens);
    }
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

} // namespace coh::test
