// What a KV transfer carries on a real backend: the sequence's first-layer K/V rows, as the decode pool lays a block
// out, checked on landing (core/real/kv_payload_rows.h).
#include "core/gpu/cuda_devices.h"
#include "core/gpu/kv_rows.h"
#include "core/real/copy_transport.h"
#include "core/real/gpu_nodes.h"
#include "core/real/half.h"
#include "core/real/injected_fault.h"
#include "core/real/kv_payload_rows.h"
#include "core/real/landed_kv_rows.h"
#include "core/real/node_workers.h"
#include "core/store/backend_json.h"
#include "engine_fixtures.h"
#include "real_run_fixtures.h"

#include <gtest/gtest.h>

#include <cstring>
#include <map>

namespace coh::test {
namespace {

float elementOf(const std::vector<std::byte>& rows, std::size_t element, std::size_t elementBytes)
{
    if (elementBytes == 2) {
        real::Half h;
        std::memcpy(&h, rows.data() + element * 2, 2);
        return real::toFloat(h);
    }
    float f;
    std::memcpy(&f, rows.data() + element * 4, 4);
    return f;
}

TEST(KvPayloadRows, RowsAreLaidOutBlockByBlockAsThePoolLaysThemOut)
{
    // Two KV heads of the shard's (heads 2 and 3 of 4), blocks of 4 tokens, 3 dimensions, fp32; 6 tokens from token
    // 10: two blocks, the second half filled.
    const real::KvRowsLayout layout{.kvHeads = 4, .headDim = 3, .blockTokens = 4, .elementBytes = 4};
    const KvPayload payload{.sequence = 9, .firstToken = 10, .tokens = 6, .shard = 1, .shards = 2};
    EXPECT_EQ(real::headsOf(layout, 1, 2).from, 2u);
    EXPECT_EQ(real::headsOf(layout, 1, 2).count, 2u);
    EXPECT_EQ(real::blockRowsBytes(layout, payload), 2u * 2 * 4 * 3 * 4);
    std::vector<std::byte> rows;
    real::composeRows(layout, payload, 6, payload.sequence, rows);
    ASSERT_EQ(rows.size(), 2 * real::blockRowsBytes(layout, payload));
    // Block 1, V, head 3 (the shard's second), row 1 (token 10 + 4 + 1), dimension 2.
    const std::size_t half = 2 * 4 * 3; // K (or V) of a block, in elements
    const std::size_t element = 2 * half + half + (1 * 4 + 1) * 3 + 2;
    EXPECT_EQ(elementOf(rows, element, 4), kvRowValue(9, 15, 3, 2, true));
    // Block 0, K, head 2, row 0, dimension 0: token 10.
    EXPECT_EQ(elementOf(rows, 0, 4), kvRowValue(9, 10, 2, 0, false));
    // Rows past the last token are zero: block 1's row 2.
    EXPECT_EQ(elementOf(rows, 2 * half + (0 * 4 + 2) * 3, 4), 0.0f);

    // A change is named by where it sits, and fp16 rounds as the pool's element does.
    std::vector<std::byte> landed = rows;
    std::memset(landed.data() + element * 4, 0, 4);
    const auto bad = real::firstRowMismatch(layout, payload, rows, landed);
    ASSERT_TRUE(bad);
    EXPECT_EQ(bad->token, 15u);
    EXPECT_EQ(bad->kvHead, 3u);
    EXPECT_EQ(bad->dim, 2u);
    EXPECT_TRUE(bad->isV);
    EXPECT_EQ(bad->found, 0.0f);
    EXPECT_EQ(real::describeRowMismatch(payload, *bad).substr(0, 44), "token 15's V at KV head 3, dimension 2 holds");
    EXPECT_FALSE(real::firstRowMismatch(layout, payload, rows, rows));

    real::KvRowsLayout fp16 = layout;
    fp16.elementBytes = 2;
    real::composeRows(fp16, payload, 6, payload.sequence, rows);
    // The CPU pool's own conversion (fromFloat), a rounding of the fp32 value.
    const float value = kvRowValue(9, 15, 3, 2, true);
    EXPECT_EQ(elementOf(rows, element, 2), real::toFloat(real::fromFloat<real::Half>(value)));
    EXPECT_NEAR(elementOf(rows, element, 2), value, 1.0 / 1024);
}

TEST(KvPayloadRows, AMessageCarriesTheWholeBlocksItsMemoryHoldsAtOnce)
{
    const real::KvRowsLayout layout{.kvHeads = 1, .headDim = 64, .blockTokens = 16, .elementBytes = 2};
    const KvPayload payload{.sequence = 0, .firstToken = 0, .tokens = 100};
    const std::size_t block = real::blockRowsBytes(layout, payload); // 4 KiB
    EXPECT_EQ(real::tokensCarried(layout, payload, 7 * block), 100u);
    EXPECT_EQ(real::tokensCarried(layout, payload, 7 * block - 1), 96u);
    EXPECT_EQ(real::tokensCarried(layout, payload, block - 1), 0u);
    // Fewer heads than shards: each shard holds one, neighbours sharing it.
    EXPECT_EQ(real::headsOf(layout, 3, 4).from, 0u);
    EXPECT_EQ(real::headsOf({.kvHeads = 2}, 1, 4).from, 0u);
    EXPECT_EQ(real::headsOf({.kvHeads = 2}, 2, 4).from, 1u);
    EXPECT_EQ(real::headsOf({.kvHeads = 2}, 3, 4).count, 1u);
    // An even split otherwise.
    EXPECT_EQ(real::headsOf({.kvHeads = 8}, 3, 4).from, 6u);
    EXPECT_EQ(real::headsOf({.kvHeads = 8}, 3, 4).count, 2u);
}

// A copy transport between two nodes, whose messages hold sequence `tag`'s tokens.
struct PayloadHarness : FlowEndpoint {
    Topology topo = twoGpuScenario().topology;
    Simulator sim;
    Routing routing{topo};
    std::unique_ptr<real::NodeResources> nodes;
    real::CopyTransport transport;
    std::uint32_t tokens = 0;
    static constexpr real::KvRowsLayout kLayout{.kvHeads = 2, .headDim = 64, .blockTokens = 16, .elementBytes = 2};

