// The real-cpu backend: the same engine and protocols over real copies between worker threads' memories.
#include "core/base/input_error.h"
#include "core/coherence/protocol_registry.h"
#include "core/engine/traffic_counts.h"
#include "core/gpu/cuda_devices.h"
#include "core/real/backend.h"
#include "core/real/copy_check.h"
#include "core/real/gpu_nodes.h"
#include "core/real/node_workers.h"
#include "core/real/payload_checksum.h"
#include "core/real/stale_read.h"
#include "core/serving/kv_pool_text.h"
#include "core/serving/measured_compute.h"
#include "core/serving/own_costs_text.h"
#include "core/serving/serving_engine.h"
#include "core/store/backend_json.h"
#include "core/store/run_and_store.h"
#include "decode_step_fixtures.h"
#include "engine_fixtures.h"
#include "real_run_fixtures.h"
#include "temp_dir.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include <limits>
#include <map>
#include <random>

namespace coh::test {
namespace {

std::vector<std::string> protocolsAndDirect()
{
    std::vector<std::string> names{"direct"};
    for (const auto& p : coherence::allProtocols())
        if (!p.bugHunt) // the broken variants stop any run at their first violation
            names.push_back(p.name);
    return names;
}

class RealRuns : public OnEachRealBackend {
  protected:
    BackendOptions backend() const
    {
        BackendOptions b = realCpu();
        b.name = GetParam();
        return b;
    }
};
INSTANTIATE_TEST_SUITE_P(Backends, RealRuns, kRealBackends, backendTestName);

TEST_P(RealRuns, EveryProtocolSendsTheSimulatorsMessagesAndBytes)
{
    const Workload w = spacedWorkload();
    for (const auto& protocol : protocolsAndDirect()) {
        SCOPED_TRACE(protocol);
        const Scenario s = threeGpuScenario(protocol);
        const RunResult sim = runOn(s, w, {});
        const RunResult real = runOn(s, w, backend());
        EXPECT_EQ(sim.summary.backend.name, "simulated");
        EXPECT_EQ(real.summary.backend.name, GetParam());
        EXPECT_EQ(real.summary.completed, w.requests.size());
        EXPECT_EQ(real.summary.completed, sim.summary.completed);
        ASSERT_EQ(real.summary.messagesByKind.size(), sim.summary.messagesByKind.size());
        for (std::size_t k = 0; k < sim.summary.messagesByKind.size(); ++k) {
            SCOPED_TRACE(sim.summary.messagesByKind[k].name);
            EXPECT_EQ(real.summary.messagesByKind[k].count, sim.summary.messagesByKind[k].count);
            EXPECT_DOUBLE_EQ(real.summary.messagesByKind[k].bytes, sim.summary.messagesByKind[k].bytes);
        }
        EXPECT_EQ(real.summary.flows, sim.summary.flows);
        EXPECT_EQ(real.summary.kvTransfers, sim.summary.kvTransfers);
        EXPECT_DOUBLE_EQ(real.summary.kvBytes, sim.summary.kvBytes);
        // Every message that crossed a link was a real copy, checked.
        EXPECT_EQ(real.summary.backend.copies, sim.summary.flows);
        EXPECT_EQ(real.summary.backend.verified, real.summary.backend.copies);
        EXPECT_GT(real.summary.backend.copyMs, 0.0);
        EXPECT_GE(real.summary.backend.bytesCopied, real.summary.kvBytes);
        // Every decode step ran its attention where its node lives.
        EXPECT_GT(real.summary.backend.decodeSteps, 0u);
        EXPECT_GT(real.summary.backend.attentionMs, 0.0);
    }
}

// Every block's home on a CPU socket: its directory and memory are the host's. real-cpu plays it by a worker thread
// like any node; real-cuda by pinned host memory that the GPUs' copy engines reach by DMA (gpu_nodes.h), so the data
// that goes home and comes back from it crosses the bus both ways. Either way the protocol's messages and bytes are
// the simulator's, and every copy into or out of it is checked.
TEST_P(RealRuns, ItsStepsAreKeptByTheBytesCopiedSinceTheirNodesStepBefore)
{
    const Workload w = spacedWorkload();
    const Scenario s = threeGpuScenario("msi-directory");
    BackendOptions b = backend();
    b.realCpu.warmBytes = 0; // every step out of the core's cache, so every one after its node's first is kept
    const RunResult real = runOn(s, w, b);
    const BackendSummary& r = real.summary.backend;
    ASSERT_GT(r.decodeSteps, 2u);
    std::uint64_t steps = 0;
    double bytes = 0;
    for (const TrafficBucket& t : r.attentionByTraffic) {
        steps += t.steps;
        bytes += t.bytes;
        EXPECT_TRUE(t.fromBytes == 0 || (t.fromBytes & (t.fromBytes - 1)) == 0) << t.fromBytes;
    }
    // Each decode node's first step has no step before it: one or two nodes decoded.
    EXPECT_GE(steps, r.decodeSteps - 2);
    EXPECT_LE(steps, r.decodeSteps - 1);
    double stepBytes = 0;
    for (const StepSizeBucket& sz : r.attentionBySize)
        stepBytes += sz.bytes;
    EXPECT_LT(bytes, stepBytes);
    // Spaced requests: a step after its request's transfer follows copies, one between two steps of a batch may not.
    EXPECT_TRUE(std::any_of(r.attentionByTraffic.begin(), r.attentionByTraffic.end(),
                            [](const TrafficBucket& t) { return t.fromBytes > 0; }));
    // Kept with the run; said by `cohsim run` and the app.
    EXPECT_EQ(backendFromJson(toJson(r)).attentionByTraffic, r.attentionByTraffic);
    EXPECT_NE(describeAttentionByTraffic(r).find("by the bytes copied since its node's step before"),
              std::string::npos);
}

TEST_P(RealRuns, AHomeInHostMemoryCopiesLikeAnyNode)
{
    Scenario s = threeGpuScenario("msi-directory");
    Node cpu = servingNode("cpu0", NodeRole::Memory);
    cpu.kind = NodeKind::CpuSocket;
    cpu.memory = {{Tier::Dram, 512e9, 2e11}};
    s.topology.nodes.push_back(cpu);
    for (const char* gpu : {"p0", "d0", "d1"})
        s.topology.links.push_back(link(gpu, "cpu0", kMicrosecond, 1e9));
    s.coherence.home = HomePolicy::Node;
    s.coherence.homeNode = "cpu0";
    const Workload w = spacedWorkload();
    const RunResult sim = runOn(s, w, {});
    const RunResult real = runOn(s, w, backend());
    EXPECT_EQ(real.summary.completed, w.requests.size());
    EXPECT_EQ(real.summary.flows, sim.summary.flows);
    EXPECT_DOUBLE_EQ(real.summary.kvBytes, sim.summary.kvBytes);
    EXPECT_EQ(real.summary.backend.copies, sim.summary.flows);
    EXPECT_EQ(real.summary.backend.verified, real.summary.backend.copies);
    const auto& mapping = real.summary.backend.mapping;
    const auto home = std::find_if(mapping.begin(), mapping.end(), [](const auto& m) { return m.node == "cpu0"; });
    ASSERT_NE(home, mapping.end()) << "the home moved bytes, so it has a resource";
    EXPECT_NE(home->resource.find(GetParam() == "real-cuda" ? "pinned host memory" : "cpu worker thread"),
              std::string::npos)
        << home->resource;
    // The GPUs are still the GPUs' (on real-cuda, partitions of device memory).
    const auto gpu = std::find_if(mapping.begin(), mapping.end(), [](const auto& m) { return m.node == "d0"; });
    ASSERT_NE(gpu, mapping.end());
    EXPECT_EQ(gpu->resource.find("pinned host memory"), std::string::npos) << gpu->resource;
}

TEST(RealCpuBackend, TheMappingNamesTheNodesThatMovedBytes)
{
    const Workload w = spacedWorkload();
    const RunResult real = runOn(threeGpuScenario("msi-directory"), w, realCpu());
    const auto& mapping = real.summary.backend.mapping;
    ASSERT_EQ(mapping.size(), 3u);
    EXPECT_EQ(mapping[0].node, "p0");
    EXPECT_EQ(mapping[1].node, "d0");
    EXPECT_EQ(mapping[2].node, "d1");
    for (const auto& m : mapping)
        EXPECT_NE(m.resource.find("1 MiB arena"), std::string::npos) << m.resource;
}

TEST(RealCpuBackend, TransferTimesAreTheMeasuredCopiesNotTheLinkModel)
{
    // On the simulator a request's KV takes latency + bytes / 1 GB/s on its link; on real-cpu it takes what the
    // copies measured, and the link's figures play no part: a link made a million times slower changes nothing.
    Scenario s = threeGpuScenario("direct");
    Scenario slow = s;
    for (auto& l : slow.topology.links)
        l.bandwidthBytesPerSec = 1e3;
    const Workload w = spacedWorkload();
    const RunResult real = runOn(slow, w, realCpu());
    const RunResult sim = runOn(s, w, {});
    double realTransfer = 0, simTransfer = 0;
    for (const auto& r : real.requests)
        realTransfer += static_cast<double>(r.transfer());
    for (const auto& r : sim.requests)
        simTransfer += static_cast<double>(r.transfer());
    EXPECT_GT(realTransfer, 0.0);
    EXPECT_NEAR(realTransfer, real.summary.backend.copyMs * 1e6, 1.0 + 1e-9 * realTransfer);
    EXPECT_EQ(real.summary.backend.copiesQueued, 0u); // spaced requests: no copy waited for another
    EXPECT_GT(simTransfer, 0.0);
}

struct Harness : FlowEndpoint {
    enum : std::uint32_t { Deliver, Send, Wake };
    Topology topo;
    Simulator sim;
    Routing routing;
    std::unique_ptr<real::NodeResources> nodes;
    real::CopyTransport transport;
    std::map<std::uint64_t, FlowInfo> delivered;

