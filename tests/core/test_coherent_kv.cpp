// The serving engine with a protocol table behind every KV access: the prefill -> decode transfer is a read
// miss served by the protocol, decode appends are writes that invalidate the prefill copy, and the traffic
// follows the textbook message sequences.
#include "core/engine/traffic_counts.h"
#include "core/serving/serving_engine.h"
#include "engine_fixtures.h"

#include <gtest/gtest.h>

namespace coh::test {
namespace {

// Messages of the protocol's message `name`, wherever they went: block data a cache sends home is counted
// under its own kind "<name> to home" (a write-back), the rest under `name`.
std::uint64_t countOf(const RunSummary& s, const std::string& name)
{
    std::uint64_t count = 0;
    bool found = false;
    for (const auto& k : s.messagesByKind) {
        if (k.name == name || k.name == name + " to home") {
            count += k.count;
            found = true;
        }
    }
    if (!found)
        ADD_FAILURE() << "no message kind " << name;
    return count;
}

std::uint64_t kindCount(const RunSummary& s, const std::string& kind)
{
    for (const auto& k : s.messagesByKind)
        if (k.name == kind)
            return k.count;
    ADD_FAILURE() << "no message kind " << kind;
    return 0;
}

Scenario coherentScenario(const std::string& protocol, HomePolicy home = HomePolicy::AllocatingNode,
                          const std::string& homeNode = {})
{
    Scenario s = twoGpuScenario();
    s.coherence.decode = s.coherence.prefill = protocol;
    s.coherence.home = home;
    s.coherence.homeNode = homeNode;
    return s;
}

TEST(CoherentKv, MsiReadMissIsGetSForwardedToThePrefillOwner)
{
    // 96 prompt tokens = 6 full blocks of 16: one group; 4 output tokens land in block 6.
    Workload w;
    w.requests.push_back({0, 96, 4, 0, 0});
    const RunResult r = runScenario(coherentScenario("msi-directory"), w);
    ASSERT_EQ(r.requests.size(), 1u);
    const RunSummary& s = r.summary;
    EXPECT_EQ(s.protocol, "msi-directory");
    // Prefill: GetM per block at the (local) home, Data from memory. Decode read: GetS, Fwd-GetS to owner P0,
    // Data to P1 and a copy back to the directory. New tail block 6: GetM and Data from memory.
    EXPECT_EQ(countOf(s, "GetM"), 6u + 1u);
    EXPECT_EQ(countOf(s, "GetS"), 6u);
    EXPECT_EQ(countOf(s, "Fwd-GetS"), 6u);
    EXPECT_EQ(countOf(s, "Data"), 6u /*prefill*/ + 12u /*read*/ + 1u /*new block*/);
    EXPECT_EQ(countOf(s, "Inv"), 0u);
    // Only the copy to P1 and the fresh block's data cross the link: 7 blocks of 16 x 256 B.
    EXPECT_DOUBLE_EQ(s.kvBytes, 7 * 4096.0);
    // The read miss takes a GetS over the link (6 x 64 B) and the data back (6 x 4096 B), each with 1 us.
    EXPECT_EQ(r.requests[0].transfer(), (1'000 + 384) + (1'000 + 24'576));
}

double peakOf(const RunResult& r, const std::string& node, const std::string& state)
{
    for (const auto& s : r.nodeBlocks)
        if (r.nodeIds[s.node] == node && s.state == state)
            return s.peakBlocks;
    return 0;
}

TEST(CoherentKv, NodesHoldTheirBlocksInTheProtocolsStatesOverTime)
{
    // 96 prompt tokens = 6 blocks written by prefill (M at p0), read by decode (S at both), then a new tail
    // block 6 appended by decode (M at d0). Everything is dropped when the request finishes.
    Workload w;
    w.requests.push_back({0, 96, 4, 0, 0});
    Scenario s = coherentScenario("msi-directory");
    s.metrics.linkInterval = kMillisecond;
    const RunResult r = runScenario(s, w);
    EXPECT_EQ(peakOf(r, "p0", "M"), 6.0);
    EXPECT_EQ(peakOf(r, "p0", "S"), 6.0);
    EXPECT_EQ(peakOf(r, "d0", "S"), 6.0);
    EXPECT_EQ(peakOf(r, "d0", "M"), 1.0);
    EXPECT_EQ(peakOf(r, "p0", "I"), 0.0); // I holds no data: never counted
    // Time-averaged per bucket: never above the peak, and the last bucket ends with nothing held.
    for (const auto& series : r.nodeBlocks) {
        ASSERT_FALSE(series.blocksPerBucket.empty());
        for (double b : series.blocksPerBucket) {
            EXPECT_GE(b, 0.0);
            EXPECT_LE(b, series.peakBlocks + 1e-9);
        }
    }
    // The plain copy has no protocol states to show.
    Workload w2 = w;
    EXPECT_TRUE(runScenario(twoGpuScenario(), w2).nodeBlocks.empty());
}

TEST(CoherentKv, MsiAppendToASharedTailInvalidatesThePrefillCopyAndStallsOnce)
{
    // 100 prompt tokens: 6 full blocks plus a tail block holding 4 tokens, shared after the read.
    Workload w;
    w.requests.push_back({0, 100, 5, 0, 0});
    const RunResult r = runScenario(coherentScenario("msi-directory"), w);
    ASSERT_EQ(r.requests.size(), 1u);
    const RunSummary& s = r.summary;
    // The first append finds the tail in S at P1: GetM, Data with one ack owed, Inv to P0, Inv-Ack to P1.
    EXPECT_EQ(countOf(s, "Inv"), 1u);
    EXPECT_EQ(countOf(s, "Inv-Ack"), 1u);
    EXPECT_EQ(trafficCounts(s).invalidations, 1u);
    EXPECT_EQ(s.upgrades, 1u); // that append upgraded P1's readable copy
    // The decode read's Fwd-GetS sends P0's 7 blocks to P1 and writes them back to the home (MSI's S/S).
    EXPECT_EQ(trafficCounts(s).writebacks, 7u);
    EXPECT_EQ(kindCount(s, "Data to home"), 7u);
    // Steps 2..5 append to the tail in M: hits, so only the first token's step waited (not part of TPOT).
    EXPECT_EQ(r.requests[0].decodeStall, 0);
    EXPECT_GT(r.requests[0].firstDecode(), r.requests[0].decodeCompute / 4);
}

TEST(CoherentKv, EveryNewBlockCostsARoundTripToTheHome)
{
    // 96 prompt tokens and 17 output tokens: decode opens block 6 (tokens 97..112) and block 7 (113).
    Workload w;
    w.requests.push_back({0, 96, 17, 0, 0});
    const RunResult r = runScenario(coherentScenario("msi-directory"), w);
    ASSERT_EQ(r.requests.size(), 1u);
    // Block 7's GetM and Data cross the 1 us link both ways: that step waits 2 x 1 us + (64 + 4096) B / 1 GB/s,
    // of which the Data's wire time is transfer and the GetM's is coherence stall.
    EXPECT_EQ(r.requests[0].decodeTransfer, 1'000 + 4'096);
    EXPECT_EQ(r.requests[0].decodeStall, 1'000 + 64);
    EXPECT_EQ(countOf(r.summary, "GetM"), 6u + 2u);
}

TEST(CoherentKv, HomeAtTheDecodeNodeMovesTheRoundTripToTheRead)
{
    Workload w;
    w.requests.push_back({0, 96, 17, 0, 0});
    const RunResult r = runScenario(coherentScenario("msi-directory", HomePolicy::Node, "d0"), w);
    ASSERT_EQ(r.requests.size(), 1u);
    // New blocks are allocated at a local home: no stall for block 7.
    EXPECT_EQ(r.requests[0].decodeStall, 0);
    // But prefill's writes now cross the link (GetM there, Data back), and the read waits for them: the
    // GetM round trip (384 B over, 24,576 B back), then GetS locally, Fwd-GetS to P0 and the data back,
    // sharing the link with P0's copy to the directory.
    EXPECT_GT(r.summary.kvBytes, 7 * 4096.0);
    EXPECT_GT(r.requests[0].transfer(), (1'000 + 384) + (1'000 + 24'576) + (1'000 + 384) + (1'000 + 24'576));
    EXPECT_EQ(countOf(r.summary, "Inv"), 0u); // the read never overtakes the write
}

TEST(CoherentKv, MoesiKeepsTheOwnerInsteadOfWritingBackOnARead)
{
    Workload w;
    w.requests.push_back({0, 96, 1, 0, 0});
    const RunResult msi = runScenario(coherentScenario("msi-directory"), w);
    const RunResult moesi = runScenario(coherentScenario("moesi-directory"), w);
    // MSI sends Data to the reader and to the directory; MOESI only to the reader (the owner goes to O).
    // (the one decode step opens block 6: one more Data from memory in both)
    EXPECT_EQ(countOf(msi.summary, "Data"), 6u + 12u + 1u);
    EXPECT_EQ(countOf(moesi.summary, "Data"), 6u + 6u + 1u);
    // Write-backs count that Data to the directory although its message is named Data, not PutM: it is its own
    // kind, "Data to home", with the writeback role the replay's legend counts.
    EXPECT_EQ(kindCount(msi.summary, "Data to home"), 6u);
    EXPECT_EQ(kindCount(msi.summary, "Data"), 6u + 6u + 1u);
    EXPECT_EQ(trafficCounts(msi.summary).writebacks, 6u);
    EXPECT_EQ(trafficCounts(msi.summary).messagesOf(coherence::MessageRole::Writeback), 6u);
    EXPECT_EQ(trafficCounts(moesi.summary).writebacks, 0u);
}

TEST(CoherentKv, EveryProtocolCompletesALoadedRunWithItsInvariantsHeld)
{
    for (const std::string protocol : {"msi-directory", "mesi-directory", "moesi-directory"}) {
        for (const auto home : {HomePolicy::AllocatingNode, HomePolicy::Hashed}) {
            Scenario s = coherentScenario(protocol, home);
            s.serving.prefillMaxBatchSize = 4;
            const Workload w = poissonWorkload(300, 3.0, 150, 40, 11);
            const RunResult r = runScenario(s, w);
            EXPECT_EQ(r.summary.completed, 300u) << protocol;
            EXPECT_GT(trafficCounts(r.summary).dataBytes, 0.0) << protocol;
            EXPECT_GT(trafficCounts(r.summary).controlBytes, 0.0) << protocol;
            const RunResult again = runScenario(s, w);
            EXPECT_EQ(again.summary.ttftMs.p99, r.summary.ttftMs.p99) << protocol;
            EXPECT_EQ(trafficCounts(again.summary).messages, trafficCounts(r.summary).messages) << protocol;
        }
    }
}

} // namespace
} // namespace coh::test

namespace coh::test {
namespace {

TEST(CoherentKv, MigratoryHandsTheBlocksToDecodeWithoutWriteBackOrInvalidation)
{
    // 100 prompt tokens: 6 full blocks and a 4-token tail, read by decode and then appended to 5 times.
    Workload w;
    w.requests.push_back({0, 100, 5, 0, 0});
    const RunResult msi = runScenario(coherentScenario("msi-directory"), w);
    const RunResult mig = runScenario(coherentScenario("migratory"), w);
    ASSERT_EQ(mig.summary.completed, 1u);
    EXPECT_EQ(mig.summary.protocol, "migratory");
    // The read moves all 7 blocks to decode: GetS, Fwd-GetS and Migratory-Data each, nothing back to memory.
    EXPECT_EQ(countOf(mig.summary, "GetS"), 7u);
    EXPECT_EQ(countOf(mig.summary, "Migratory-Data"), 7u);
    EXPECT_EQ(countOf(mig.summary, "Data"), 7u); // prefill's GetM data from memory only
    // The appends hit the migrated tail in M; MSI upgrades the shared tail with an invalidation first.
    EXPECT_EQ(countOf(mig.summary, "Inv"), 0u);
    EXPECT_EQ(countOf(msi.summary, "Inv"), 1u);
    EXPECT_EQ(countOf(msi.summary, "Data"), 7u + 14u + 1u); // and the upgrade's Data from memory
    EXPECT_EQ(mig.requests[0].decodeStall, 0);
}

TEST(CoherentKv, UnifiedMemoryMakesEveryDecodeStepARoundTripToTheHome)
{
    // 96 prompt tokens and 17 output tokens: 6 prompt blocks, decode opens blocks 6 and 7.
    Workload w;
    w.requests.push_back({0, 96, 17, 0, 0});
    const RunResult r = runScenario(coherentScenario("unified-memory"), w);
    ASSERT_EQ(r.summary.completed, 1u);
    const RunSummary& s = r.summary;
    // One request and one response per access, and nothing else.
    EXPECT_EQ(countOf(s, "Read"), countOf(s, "Read-Data"));
    EXPECT_EQ(countOf(s, "Write"), countOf(s, "Write-Ack"));
    for (const auto& k : s.messagesByKind) {
        if (k.count > 0) {
            EXPECT_TRUE(k.name == "Read" || k.name == "Write" || k.name == "Read-Data" || k.name == "Write-Ack")
                << k.name;
        }
    }
    // A write-through's Write is a request that carries the value, not a write-back (one copy, nothing to
    // write back).
    EXPECT_EQ(trafficCounts(s).writebacks, 0u);
    // No copy is kept, so no decode step hits: every one re-reads the sequence's blocks across the link.
    EXPECT_GT(countOf(s, "Read"), 6u * 16u);
    EXPECT_GT(r.requests[0].decodeStall, 0);
    const RunResult msi = runScenario(coherentScenario("msi-directory"), w);
    EXPECT_GT(r.requests[0].decodeStall, msi.requests[0].decodeStall);
}

TEST(CoherentKv, MigratoryUnifiedMemoryAndSnoopingCompleteALoadedRunWithTheirInvariantsHeld)
{
    const Workload w = poissonWorkload(300, 3.0, 150, 40, 11);
    for (const auto home : {HomePolicy::AllocatingNode, HomePolicy::Hashed}) {
        Scenario s = coherentScenario("msi-directory", home);
        s.serving.prefillMaxBatchSize = 4;
        const RunResult msi = runScenario(s, w);
        s.coherence.decode = s.coherence.prefill = "migratory";
        const RunResult mig = runScenario(s, w);
        s.coherence.decode = s.coherence.prefill = "unified-memory";
        const RunResult um = runScenario(s, w);
        s.coherence.decode = s.coherence.prefill = "mesi-snooping";
        const RunResult snoop = runScenario(s, w);
        EXPECT_EQ(snoop.summary.completed, 300u);
        EXPECT_EQ(mig.summary.completed, 300u);
        EXPECT_EQ(um.summary.completed, 300u);
        // Migratory: every read of a dirty block migrates it, so decode never invalidates prefill's copy.
        EXPECT_EQ(countOf(mig.summary, "Migratory-Data"), countOf(mig.summary, "Fwd-GetS"));
        EXPECT_EQ(countOf(mig.summary, "Inv"), 0u);
        EXPECT_GT(countOf(msi.summary, "Inv"), 0u);
        // Unified memory: one response per request, and decode waits on the link at every step.
        EXPECT_EQ(countOf(um.summary, "Read"), countOf(um.summary, "Read-Data"));
        EXPECT_EQ(countOf(um.summary, "Write"), countOf(um.summary, "Write-Ack"));
        EXPECT_GT(um.summary.tpotStallMs.mean, 10 * msi.summary.tpotStallMs.mean);
        // Snooping: with two caches every bus request is snooped and answered once, and frees the bus once.
        const std::uint64_t requests =
            countOf(snoop.summary, "BusRd") + countOf(snoop.summary, "BusRdX") + countOf(snoop.summary, "BusUpgr");
        EXPECT_EQ(countOf(snoop.summary, "Snoop-Ack"), requests);
        EXPECT_EQ(countOf(snoop.summary, "Unblock"), requests);
        EXPECT_GT(trafficCounts(snoop.summary).messages, trafficCounts(msi.summary).messages);
    }
}

TEST(CoherentKv, MesiSnoopingBroadcastsEveryBusRequestAndSendsMoreThanTheDirectory)
{
    // 100 prompt tokens: 6 full blocks and a 4-token tail, read by decode and then appended to 5 times.
    Workload w;
    w.requests.push_back({0, 100, 5, 0, 0});
    const RunResult dir = runScenario(coherentScenario("mesi-directory"), w);
    const RunResult snoop = runScenario(coherentScenario("mesi-snooping"), w);
    ASSERT_EQ(snoop.summary.completed, 1u);
    const RunSummary& s = snoop.summary;
    // Prefill: a BusRdX per block; decode: a BusRd per block, flushed by the prefill owner (to decode and memory);
    // the first append: a BusUpgr of the shared tail. With two caches every request reaches the one other cache.
    EXPECT_EQ(countOf(s, "BusRdX"), 7u);
    EXPECT_EQ(countOf(s, "BusRd"), 7u);
    EXPECT_EQ(countOf(s, "BusUpgr"), 1u);
    EXPECT_EQ(countOf(s, "Snoop-RdX") + countOf(s, "Snoop-Rd") + countOf(s, "Snoop-Upgr"), 15u);
    EXPECT_EQ(countOf(s, "Snoop-Ack"), 15u);
    EXPECT_EQ(countOf(s, "Unblock"), 15u);
    EXPECT_EQ(countOf(s, "Flush"), 14u);
    EXPECT_EQ(countOf(s, "Upgr-Ack"), 1u); // the upgrade moves no data
    std::uint64_t snoopTotal = 0, dirTotal = 0;
    for (const auto& k : s.messagesByKind)
        snoopTotal += k.count;
    for (const auto& k : dir.summary.messagesByKind)
        dirTotal += k.count;
    EXPECT_EQ(dirTotal, 7u * 2u /*GetM, Data*/ + 7u * 4u /*GetS, Fwd-GetS, 2 Data*/ + 4u /*GetM, Data, Inv, Ack*/);
    EXPECT_EQ(snoopTotal, 7u * 5u + 7u * 6u + 5u);
    EXPECT_EQ(snoop.requests[0].decodeStall, 0);
}

} // namespace
} // namespace coh::test

namespace coh::test {
namespace {

TEST(CoherentKv, CxlAsymmetricFlipsEveryPrefillBlockThroughTheHostAndAppendsInDeviceBias)
{
    // 100 prompt tokens: 6 full blocks and a 4-token tail, read by decode and then appended to 5 times.
    Workload w;
    w.requests.push_back({0, 100, 5, 0, 0});
    const RunResult cxl = runScenario(coherentScenario("cxl-asymmetric"), w);
    ASSERT_EQ(cxl.summary.completed, 1u);
    const RunSummary& s = cxl.summary;
    // Prefill's RdOwn puts each of the 7 blocks in device bias at P0; decode's read flips each back through the
    // host (RdShared, BiasFlip-Req, BiasFlip-Ack, Data); the first append takes the shared tail with RdOwn,
    // snooping P0 out, and the other four hit in device bias.
    EXPECT_EQ(countOf(s, "RdOwn"), 7u + 1u);
    EXPECT_EQ(countOf(s, "RdShared"), 7u);
    EXPECT_EQ(countOf(s, "BiasFlip-Req"), 7u);
    EXPECT_EQ(countOf(s, "BiasFlip-Ack"), 7u);
    EXPECT_EQ(countOf(s, "Data"), 7u + 7u + 1u);
    EXPECT_EQ(countOf(s, "SnpInv"), 1u);
    EXPECT_EQ(countOf(s, "RspI"), 1u);
    std::uint64_t total = 0;
    for (const auto& k : s.messagesByKind)
        total += k.count;
    EXPECT_EQ(total, 8u + 7u * 3u + 15u + 2u);
    EXPECT_EQ(cxl.requests[0].decodeStall, 0);
}

TEST(CoherentKv, CxlAsymmetricCompletesALoadedRunWithItsInvariantsHeld)
{
    const Workload w = poissonWorkload(300, 3.0, 150, 40, 11);
    for (const auto home : {HomePolicy::AllocatingNode, HomePolicy::Hashed}) {
        Scenario s = coherentScenario("cxl-asymmetric", home);
        s.serving.prefillMaxBatchSize = 4;
        const RunResult cxl = runScenario(s, w);
        EXPECT_EQ(cxl.summary.completed, 300u);
        // Every decode read of a prefill block is one flip: the owner always answers with its data via the host.
        EXPECT_EQ(countOf(cxl.summary, "BiasFlip-Req"), countOf(cxl.summary, "BiasFlip-Ack"));
        EXPECT_EQ(countOf(cxl.summary, "RdShared"), countOf(cxl.summary, "BiasFlip-Req"));
        EXPECT_EQ(countOf(cxl.summary, "SnpInv"), countOf(cxl.summary, "RspI"));
    }
}

} // namespace
} // namespace coh::test

namespace coh::test {
namespace {

std::uint64_t totalMessages(const RunSummary& s)
{
    std::uint64_t total = 0;
    for (const auto& k : s.messagesByKind)
        total += k.count;
    return total;
}

bool hasKind(const RunSummary& s, const std::string& kind)
{
    for (const auto& k : s.messagesByKind)
        if (k.name == kind)
            return true;
    return false;
}

TEST(CoherentKv, SealedLeaseGrantsDecodeLeasesOnTheFullBlocksAndHandsItTheOpenTail)
{
    // 100 prompt tokens: 6 full blocks and a 4-token tail; decode appends 5 tokens to the tail.
    Workload w;
    w.requests.push_back({0, 100, 5, 0, 0});
    const RunResult sealed = runScenario(coherentScenario("sealed-lease"), w);
    const RunResult msi = runScenario(coherentScenario("msi-directory"), w);
    ASSERT_EQ(sealed.summary.completed, 1u);
    const RunSummary& s = sealed.summary;
    // Prefill takes each of the 7 open blocks (GetW, Data). Decode's read of each full block seals it: Lease-Req,
    // Seal to prefill, Publish to the master, Lease-Grant. The open tail is acquired for writing instead (GetW,
    // Fwd-GetW, Data from prefill), and decode's appends then hit. Nothing is invalidated or written back.
    EXPECT_EQ(countOf(s, "GetW"), 7u + 1u);
    EXPECT_EQ(countOf(s, "Data"), 7u + 1u);
    EXPECT_EQ(countOf(s, "Fwd-GetW"), 1u);
    EXPECT_EQ(countOf(s, "Lease-Req"), 6u);
    EXPECT_EQ(countOf(s, "Seal"), 6u);
    EXPECT_EQ(countOf(s, "Publish"), 6u);
    EXPECT_EQ(countOf(s, "Lease-Grant"), 6u);
    EXPECT_EQ(countOf(s, "Put"), 0u);
    EXPECT_FALSE(hasKind(s, "Inv"));
    EXPECT_EQ(totalMessages(s), 16u + 24u + 1u);
    EXPECT_EQ(totalMessages(msi.summary), 46u); // MSI also writes back, and upgrades the shared tail with an Inv
    EXPECT_EQ(sealed.requests[0].decodeStall, 0);
}

TEST(CoherentKv, SealedLeaseCompletesALoadedRunWithItsInvariantsHeldAndFewerMessagesThanMsi)
{
    const Workload w = poissonWorkload(300, 3.0, 150, 40, 11);
    for (const auto home : {HomePolicy::AllocatingNode, HomePolicy::Hashed}) {
        Scenario s = coherentScenario("msi-directory", home);
        s.serving.prefillMaxBatchSize = 4;
        const RunResult msi = runScenario(s, w);
        s.coherence.decode = s.coherence.prefill = "sealed-lease";
        const RunResult sealed = runScenario(s, w);
        EXPECT_EQ(sealed.summary.completed, 300u);
        // Every lease on a prefill block is one seal; only decode's takeovers of open tails forward a GetW.
        EXPECT_EQ(countOf(sealed.summary, "Lease-Grant"), countOf(sealed.summary, "Lease-Req"));
        EXPECT_EQ(countOf(sealed.summary, "Seal"), countOf(sealed.summary, "Publish"));
        EXPECT_EQ(countOf(sealed.summary, "Seal"), countOf(sealed.summary, "Lease-Req"));
        EXPECT_EQ(countOf(sealed.summary, "Write-Refused"), 0u);
        EXPECT_EQ(countOf(sealed.summary, "Put"), 0u);
        EXPECT_GT(countOf(sealed.summary, "Fwd-GetW"), 0u);
        EXPECT_GT(countOf(msi.summary, "Inv"), 0u);
        EXPECT_LT(totalMessages(sealed.summary), totalMessages(msi.summary));
    }
}

TEST(CoherentKv, LazyCausalKeepsDecodesReplicasAndSendsEveryStoreToTheHome)
{
    Workload w;
    w.requests.push_back({0, 100, 5, 0, 0});
    const RunResult r = runScenario(coherentScenario("lazy-causal"), w);
    ASSERT_EQ(r.summary.completed, 1u);
    const RunSummary& s = r.summary;
    // Prefill becomes the writer of its 7 blocks (GetW, Data) and sends each store to the home (Update, AckCount
    // 0: no replica yet). Decode reads all 7 (GetS, Read-Data) without stopping prefill from writing; its first
    // append takes the tail's writer role over (GetW, Fwd-GetW, Data) and each of its 5 appends is an Update.
    EXPECT_EQ(countOf(s, "GetW"), 7u + 1u);
    EXPECT_EQ(countOf(s, "Data"), 7u + 1u);
    EXPECT_EQ(countOf(s, "Fwd-GetW"), 1u);
    EXPECT_EQ(countOf(s, "GetS"), 7u);
    EXPECT_EQ(countOf(s, "Read-Data"), 7u);
    EXPECT_EQ(countOf(s, "Update"), 7u + 5u);
    EXPECT_EQ(countOf(s, "AckCount"), 7u + 5u);
    EXPECT_EQ(countOf(s, "Fwd-Update"), 0u); // prefill dropped the tail when it handed it over
    EXPECT_EQ(countOf(s, "Put"), 0u);
    EXPECT_FALSE(hasKind(s, "Inv"));
}

TEST(CoherentKv, LazyCausalCompletesALoadedRunWithItsInvariantsHeldAndNeverInvalidates)
{
    // A load more than one version stale fails the run, so completing every request means the bound held.
    const Workload w = poissonWorkload(300, 3.0, 150, 40, 11);
    for (const auto home : {HomePolicy::AllocatingNode, HomePolicy::Hashed}) {
        Scenario s = coherentScenario("lazy-causal", home);
        s.serving.prefillMaxBatchSize = 4;
        const RunResult r = runScenario(s, w);
        EXPECT_EQ(r.summary.completed, 300u);
        EXPECT_FALSE(hasKind(r.summary, "Inv"));
        // Every store is sent to the home, and the home answers each with the number of acks to expect.
        EXPECT_GT(countOf(r.summary, "Update"), 0u);
        EXPECT_EQ(countOf(r.summary, "AckCount"), countOf(r.summary, "Update"));
        EXPECT_EQ(countOf(r.summary, "Update-Ack"), countOf(r.summary, "Fwd-Update"));
        const RunResult again = runScenario(s, w);
        EXPECT_EQ(trafficCounts(again.summary).messages, trafficCounts(r.summary).messages);
    }
}

TEST(CoherentKv, LazyCausalReadOvertakingTheUpdateIsStaleWithinTheBound)
{
    // The home sits at the decode node: prefill's Update crosses the link to it while decode's GetS is local, so
    // decode's read of all 7 blocks returns memory one version behind prefill's write (allowed: bound 1).
    Workload w;
    w.requests.push_back({0, 100, 5, 0, 0});
    const RunResult r = runScenario(coherentScenario("lazy-causal", HomePolicy::Node, "d0"), w);
    ASSERT_EQ(r.summary.completed, 1u);
    const StalenessSummary& st = r.summary.staleness;
    EXPECT_EQ(st.boundVersions, 1);
    // The first decode step starts at once and reads the 6 full blocks again while their Update (6 x 4096 B on
    // the 1 GB/s link) is still on its way: 7 + 6 stale block reads, in one decode step of the 5.
    EXPECT_EQ(st.staleReads, 7u + 6u);
    EXPECT_EQ(st.readerWaits, 0u);
    ASSERT_EQ(st.readsByVersionsBehind.size(), 2u);
    EXPECT_EQ(st.readsByVersionsBehind[1], 13u);
    EXPECT_EQ(st.reads, st.readsByVersionsBehind[0] + st.readsByVersionsBehind[1]);
    EXPECT_EQ(r.requests[0].staleReads, 13u);
    EXPECT_EQ(r.requests[0].staleSteps, 1u);
    EXPECT_EQ(st.staleSteps, 1u);
    EXPECT_EQ(st.decodeSteps, 5u);
    // One age per group read: full blocks and tail at the read, the full blocks again at the step. All three
    // happen the instant prefill's store completes (the GetS is local, the decode step starts at once).
    EXPECT_EQ(st.staleAgeUs.count, 3u);
    EXPECT_EQ(st.staleAgeUs.max, 0.0);
}

TEST(CoherentKv, LazyCausalReaderBeyondItsBoundWaitsForTheUpdate)
{
    Workload w;
    w.requests.push_back({0, 100, 5, 0, 0});
    Scenario lazy = coherentScenario("lazy-causal", HomePolicy::Node, "d0");
    const RunResult stale = runScenario(lazy, w);
    lazy.coherence.staleness.maxVersions = 0; // every read must see the latest version
    const RunResult strict = runScenario(lazy, w);
    ASSERT_EQ(strict.summary.completed, 1u);
    const StalenessSummary& st = strict.summary.staleness;
    EXPECT_EQ(st.boundVersions, 0);
    EXPECT_EQ(st.staleReads, 0u);
    EXPECT_EQ(st.readerWaits, 7u);
    EXPECT_EQ(st.readsByVersionsBehind.size(), 1u);
    EXPECT_EQ(strict.requests[0].staleReads, 0u);
    // The wait lasts until the Update has crossed the link and been forwarded: at least the 6 full blocks'
    // Update on the 1 us, 1 GB/s link (6 x 4096 B) after the stale read would have returned.
    EXPECT_GE(strict.requests[0].transfer() - stale.requests[0].transfer(), 1'000 + 6 * 4'096);
    // Same messages: waiting changes when the read returns, not what the protocol sends.
    EXPECT_EQ(trafficCounts(strict.summary).messages, trafficCounts(stale.summary).messages);
}

TEST(CoherentKv, StrongProtocolsNeverReadStale)
{
    const Workload w = poissonWorkload(100, 3.0, 150, 40, 5);
    for (const char* protocol : {"msi-directory", "moesi-directory", "mesi-snooping", "migratory"}) {
        SCOPED_TRACE(protocol);
        const RunResult r = runScenario(coherentScenario(protocol, HomePolicy::Node, "d0"), w);
        EXPECT_EQ(r.summary.staleness.boundVersions, 0);
        EXPECT_EQ(r.summary.staleness.staleReads, 0u);
        EXPECT_GT(r.summary.staleness.reads, 0u);
        EXPECT_EQ(r.summary.staleness.decodeSteps, r.summary.outputTokens);
    }
}

} // namespace
} // namespace coh::test