    PayloadHarness(const std::string& backend, std::size_t descriptorBytes)
        : nodes(makeNodes(backend, real::RealCpuOptions{64 << 10, 1, descriptorBytes}))
        , transport(topo, routing, sim, 1, 0, kSecond, *nodes)
    {
        transport.carryKvRows(kLayout);
    }
    std::unique_ptr<real::NodeResources> makeNodes(const std::string& backend, const real::RealCpuOptions& options)
    {
        if (backend == "real-cuda")
            return std::make_unique<real::GpuNodes>(topo, options, 1, probeGpus().devices);
        return std::make_unique<real::NodeWorkers>(topo, options, 1);
    }
    void onFlowDelivered(const FlowInfo&) override {}
    std::optional<KvPayload> payloadOf(std::uint64_t tag) const override
    {
        if (tokens == 0)
            return std::nullopt;
        return KvPayload{.sequence = static_cast<std::uint32_t>(tag), .firstToken = 0, .tokens = tokens};
    }
    // Sends `n` tokens of sequence `sequence` (their K/V for a model of `bytesPerToken` per token); "" when it
    // passed its checks, else the error.
    std::string send(std::uint32_t n, double bytesPerToken, std::uint32_t sequence)
    {
        tokens = n;
        try {
            transport.send(routing.routeId(0, 1), n * bytesPerToken, *this, sequence);
        } catch (const real::CopyCheckError& e) {
            return e.what();
        }
        return "";
    }
    // Sends `bytes` that hold no sequence's rows (a control message, another layer's filler).
    std::string filler(double bytes)
    {
        tokens = 0;
        try {
            transport.send(routing.routeId(0, 1), bytes, *this, 0);
        } catch (const real::CopyCheckError& e) {
            return e.what();
        }
        return "";
    }
};

class KvPayloadCopies : public OnEachRealBackend {};
INSTANTIATE_TEST_SUITE_P(Backends, KvPayloadCopies, kRealBackends, backendTestName);

TEST_P(KvPayloadCopies, TheRowsLandInTheReceiversMemoryAndAreChecked)
{
    // Whole regions, and pieces scattered over slots of a layer's block (8 KiB here).
    for (const std::size_t descriptor : {std::size_t{0}, std::size_t{8192}}) {
        SCOPED_TRACE(descriptor);
        PayloadHarness h(GetParam(), descriptor);
        // Four layers' K/V per token: 40 tokens (80 KiB, past the memories' 64 KiB) carry their first layer's rows in
        // 3 blocks.
        const double perToken = 4.0 * 2 * 2 * 64 * 2;
        ASSERT_EQ(h.send(40, perToken, 5), "");
        if (descriptor == 0) {
            // One region at the receiver's memory's start: sequence 5's rows follow the stamp there.
            std::vector<std::byte> expected, landed;
            real::composeRows(PayloadHarness::kLayout, {.sequence = 5, .tokens = 40}, 40, 5, expected);
            landed.resize(expected.size());
            h.nodes->readBytes(1, sizeof(real::CopyStamp), landed);
            EXPECT_EQ(landed, expected);
        }
        BackendSummary s = h.transport.describe();
        EXPECT_EQ(s.kvTransfersChecked, 1u);
        EXPECT_EQ(s.kvRowsCarried, 40u);
        EXPECT_EQ(s.kvRowsOffered, 40u);
        // A message larger than the 64 KiB memories carries what they hold at once: 64 KiB less the stamp's bytes,
        // 7 blocks of 8 KiB.
        ASSERT_EQ(h.send(1000, perToken, 6), "");
        s = h.transport.describe();
        EXPECT_EQ(s.kvRowsCarried, 40u + 7 * 16);
        EXPECT_EQ(s.kvRowsOffered, 1040u);
        // A message too small for one block carries none, and is not counted.
        ASSERT_EQ(h.send(8, 2.0 * 2 * 64 * 2, 7), "");
        EXPECT_EQ(h.transport.describe().kvTransfersChecked, 2u);
        EXPECT_EQ(h.transport.describe().kvRowsOffered, 1040u);
    }
}

TEST_P(KvPayloadCopies, ACopyOfAnotherSequencesBlocksIsCaughtOnTheRowsAlone)
{
    PayloadHarness h(GetParam(), 8192);
    const double perToken = 4.0 * 2 * 2 * 64 * 2;
    // Played on a copy that carries no rows, the fault waits for one that does.
    h.transport.injectIntoNextCopy(real::CopyFault::WrongBlocks);
    ASSERT_EQ(h.send(8, 2.0 * 2 * 64 * 2, 1), "");
    const std::string caught = h.send(40, perToken, 3);
    EXPECT_NE(caught.find("message 2 (p0 -> d0, 81920 B) landed K/V rows that are not sequence 3's: token 0's K at "
                          "KV head 0, dimension 0 holds"),
              std::string::npos)
        << caught;
    EXPECT_NE(caught.find("stamp and CRC-32 included: the sender's descriptors named another sequence's blocks"),
              std::string::npos)
        << caught;
    // The next copy carries the right rows again.
    EXPECT_EQ(h.send(40, perToken, 4), "");
}

TEST_P(KvPayloadCopies, TheRowsThatLandedAreHeldUntilTheirMemoryIsWrittenOver)
{
    for (const std::size_t descriptor : {std::size_t{0}, std::size_t{8192}}) {
        SCOPED_TRACE(descriptor);
        PayloadHarness h(GetParam(), descriptor);
        const real::LandedKvRows& landed = h.nodes->landedRows();
        const auto block = [](std::uint32_t sequence) {
            return real::LandedKvRows::RowsWanted{
                .sequence = sequence, .firstToken = 16, .tokens = 16, .kvHeads = 2, .headDim = 64};
        };
        const double perToken = 4.0 * 2 * 2 * 64 * 2;
        ASSERT_EQ(h.send(40, perToken, 5), "");
        EXPECT_EQ(landed.rowsHeld(1, block(5)), 16u);
        EXPECT_EQ(landed.rowsHeld(0, block(5)), 0u); // the sender's memory is not where they landed
        // A message larger than the memory writes all of it, wrapping: sequence 5's rows are gone, 6's are held.
        ASSERT_EQ(h.send(1000, perToken, 6), "");
        EXPECT_EQ(landed.rowsHeld(1, block(5)), 0u);
        EXPECT_EQ(landed.rowsHeld(1, block(6)), 16u);
        EXPECT_EQ(landed.held(), 1u);
    }
}

TEST_P(KvPayloadCopies, RowsSetAsideForAPoolOutliveLaterMessagesUntilItTakesThem)
{
    PayloadHarness h(GetParam(), 8192); // memories of 64 KiB: 8 slots of a descriptor
    real::LandedKvRows& landed = h.nodes->landedRows();
    landed.setAsideFor(1, 32 << 10);
    const double perToken = 4.0 * 2 * 2 * 64 * 2; // four layers: 32 KiB for 16 tokens, their rows in two slots
    const auto held = [&](std::uint32_t sequence) {
        return landed.rowsHeld(
            1, {.sequence = sequence, .firstToken = 0, .tokens = 16, .kvHeads = 2, .headDim = 64, .elementBytes = 2});
    };
    ASSERT_EQ(h.send(16, perToken, 5), "");
    ASSERT_EQ(held(5), 16u);
    EXPECT_EQ(landed.setAsideBytes(1), 16u * 2 * 64 * 2 * 2);
    // Four memories' worth of messages after it go around the slots its rows are in.
    for (int i = 0; i < 8; ++i)
        ASSERT_EQ(h.filler(32 << 10), "");
    EXPECT_EQ(held(5), 16u);
    // Once the pool took them, the node's messages write there again.
    landed.taken(1, 5);
    EXPECT_EQ(landed.setAsideBytes(1), 0u);
    for (int i = 0; i < 8; ++i)
        ASSERT_EQ(h.filler(32 << 10), "");
    EXPECT_EQ(held(5), 0u);
    // A message larger than the room around them wraps both memories in step, over the rows set aside, and lands
    // whole: its stamp and payload pass their checks.
    ASSERT_EQ(h.send(16, perToken, 6), "");
    ASSERT_EQ(held(6), 16u);
    EXPECT_EQ(h.filler(200 << 10), "");
    EXPECT_EQ(held(6), 0u);
    EXPECT_EQ(landed.setAsideBytes(1), 0u);
}

TEST(RealCpuBackend, EveryDirectTransferCarriesItsSequencesRowsInARun)
{
    Scenario s = twoGpuScenario();
    s.model.layers = 4; // a message holds four layers: the first one's rows fit it
    const Workload w = spacedPrompts(4);
    BackendOptions backend = realCpu();
    const RunResult run = runOn(s, w, backend);
    const BackendSummary& b = run.summary.backend;
    EXPECT_EQ(b.kvTransfersChecked, 4u);
    EXPECT_EQ(b.kvRowsOffered, 100u + 130 + 160 + 190);
    EXPECT_EQ(b.kvRowsCarried, b.kvRowsOffered);
    // The store keeps the counts.
    EXPECT_EQ(backendFromJson(toJson(b)), b);

    // The fault, from the run's options as cohsim run --inject gives it, stops the run naming the sequence.
    backend.fault = real::parseInjectedFault("wrong-blocks@2");
    try {
        runOn(s, w, backend);
        FAIL() << "a copy of another sequence's blocks passed";
    } catch (const real::CopyCheckError& e) {
        EXPECT_NE(std::string(e.what()).find("landed K/V rows that are not sequence 1's"), std::string::npos)
            << e.what();
    }
}

TEST(RealCpuBackend, ACoherenceProtocolsDataMessagesCarryTheirBlocksRows)
{
    // Under MSI the prefill -> decode transfer is decode's read miss: the data messages of each group carry its
    // blocks' tokens (prefill's run of full blocks, the open tail), the control messages none.
    Scenario s = threeGpuScenario("msi-directory");
    s.model.layers = 4;
    const Workload w = spacedPrompts(3);
    const RunResult run = runOn(s, w, realCpu());
    const BackendSummary& b = run.summary.backend;
    EXPECT_GT(b.kvTransfersChecked, 0u);
    EXPECT_LT(b.kvTransfersChecked, b.copies); // requests, invalidations and acks carry no rows
    EXPECT_EQ(b.kvRowsCarried, b.kvRowsOffered);
    // Every prompt's tokens crossed to its decode node at least once.
    EXPECT_GE(b.kvRowsCarried, 100u + 130 + 160);

    BackendOptions wrong = realCpu();
    wrong.fault = real::parseInjectedFault("wrong-blocks");
    EXPECT_THROW(runOn(s, w, wrong), real::CopyCheckError);
}

} // namespace
} // namespace coh::test