    // On either real backend: arenas of 64 KiB, messages in pieces of `descriptorBytes` (0: whole).
    Harness(const std::string& backend, Topology t, std::size_t descriptorBytes = 0)
        : topo(std::move(t))
        , routing(topo)
        , nodes(makeNodes(backend, topo, real::RealCpuOptions{64 << 10, 1, descriptorBytes}))
        , transport(topo, routing, sim, Wake, Deliver, kSecond, *nodes)
    {
    }
    static std::unique_ptr<real::NodeResources> makeNodes(const std::string& backend, const Topology& topo,
                                                          const real::RealCpuOptions& options)
    {
        if (backend == "real-cuda")
            return std::make_unique<real::GpuNodes>(topo, options, 1, probeGpus().devices);
        return std::make_unique<real::NodeWorkers>(topo, options, 1);
    }
    void onFlowDelivered(const FlowInfo& f) override { delivered[f.tag] = f; }
    void operator()(const Event& ev)
    {
        if (ev.kind == Deliver)
            transport.onDeliver(ev);
        else if (ev.kind == Wake)
            transport.onWake(ev);
    }
};

// The copy tests run on each real backend.
class RealCopies : public OnEachRealBackend {};
INSTANTIATE_TEST_SUITE_P(Backends, RealCopies, kRealBackends, backendTestName);

TEST_P(RealCopies, ACorruptedOrPartlyWrittenCopyStopsTheRunNamingTheMessage)
{
    Harness h(GetParam(), twoGpuScenario().topology);
    const auto route = h.routing.routeId(0, 1);
    h.transport.send(route, 100000, h, 1); // wraps the 64 KiB arenas once
    h.transport.injectIntoNextCopy(real::CopyFault::FlipByte);
    try {
        h.transport.send(route, 4096, h, 2);
        FAIL() << "the corrupted copy passed its check";
    } catch (const real::CopyCheckError& e) {
        EXPECT_NE(std::string(e.what()).find("message 2 (p0 -> d0, 4096 B) differs from its source at byte 2048"),
                  std::string::npos)
            << e.what();
    }
    // The next copy is whole again, and the first one is delivered through the event loop at its measured time.
    h.transport.send(route, 64, h, 3);
    h.sim.run(h);
    ASSERT_TRUE(h.delivered.count(1) && h.delivered.count(3));
    EXPECT_FALSE(h.delivered.count(2));
    EXPECT_GE(h.delivered[1].delivered, 1);
    EXPECT_EQ(h.transport.describe().copies, 2u);
    EXPECT_DOUBLE_EQ(h.transport.describe().bytesCopied, 100064.0);

    // A partly written copy: its first cache line, with the stamp, still holds what was there before.
    h.transport.injectIntoNextCopy(real::CopyFault::PartialWrite);
    try {
        h.transport.send(route, 512, h, 4);
        FAIL() << "the partly written copy passed its check";
    } catch (const real::CopyCheckError& e) {
        EXPECT_NE(std::string(e.what()).find("message 4 (p0 -> d0, 512 B) does not start with its message's stamp"),
                  std::string::npos)
            << e.what();
    }
    // A message no longer than its stamp has its flipped byte in the stamp: still a corrupted copy, not another
    // message's region.
    h.transport.injectIntoNextCopy(real::CopyFault::FlipByte);
    try {
        h.transport.send(route, 64, h, 5);
        FAIL() << "the corrupted stamp passed its check";
    } catch (const real::CopyCheckError& e) {
        EXPECT_NE(std::string(e.what()).find("message 5 (p0 -> d0, 64 B) differs from its source at byte 32"),
                  std::string::npos)
            << e.what();
    }
    // A message no memory holds is refused before any copy.
    EXPECT_THROW(h.transport.send(route, 1e300, h, 5), real::CopyCheckError);
    EXPECT_THROW(h.transport.send(route, std::numeric_limits<double>::infinity(), h, 6), real::CopyCheckError);
}

TEST_P(RealCopies, CopiesOfOnePairShareItAndOtherPairsOverlap)
{
    Harness h(GetParam(), threeGpuScenario("direct").topology);
    // All sent at one instant: two from p0 to d0, one from p0 to d1, one from d0 back to p0, and one from d1 to d0 (a
    // receiver the first two have too).
    h.transport.send(h.routing.routeId(0, 1), 4096, h, 1);
    h.transport.send(h.routing.routeId(0, 1), 8192, h, 2);
    h.transport.send(h.routing.routeId(0, 2), 4096, h, 3);
    h.transport.send(h.routing.routeId(1, 0), 4096, h, 4);
    h.transport.send(h.routing.routeId(2, 1), 4096, h, 5);
    h.sim.run(h);
    ASSERT_EQ(h.delivered.size(), 5u);
    const auto at = [&](std::uint64_t tag) { return h.delivered.at(tag).delivered; };
    // The pair's two copies shared it: the shorter landed at twice its own time and the longer at the sum of both, so
    // each took the shorter's time beyond its own; every other copy landed at its own time, so the pairs' last
    // landings add up to all the copies' times.
    const SimTime first = std::min(at(1), at(2)), last = std::max(at(1), at(2));
    EXPECT_EQ(h.transport.bytesSent(), 4096.0 + 8192 + 3 * 4096);
    const BackendSummary b = h.transport.describe();
    EXPECT_EQ(b.copiesQueued, 2u);
    EXPECT_DOUBLE_EQ(b.copyWaitMs * 1e6, static_cast<double>(first));
    EXPECT_NEAR(b.copyMs * 1e6, static_cast<double>(last + at(3) + at(4) + at(5)), 1.0);
    // Stored with the run; a run stored before shared none.
    EXPECT_EQ(backendFromJson(toJson(b)).copiesQueued, 2u);
    EXPECT_DOUBLE_EQ(backendFromJson(toJson(b)).copyWaitMs, b.copyWaitMs);
    auto older = toJson(b);
    older.erase("copies_queued");
    older.erase("copy_wait_ms");
    EXPECT_EQ(backendFromJson(older).copiesQueued, 0u);
    EXPECT_EQ(backendFromJson(older).copyWaitMs, 0.0);
    // Once the pair's copies have landed, the next one has it to itself.
    const SimTime later = h.sim.now();
    h.transport.send(h.routing.routeId(0, 1), 64, h, 6);
    h.sim.run(h);
    EXPECT_NEAR(static_cast<double>(at(6) - later), (h.transport.describe().copyMs - b.copyMs) * 1e6, 1.0);
    EXPECT_EQ(h.transport.describe().copiesQueued, 2u);
}

TEST_P(RealCopies, ALostCompletionLandsAndIsNeverDelivered)
{
    Harness h(GetParam(), twoGpuScenario().topology);
    h.transport.injectIntoNextCopy(real::CopyFault::LostCompletion);
    h.transport.send(h.routing.routeId(0, 1), 4096, h, 1);
    h.transport.send(h.routing.routeId(0, 1), 4096, h, 2);
    h.sim.run(h);
    // The second shared the pair with the first, which landed and told no one.
    EXPECT_EQ(h.delivered.count(1), 0u);
    ASSERT_EQ(h.delivered.count(2), 1u);
    EXPECT_EQ(h.transport.describe().copiesQueued, 2u);
    EXPECT_THROW(h.transport.checkDelivered(), real::CopyCheckError);
    // A message that copies nothing is lost as well: its completion never comes.
    Harness empty(GetParam(), twoGpuScenario().topology);
    empty.transport.injectIntoNextCopy(real::CopyFault::LostCompletion);
    empty.transport.send(empty.routing.routeId(0, 1), 0, empty, 3);
    empty.sim.run(empty);
    EXPECT_EQ(empty.delivered.count(3), 0u);
    EXPECT_THROW(empty.transport.checkDelivered(), real::CopyCheckError);
}

// The failure classes real KV engines have shipped: each is injected into a real copy and caught on the bytes, by
// name.
std::string caughtCopy(Harness& h, real::CopyFault fault, double bytes, std::uint64_t tag)
{
    h.transport.injectIntoNextCopy(fault);
    try {
        h.transport.send(h.routing.routeId(0, 1), bytes, h, tag);
    } catch (const real::CopyCheckError& e) {
        return e.what();
    }
    return "passed its check";
}

TEST_P(RealCopies, ACopyFromAFreedBufferOrAfterAnExpiredLeaseIsNamed)
{
    Harness h(GetParam(), twoGpuScenario().topology);
    EXPECT_NE(caughtCopy(h, real::CopyFault::FreedSource, 4096, 1)
                  .find("message 1 (p0 -> d0, 4096 B) holds the freed pattern: a copy from a buffer its sender had "
                        "freed"),
              std::string::npos);
    EXPECT_NE(caughtCopy(h, real::CopyFault::ExpiredLease, 4096, 2)
                  .find("message 2 (p0 -> d0, 4096 B) holds an older version than the sender's latest: a read after "
                        "its lease expired"),
              std::string::npos);
    // A refused copy does not move the receiver's cursor: the next lands where the stale one did, and a partial
    // write there finds that message's stamp.
    EXPECT_NE(caughtCopy(h, real::CopyFault::PartialWrite, 512, 3).find("holds another message's stamp"),
              std::string::npos);
    // A message shorter than the stamp still tells a freed buffer (its magic) from a partial write (the seeded bytes).
    Harness fresh(GetParam(), twoGpuScenario().topology);
    EXPECT_NE(caughtCopy(fresh, real::CopyFault::PartialWrite, 6, 1).find("a partly written block"), std::string::npos);
    EXPECT_NE(caughtCopy(fresh, real::CopyFault::FreedSource, 6, 2).find("the freed pattern"), std::string::npos);
    // Neither fault touched the transport: the next message copies and arrives.
    h.transport.send(h.routing.routeId(0, 1), 4096, h, 4);
    h.sim.run(h);
    EXPECT_TRUE(h.delivered.count(4));
    EXPECT_NO_THROW(h.transport.checkDelivered());
}

// A write into the sender's block after it sealed it and before the copy read it (an append racing a transfer): the
// copy then holds exactly what the source holds, so only the seal in the stamp tells.
TEST_P(RealCopies, AWriteIntoTheSourceWhileItIsCopiedIsCaughtByTheStampsChecksum)
{
    for (const std::size_t descriptor : {std::size_t{0}, std::size_t{1000}}) {
        SCOPED_TRACE(descriptor);
        Harness h(GetParam(), twoGpuScenario().topology, descriptor);
        // One region (or five scattered pieces), then messages larger than the 64 KiB memories: they wrap (or come
        // back to slots they used), and the seal covers each place once. The second one's last byte lands where its
        // stamp lies: the write goes to the payload's last byte instead.
        for (const double bytes : {4096.0, 65546.0, 200000.0}) {
            const std::string caught = caughtCopy(h, real::CopyFault::TornSource, bytes, 1);
            EXPECT_NE(caught.find(fmt::format("(p0 -> d0, {:.0f} B) equals its source byte for byte but not the "
                                              "checksum its stamp sealed",
                                              bytes)),
                      std::string::npos)
                << caught;
            EXPECT_NE(caught.find("a torn copy) (CRC-32 0x"), std::string::npos) << caught;
            EXPECT_EQ(caughtCopy(h, real::CopyFault::None, bytes, 2), "passed its check");
        }
        // A copy corrupted after it landed differs from its source too: that is what the run says.
        EXPECT_NE(caughtCopy(h, real::CopyFault::FlipByte, 4096, 3).find("differs from its source"), std::string::npos);
        // A message no longer than its stamp has no payload to tear.
        EXPECT_EQ(caughtCopy(h, real::CopyFault::TornSource, sizeof(real::CopyStamp), 4), "passed its check");
    }
}

// The seal is gzip's CRC-32 whichever library computes it: its check value, and the same figure fed in runs of any
// length (a payload is fed run by run, as it lies in memory) as at once, over lengths that cross the fast path's
// folding widths.
TEST(RealCpuBackend, ACopysSealIsTheCrc32OfItsPayloadFedInRuns)
{
    real::Crc32 check;
    check.add("123456789", 9);
    EXPECT_EQ(check.value(), 0xcbf43926u);
    EXPECT_EQ(real::Crc32{}.value(), 0u);

    std::vector<unsigned char> bytes(100'003);
    std::mt19937 random(7);
    for (auto& b : bytes)
        b = static_cast<unsigned char>(random());
    real::Crc32 whole;
    whole.add(bytes.data(), bytes.size());
    for (const std::size_t run : {std::size_t{1}, std::size_t{63}, std::size_t{64}, std::size_t{4097}}) {
        real::Crc32 inRuns;
        for (std::size_t at = 0; at < bytes.size(); at += run)
            inRuns.add(bytes.data() + at, std::min(run, bytes.size() - at));
        EXPECT_EQ(inRuns.value(), whole.value()) << run;
    }
    // Any one changed bit changes it.
    bytes[50'000] ^= 0x10;
    real::Crc32 changed;
    changed.add(bytes.data(), bytes.size());
    EXPECT_NE(changed.value(), whole.value());
}

TEST(RealCpuBackend, APayloadIsEveryByteAfterTheStampEachPlaceOnce)
{
    constexpr std::size_t kSize = 1024;
    const auto runs = [](std::span<const real::CopyPiece> pieces, real::CopySide side) {
        std::vector<std::pair<std::size_t, std::size_t>> out;
        real::forPayloadRuns(kSize, pieces, side, [&](std::size_t at, std::size_t n) { out.emplace_back(at, n); });
        return out;
    };
    using Runs = std::vector<std::pair<std::size_t, std::size_t>>;
    constexpr std::size_t kStamp = sizeof(real::CopyStamp);
    // One region near the memory's end: the stamp, then the rest up to the end, then from the start.
    const real::CopyPiece region{960, 960, 100};
    EXPECT_EQ(runs(std::span(&region, 1), real::CopySide::Source), (Runs{{960 + kStamp, 64 - kStamp}, {0, 36}}));
    // A region larger than the memory is one memory's worth: every place once.
    const real::CopyPiece huge{0, 0, 5000};
    EXPECT_EQ(runs(std::span(&huge, 1), real::CopySide::Destination), (Runs{{kStamp, kSize - kStamp}}));
    // Pieces: each side's own places; the stamp only in the first; stop at the first place used again.
    const std::vector<real::CopyPiece> pieces{{0, 512, 256}, {256, 0, 256}, {512, 256, 256}, {0, 768, 256}};
    EXPECT_EQ(runs(pieces, real::CopySide::Source), (Runs{{kStamp, 256 - kStamp}, {256, 256}, {512, 256}}));
    EXPECT_EQ(runs(pieces, real::CopySide::Destination), (Runs{{512 + kStamp, 256 - kStamp}, {0, 256}, {256, 256}}));
    // A message no longer than its stamp has no payload.
    const real::CopyPiece shortOne{0, 0, kStamp};
    EXPECT_TRUE(runs(std::span(&shortOne, 1), real::CopySide::Source).empty());
}

TEST_P(RealCopies, ALostCompletionIsNamedWhenTheRunEnds)
{
    Harness h(GetParam(), twoGpuScenario().topology);
    const auto route = h.routing.routeId(0, 1);
    h.transport.send(route, 2048, h, 1);
    h.transport.injectIntoNextCopy(real::CopyFault::LostCompletion);
    h.transport.send(route, 4096, h, 2); // copied and checked: the bytes are right, only the completion is lost
    h.transport.send(route, 512, h, 3);
    h.sim.run(h);
    EXPECT_TRUE(h.delivered.count(1) && h.delivered.count(3));
    EXPECT_FALSE(h.delivered.count(2));
    EXPECT_EQ(h.transport.describe().verified, 3u);
    try {
        h.transport.checkDelivered();
        FAIL() << "the lost completion went unnoticed";
    } catch (const real::CopyCheckError& e) {
        EXPECT_NE(std::string(e.what()).find("message 2 (p0 -> d0, 4096 B, sent at 0 ns) was copied but its completion "
                                             "never arrived: a lost completion"),
                  std::string::npos)
            << e.what();
    }
}

TEST(RealCpuBackend, CopyDefectsAreToldApartByTheirStamp)
{
    const real::CopyStamp sent{.version = 7, .message = 42, .src = 1, .dst = 2, .bytes = 4096};
    using real::CopyDefect;
    const auto classify = [&](real::CopyStamp held, std::size_t n = sizeof(real::CopyStamp), std::int64_t bad = -1) {
        return real::classifyCopy(sent, held, n, bad);
    };
    EXPECT_EQ(classify(sent), CopyDefect::None);
    EXPECT_EQ(classify(sent, sizeof sent, 100), CopyDefect::Corrupted);
    auto freed = sent;
    freed.magic = real::CopyStamp::kFreed;
    EXPECT_EQ(classify(freed), CopyDefect::FreedSource);
    auto old = sent;
    old.version = 6;
    EXPECT_EQ(classify(old), CopyDefect::StaleVersion);
    // A newer version is not stale, and another message's region is misplaced, whatever its version.
    auto newer = sent;
    newer.version = 8;
    EXPECT_EQ(classify(newer), CopyDefect::Misplaced);
    auto other = old;
    other.message = 41;
    EXPECT_EQ(classify(other), CopyDefect::Misplaced);
    real::CopyStamp garbage;
    garbage.magic = 0x12345678;
    EXPECT_EQ(classify(garbage), CopyDefect::PartlyWritten);
    // A 4-byte message holds only the magic: it cannot tell versions, and a matching magic is all it can check.
    EXPECT_EQ(classify(old, 4), CopyDefect::None);
    // The seal is judged once the stamp is right and the bytes equal the source's: then a wrong checksum is a torn
    // copy. A wrong stamp or a differing byte says more, and is what the run reports.
    EXPECT_EQ(real::classifyCopy(sent, sent, sizeof sent, -1, false), CopyDefect::TornSource);
    EXPECT_EQ(real::classifyCopy(sent, sent, sizeof sent, 100, false), CopyDefect::Corrupted);
    EXPECT_EQ(real::classifyCopy(sent, freed, sizeof sent, -1, false), CopyDefect::FreedSource);
    // A stamp one byte off its own where the copy differs from its source: that byte changed on the way. Copied
    // faithfully, the same stamp is another region's.
    auto flipped = sent;
    flipped.checksum ^= 0x5a;
    EXPECT_EQ(classify(flipped, sizeof sent, 32), CopyDefect::Corrupted);
    EXPECT_EQ(classify(flipped, sizeof sent, -1), CopyDefect::Misplaced);
    EXPECT_EQ(classify(old, sizeof sent, -1), CopyDefect::StaleVersion);
}

TEST_P(RealCopies, AMessageIsCopiedInScatteredDescriptorsAndStillCheckedByteForByte)
{
    // Pieces of 1000 B: a 4096 B message is five, each in a slot of its own on each side.
    Harness h(GetParam(), twoGpuScenario().topology, 1000);
    const auto route = h.routing.routeId(0, 1);
    h.transport.send(route, 4096, h, 1);
    h.transport.send(route, 200000, h, 2); // more pieces than the 64 KiB arena has slots: they are used again
    h.sim.run(h);
    ASSERT_TRUE(h.delivered.count(1) && h.delivered.count(2));
    EXPECT_EQ(h.transport.describe().descriptors, 5u + 200u);
    // The faults are found wherever the pieces landed: the middle byte is in the third piece.
    h.transport.injectIntoNextCopy(real::CopyFault::FlipByte);
    try {
        h.transport.send(route, 4096, h, 3);
        FAIL() << "the corrupted copy passed its check";
    } catch (const real::CopyCheckError& e) {
        EXPECT_NE(std::string(e.what()).find("differs from its source at byte 2048"), std::string::npos) << e.what();
    }
    h.transport.injectIntoNextCopy(real::CopyFault::PartialWrite);
    EXPECT_THROW(h.transport.send(route, 4096, h, 4), real::CopyCheckError);
}

TEST(RealCpuBackend, ARunCopiesInOneLayersKAndVOfABlock)
{
    const Scenario s = threeGpuScenario("msi-directory");
    const std::size_t piece = descriptorBytesFor(s);
    EXPECT_EQ(piece, std::size_t{s.serving.blockTokens} * 2 * s.model.kvHeads * s.model.headDim * s.model.dtypeBytes);
    const RunResult real = runOn(s, spacedWorkload(), realCpu());
    const auto& b = real.summary.backend;
    // Every data message is whole blocks, so at least one piece per layer of each block it carries.
    EXPECT_GE(static_cast<double>(b.descriptors), b.bytesCopied / static_cast<double>(piece));
    EXPECT_GT(b.descriptors, b.copies);
}

TEST_P(RealCopies, ASameNodeMessageCopiesNothingAndArrivesAtOnce)
{
    Harness h(GetParam(), twoGpuScenario().topology);
    h.transport.send(h.routing.routeId(1, 1), 0, h, 7);
    h.sim.run(h);
    ASSERT_TRUE(h.delivered.count(7));
    EXPECT_EQ(h.delivered[7].delivered, 0);
    EXPECT_EQ(h.transport.describe().copies, 0u);
    EXPECT_TRUE(h.transport.describe().mapping.empty());
    EXPECT_EQ(h.transport.bytesSent(), 0.0); // nothing passed through a memory
}

TEST(RealCpuBackend, ALinkFailureIsRefusedWithTheFieldAndTheFix)
{
    Scenario s = threeGpuScenario("msi-directory");
    FailureEventSpec e;
    e.link = "p0-d1";
    e.at = kSecond;
    e.repair = kSecond;
    s.failures.events.push_back(e);
    try {
        checkRunnable(s, spacedWorkload(), realCpu());
        FAIL() << "real-cpu took a link failure";
    } catch (const InputError& error) {
        ASSERT_EQ(error.problems().size(), 1u);
        EXPECT_EQ(error.problems()[0].field, "/failures/events/0/link");
        EXPECT_NE(error.problems()[0].fix.find("--backend simulated"), std::string::npos);
    }
    EXPECT_NO_THROW(checkRunnable(s, spacedWorkload()));
}

TEST(RealCpuBackend, AnUnknownBackendNamesTheChoices)
{
    EXPECT_EQ(canonicalBackendName("sim"), "simulated");
    EXPECT_EQ(canonicalBackendName("real-cpu"), "real-cpu");
    try {
        canonicalBackendName("quantum");
        FAIL();
    } catch (const InputError& error) {
        EXPECT_EQ(error.problems()[0].field, "--backend");
        EXPECT_NE(error.problems()[0].fix.find("simulated, real-cpu"), std::string::npos);
    }
}

TEST(RealCpuBackend, TheStoreRecordsTheBackendAndItsMapping)
{
    TempDir dir;
    RunStore store(dir.file("runs.db"));
    RunOptions options;
    options.backend = realCpu();
    const Scenario s = threeGpuScenario("mesi-directory");
    const RunResult result = runAndStore(store, s, spacedWorkload(), options, "real");
    const auto runs = store.listRuns();
    ASSERT_EQ(runs.size(), 1u);
    EXPECT_EQ(runs[0].backend, "real-cpu");
    const RunResult loaded = store.loadRun(runs[0].id);
    EXPECT_EQ(loaded.summary.backend, result.summary.backend);
    EXPECT_EQ(loaded.summary.backend.mapping.size(), 3u);
    EXPECT_GT(loaded.summary.backend.blockReadsChecked, 0u);
    // A run's every checked read is summed against its seal (and the count is stored, so a loaded run says so).
    EXPECT_EQ(loaded.summary.backend.blockSealsSummed, loaded.summary.backend.blockReadsChecked);
    EXPECT_GT(loaded.summary.backend.kvRowsWritten, 0u);
    EXPECT_GT(loaded.summary.backend.kvPools, 0u);
    EXPECT_GT(loaded.summary.backend.kvPoolNeededBytes, 0u);
    // A refused growth is kept too; a run stored before the pools were counted reads back with none.
    BackendSummary refused = result.summary.backend;
    refused.kvPoolGrowthRefused = "a pool could not grow past 1 MiB: std::bad_alloc";
    refused.kvPoolBlocksLent = 7;
    EXPECT_EQ(backendFromJson(toJson(refused)), refused);
    auto unpooled = toJson(result.summary.backend);
    unpooled.erase("kv_pools");
    EXPECT_EQ(backendFromJson(unpooled).kvPools, 0u);
    EXPECT_EQ(describeKvPools(backendFromJson(unpooled)), "");
    // A run stored before the count summed every read it checked, and reads back so; an unsummed one keeps its 0.
    auto older = toJson(result.summary.backend);
    older.erase("block_seals_summed");
    EXPECT_EQ(backendFromJson(older).blockSealsSummed, result.summary.backend.blockReadsChecked);
    BackendSummary unsummed = result.summary.backend;
    unsummed.blockSealsSummed = 0;
    EXPECT_EQ(backendFromJson(toJson(unsummed)).blockSealsSummed, 0u);
}

} // namespace
} // namespace coh::test
