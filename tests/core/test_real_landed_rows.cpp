// A decode pool takes its sequences' context rows from the bytes their transfers landed in the node's memory, while
// the memory still holds them (core/real/landed_kv_rows.h), rather than computing them again.
#include "core/gpu/cuda_devices.h"
#include "core/gpu/kv_rows.h"
#include "core/real/gpu_nodes.h"
#include "core/real/half.h"
#include "core/real/kv_payload_rows.h"
#include "core/real/landed_kv_rows.h"
#include "core/real/node_workers.h"
#include "core/store/backend_json.h"
#include "engine_fixtures.h"
#include "kv_tier_fixtures.h"
#include "real_run_fixtures.h"

#include <gtest/gtest.h>

#include <cstring>

namespace coh::test {
namespace {

using Wanted = real::LandedKvRows::RowsWanted;

constexpr real::KvRowsLayout kLayout{.kvHeads = 2, .headDim = 8, .blockTokens = 4, .elementBytes = 2};

std::unique_ptr<real::NodeResources> makeNodes(const std::string& backend, const Topology& topo)
{
    const real::RealCpuOptions options{64 << 10, 1, 0};
    if (backend == "real-cuda")
        return std::make_unique<real::GpuNodes>(topo, options, 1, probeGpus().devices);
    return std::make_unique<real::NodeWorkers>(topo, options, 1);
}

float halfAt(const std::vector<std::byte>& rows, std::size_t element)
{
    real::Half h;
    std::memcpy(&h, rows.data() + element * 2, 2);
    return real::toFloat(h);
}

float pooled(std::uint32_t sequence, std::uint32_t token, std::uint32_t head, std::uint32_t dim, bool isV)
{
    return real::toFloat(real::fromFloat<real::Half>(kvRowValue(sequence, token, head, dim, isV)));
}

// Puts a payload's rows into node 1's memory in two stretches, the second half first, and records them landed.
std::vector<real::LandedKvRows::Segment> land(real::NodeResources& nodes, const KvPayload& payload, std::size_t at)
{
    std::vector<std::byte> rows;
    real::composeRows(kLayout, payload, payload.tokens, payload.sequence, rows);
    const std::size_t firstHalf = rows.size() / 2;
    const std::vector<real::LandedKvRows::Segment> segments{{at + firstHalf + 64, 0, firstHalf},
                                                            {at, firstHalf, rows.size() - firstHalf}};
    for (const auto& s : segments)
        nodes.writeBytes(1, s.memory, std::span(rows).subspan(s.payload, s.bytes));
    nodes.landedRows().landed(1, kLayout, payload, payload.tokens, segments);
    return segments;
}

TEST(LandedKvRows, RowsAreReadOutOfTheMemoryTheyLandedIn)
{
    const Topology topo = twoGpuScenario().topology;
    real::NodeWorkers nodes(topo, {64 << 10, 1, 0}, 1);
    real::LandedKvRows& landed = nodes.landedRows();
    // Sequence 5's tokens 16 to 37 (6 blocks of 4, the last half filled), both KV heads.
    const auto segments = land(nodes, {.sequence = 5, .firstToken = 16, .tokens = 22, .shard = 0, .shards = 1}, 0);
    EXPECT_EQ(landed.held(), 1u);

    // A pool block's rows, tokens 21 to 23, in the pool's layout: K [head][row][dimension], then V.
    const Wanted wanted{.sequence = 5, .firstToken = 21, .tokens = 3, .kvHeads = 2, .headDim = 8, .elementBytes = 2};
    ASSERT_EQ(landed.rowsHeld(1, wanted), 3u);
    std::vector<std::byte> out(4); // what was there before stays
    landed.read(nodes, 1, wanted, 3, out);
    ASSERT_EQ(out.size(), 4 + 2 * 2 * 3 * 8 * 2u);
    EXPECT_EQ(real::notTheSequences(wanted, 3, std::span(out).subspan(4)), std::nullopt);
    EXPECT_TRUE(real::notTheSequences({.sequence = 6, .firstToken = 21, .tokens = 3, .kvHeads = 2, .headDim = 8}, 3,
                                      std::span(out).subspan(4)));
    for (std::uint32_t head = 0; head < 2; ++head)
        for (std::uint32_t row = 0; row < 3; ++row)
            for (std::uint32_t dim = 0; dim < 8; ++dim) {
                const std::size_t k = 2 + (head * 3 + row) * 8 + dim;
                EXPECT_EQ(halfAt(out, k), pooled(5, 21 + row, head, dim, false));
                EXPECT_EQ(halfAt(out, k + 2 * 3 * 8), pooled(5, 21 + row, head, dim, true));
            }

    // Past the last token it carried, only the rows it holds; before its first, another sequence's, another
    // element or a node it did not land in, none.
    EXPECT_EQ(landed.rowsHeld(1, {.sequence = 5, .firstToken = 36, .tokens = 4, .kvHeads = 2, .headDim = 8}), 2u);
    EXPECT_EQ(landed.rowsHeld(1, {.sequence = 5, .firstToken = 12, .tokens = 4, .kvHeads = 2, .headDim = 8}), 0u);
    EXPECT_EQ(landed.rowsHeld(1, {.sequence = 6, .firstToken = 16, .tokens = 4, .kvHeads = 2, .headDim = 8}), 0u);
    EXPECT_EQ(landed.rowsHeld(
                  1, {.sequence = 5, .firstToken = 16, .tokens = 4, .kvHeads = 2, .headDim = 8, .elementBytes = 4}),
              0u);
    EXPECT_EQ(landed.rowsHeld(0, wanted), 0u);
    EXPECT_THROW(
        landed.read(nodes, 1, {.sequence = 5, .firstToken = 36, .tokens = 4, .kvHeads = 2, .headDim = 8}, 3, out),
        std::logic_error);

    // What is read is what the memory holds now, not the sequence's values computed again: a byte changed there
    // behind the record's back (a stray write) shows.
    const std::byte changed{0x7f};
    std::memcpy(nodes[1].arena().data() + segments[1].memory, &changed, 1);
    out.clear();
    landed.read(nodes, 1, {.sequence = 5, .firstToken = 28, .tokens = 1, .kvHeads = 2, .headDim = 8}, 1, out);
    std::byte first;
    std::memcpy(&first, out.data(), 1);
    EXPECT_EQ(first, changed); // token 28 is the first of the second stretch: block 3, head 0, dimension 0
    EXPECT_EQ(real::notTheSequences({.sequence = 5, .firstToken = 28, .tokens = 1, .kvHeads = 2, .headDim = 8}, 1, out),
              "token 28's K at KV head 0, dimension 0 is not sequence 5's");

    // A write through the node's resource loses the rows it wrote over, whoever makes it.
    const Wanted token16{.sequence = 5, .firstToken = 16, .tokens = 1, .kvHeads = 2, .headDim = 8, .elementBytes = 2};
    EXPECT_EQ(landed.rowsHeld(1, token16), 1u);
    nodes.writeBytes(1, segments[0].memory, std::span(&changed, 1));
    EXPECT_EQ(landed.rowsHeld(1, token16), 0u);

    // Memory written over loses the rows whose bytes it wrote, and no others; memory beside it loses none.
    const Wanted block2{.sequence = 5, .firstToken = 24, .tokens = 4, .kvHeads = 2, .headDim = 8, .elementBytes = 2};
    landed.overwritten(1, segments[1].memory + segments[1].bytes, 64);
    landed.overwritten(1, segments[0].memory + segments[0].bytes, 64);
    EXPECT_EQ(landed.rowsHeld(1, block2), 4u);
    // The first stretch's last byte is token 27's V at head 1: tokens 24 to 26 are still whole.
    landed.overwritten(1, segments[0].memory + segments[0].bytes - 1, 8);
    EXPECT_EQ(landed.rowsHeld(1, block2), 3u);
    EXPECT_EQ(landed.rowsHeld(1, wanted), 3u);
    EXPECT_EQ(landed.held(), 1u);
    // A write into the middle of token 21's K at head 0 ends the rows held there.
    landed.overwritten(1, segments[0].memory + 256 + (1 * 8 + 1) * 2, 2); // block 1, K, head 0, row 1, dimension 1
    EXPECT_EQ(landed.rowsHeld(1, wanted), 0u);
    EXPECT_EQ(landed.rowsHeld(1, {.sequence = 5, .firstToken = 22, .tokens = 2, .kvHeads = 2, .headDim = 8}), 2u);
    EXPECT_THROW(landed.read(nodes, 1, wanted, 1, out), std::logic_error);
    // Once every stretch is written over, nothing of it is held.
    landed.overwritten(1, 0, 1 << 16);
    EXPECT_EQ(landed.held(), 0u);
    EXPECT_EQ(landed.rowsHeld(1, block2), 0u);
}

TEST(LandedKvRows, RowsSetAsideForAPoolAreGivenBackOldestFirstPastItsBudget)
{
    const Topology topo = twoGpuScenario().topology;
    real::NodeWorkers nodes(topo, {64 << 10, 1, 0}, 1);
    real::LandedKvRows& landed = nodes.landedRows();
    const std::size_t rows = 8 * 2 * 8 * 2 * 2; // 8 tokens, K and V of 2 heads of 8, fp16
    // A node without a pool sets nothing aside.
    land(nodes, {.sequence = 5, .firstToken = 0, .tokens = 8}, 0);
    EXPECT_FALSE(landed.setAside(1, 0, 1 << 16));
    // With one, a landing's bytes are set aside, and only they.
    landed.setAsideFor(1, rows + rows / 2);
    land(nodes, {.sequence = 6, .firstToken = 0, .tokens = 8}, 8192);
    EXPECT_EQ(landed.setAsideBytes(1), rows);
    EXPECT_TRUE(landed.setAside(1, 8192, 1));
    EXPECT_TRUE(landed.setAside(1, 0, 8193));
    EXPECT_FALSE(landed.setAside(1, 0, 8192));
    EXPECT_FALSE(landed.setAside(0, 8192, 1));
    // Past the budget the oldest goes back: its rows are still held, but no longer set aside.
    land(nodes, {.sequence = 7, .firstToken = 0, .tokens = 8}, 16384);
    EXPECT_EQ(landed.setAsideBytes(1), rows);
    EXPECT_FALSE(landed.setAside(1, 8192, 1024));
    EXPECT_TRUE(landed.setAside(1, 16384, 1024));
    const Wanted six{.sequence = 6, .firstToken = 0, .tokens = 8, .kvHeads = 2, .headDim = 8, .elementBytes = 2};
    EXPECT_EQ(landed.rowsHeld(1, six), 8u);
    // Bytes written over (a message that found no room around them) are set aside no longer.
    landed.overwritten(1, 16384, 100);
    EXPECT_EQ(landed.setAsideBytes(1), rows - 100);
    // The pool took sequence 7's rows: nothing is set aside.
    landed.taken(1, 7);
    EXPECT_EQ(landed.setAsideBytes(1), 0u);
    EXPECT_FALSE(landed.setAside(1, 0, 1 << 16));
}

TEST(LandedKvRows, APoolsHeadsComeFromEachShardThatCarriedThem)
{
    const Topology topo = twoGpuScenario().topology;
    real::NodeWorkers nodes(topo, {64 << 10, 1, 0}, 1);
    real::LandedKvRows& landed = nodes.landedRows();
    const Wanted both{.sequence = 2, .firstToken = 0, .tokens = 4, .kvHeads = 2, .headDim = 8, .elementBytes = 2};
    // A prefill instance twice as wide as its decode instance sends two shards of one head each.
    land(nodes, {.sequence = 2, .firstToken = 0, .tokens = 8, .shard = 1, .shards = 2}, 0);
    EXPECT_EQ(landed.rowsHeld(1, both), 0u); // head 0 has not landed
    land(nodes, {.sequence = 2, .firstToken = 0, .tokens = 6, .shard = 0, .shards = 2}, 8192);
    EXPECT_EQ(landed.rowsHeld(1, both), 4u);
    EXPECT_EQ(landed.rowsHeld(1, {.sequence = 2, .firstToken = 4, .tokens = 4, .kvHeads = 2, .headDim = 8}), 2u);
    std::vector<std::byte> out;
    landed.read(nodes, 1, both, 4, out);
    EXPECT_EQ(halfAt(out, (0 * 4 + 3) * 8 + 5), pooled(2, 3, 0, 5, false));
    EXPECT_EQ(halfAt(out, 2 * 4 * 8 + (1 * 4 + 2) * 8 + 7), pooled(2, 2, 1, 7, true));
}

class LandedPoolWrites : public OnEachRealBackend {};
INSTANTIATE_TEST_SUITE_P(Backends, LandedPoolWrites, kRealBackends, backendTestName);

// The first `rows` rows of a block of `sequence`'s tokens from 0, as a write takes them: K [head][row][dimension],
// then V, appended to `out`.
void appendRows(std::uint32_t sequence, std::uint32_t rows, std::vector<std::byte>& out)
{
    std::vector<std::byte> block;
    real::composeRows(kLayout, {.sequence = sequence, .tokens = 4}, 4, sequence, block);
    const std::size_t rowBytes = 8 * 2, blockHalf = 2 * 4 * rowBytes;
    for (const std::size_t half : {std::size_t{0}, blockHalf})
        for (std::uint32_t head = 0; head < 2; ++head) {
            const auto from = block.begin() + static_cast<std::ptrdiff_t>(half + head * 4 * rowBytes);
            out.insert(out.end(), from, from + static_cast<std::ptrdiff_t>(rows * rowBytes));
        }
}

TEST_P(LandedPoolWrites, AWriteTakesItsLandedRowsAsGivenAndSealsThem)
{
    const Topology topo = twoGpuScenario().topology;
    const real::PagedKvShape shape{.queryHeads = 4, .kvHeads = 2, .headDim = 8, .blockTokens = 4};
    auto landedNodes = makeNodes(GetParam(), topo), computedNodes = makeNodes(GetParam(), topo);
    real::NodeAttention& pool = landedNodes->attention(1, shape, 2);
    real::NodeAttention& computed = computedNodes->attention(1, shape, 2);
    // Behind 6 bytes of something else: sequence 7's first two rows, then sequence 99's first three.
    std::vector<std::byte> landed(6);
    appendRows(7, 2, landed);
    const std::uint64_t at99 = landed.size();
    appendRows(99, 3, landed);
    // Both writes are sequence 7's: block 1 takes two rows as landed and computes its third; block 2 takes all three
    // as landed, another sequence's values.
    const std::vector<KvRowWrite> writes{
        {.block = 1, .sequence = 7, .firstToken = 0, .fromRow = 0, .toRow = 3, .landedRows = 2, .landedAt = 6},
        {.block = 2, .sequence = 7, .firstToken = 0, .fromRow = 0, .toRow = 3, .landedRows = 3, .landedAt = at99}};
    pool.write(writes, landed);
    const std::vector<KvRowWrite> computedWrites{
        {.block = 1, .sequence = 7, .firstToken = 0, .fromRow = 0, .toRow = 3},
        {.block = 2, .sequence = 99, .firstToken = 0, .fromRow = 0, .toRow = 3}};
    computed.write(computedWrites, {});

    const std::vector<std::uint32_t> blocks{1, 2};
    const auto copyOf = [](std::span<const std::uint32_t> s) { return std::vector<std::uint32_t>(s.begin(), s.end()); };
    const std::vector<std::uint32_t> sums = copyOf(pool.checksums(blocks));
    const std::vector<std::uint32_t> expected = copyOf(computed.checksums(blocks));
    // Each holds what it was given and sealed it: block 2 sequence 99's rows, though its stamp says sequence 7.
    EXPECT_EQ(sums, expected);
    EXPECT_NE(sums[0], sums[1]);
    EXPECT_EQ(pool.stamps()[1].checksum, sums[0]);
    EXPECT_EQ(pool.stamps()[2].checksum, sums[1]);
    EXPECT_EQ(pool.stamps()[2].sequence, 7u);

    // Landed rows past the bytes given are refused.
    KvRowWrite past = writes[1];
    past.landedAt = at99 + 2;
    EXPECT_THROW(pool.write(std::span(&past, 1), landed), std::invalid_argument);
}

TEST(RealCpuBackend, AFirstDecodeStepTakesItsContextFromTheBytesItsTransferLanded)
{
    Scenario s = twoGpuScenario();
    s.model.layers = 4; // a message holds four layers: the first one's rows fit it
    const Workload w = spacedPrompts(4);
    // Every row a pool takes is compared with the sequence's values as it is read, so a row read from the wrong
    // place stops the run.
    BackendOptions backend = realCpu();
    backend.realCpu.checkLandedRows = true;
    const RunResult run = runOn(s, w, backend);
    const BackendSummary& b = run.summary.backend;
    ASSERT_EQ(b.kvRowsCarried, 100u + 130 + 160 + 190);
    // Each sequence's first step writes its prompt's rows, every one as its transfer landed it; its appends are
    // computed, as decode makes them.
    EXPECT_EQ(b.kvRowsLanded, b.kvRowsCarried);
    EXPECT_EQ(b.kvRowsWritten - b.kvRowsAppended, b.kvRowsLanded);
    EXPECT_GT(b.kvRowsAppended, 0u);
    // The store keeps the count.
    EXPECT_EQ(backendFromJson(toJson(b)).kvRowsLanded, b.kvRowsLanded);

    // Under a coherence protocol the rows come from its data messages.
    Scenario msiScenario = threeGpuScenario("msi-directory");
    msiScenario.model.layers = 4;
    const RunResult msi = runOn(msiScenario, w, backend);
    EXPECT_GT(msi.summary.backend.kvRowsLanded, 0u);
    // A fill sent to a writer ahead of its append carries the token it is about to append; decode makes that row
    // itself, so only context rows are taken from landed bytes.
    const BackendSummary& m = msi.summary.backend;
    EXPECT_LE(m.kvRowsLanded, m.kvRowsWritten - m.kvRowsAppended);
}

TEST(RealCpuBackend, ASequenceFetchedBackFromATierTakesItsContextFromTheBytesItsFetchLanded)
{
    Scenario s = twoGpuScenario();
    s.model.layers = 4; // a message holds four layers: the first one's rows fit it
    BackendOptions backend = realCpu();
    backend.realCpu.checkLandedRows = true;
    for (const std::string protocol : {"direct", "msi-directory"}) {
        SCOPED_TRACE(protocol);
        // The two sequences outgrow the decode GPU's 20 blocks together: one goes to h0's DRAM and comes back. Its pool
        // gave its blocks back when it left the batch, so its first step after the fetch writes its context again.
        const RunResult run = runOn(withKvTiers(s, {Tier::Dram}, protocol), twoLongSequences(), backend);
        ASSERT_TRUE(run.summary.kvTiers.enabled);
        const KvTierUsage& tier = run.summary.kvTiers.tiers.front();
        ASSERT_GE(tier.fetches, 1u);
        const BackendSummary& b = run.summary.backend;
        const std::uint64_t context = b.kvRowsWritten - b.kvRowsAppended;
        // Beyond the two prompts, a fetched sequence's context: more than a block of it.
        EXPECT_GT(context, 200u + s.serving.blockTokens);
        // Every context row as a transfer landed it: the prompts' from prefill's transfers, a fetched sequence's from
        // its fetch (its offload's and fetch's data messages carry the rows of the blocks they move).
        EXPECT_EQ(b.kvRowsLanded, context);
    }
}

} // namespace
} // namespace coh::test
