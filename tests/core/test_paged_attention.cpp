// The CPU paged decode attention against a float64 reference on random inputs with scattered block tables.
#include "attention_reference.h"
#include "core/real/paged_attention.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <span>
#include <vector>

namespace coh::test {
namespace {

using core::real::Half;
using core::real::PagedKvShape;
using core::real::PagedSequence;

// Random K, V and queries over a shuffled pool (every block table scattered, some blocks used by no sequence), the
// kernel's output against the float64 reference. Stated tolerance (docs/real-backend.md#attention): relative L2
// error under 1e-5 per sequence and head, and no element off by more than 1e-5 in absolute terms (the values are
// O(1)). An empty context gives zeros, not the -1 the output held. `fp16`: the pool holds the values rounded to fp16,
// and the reference reads those very values, so the kernel must be as close as over fp32 ones.
// `sharpness`: the scores' scale over the usual 1 / sqrt(head size); a large one leaves most weights exp(score - max)
// far below a float's range.
void expectMatchesOnScatteredBlocks(const PagedKvShape& shape, const std::vector<std::uint32_t>& contexts,
                                    std::uint64_t seed, bool fp16 = false, float sharpness = 1.0f)
{
    std::uint32_t blocks = 0;
    for (const auto c : contexts)
        blocks += (c + shape.blockTokens - 1) / shape.blockTokens;
    blocks += 7; // blocks no sequence uses

    std::mt19937_64 rng(seed);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::vector<float> k(std::size_t{blocks} * shape.blockFloats()), v(k.size());
    for (auto& x : k)
        x = normal(rng);
    for (auto& x : v)
        x = normal(rng);
    std::vector<Half> kHalf, vHalf;
    if (fp16) {
        for (auto* pool : {&k, &v}) {
            auto& half = pool == &k ? kHalf : vHalf;
            for (auto& x : *pool) {
                half.push_back(core::real::toHalf(x));
                x = core::real::toFloat(half.back());
            }
        }
    }
    // The pool's blocks handed out in a random order: every block table is scattered.
    std::vector<std::uint32_t> pool(blocks);
    std::iota(pool.begin(), pool.end(), 0u);
    std::shuffle(pool.begin(), pool.end(), rng);
    std::vector<std::vector<std::uint32_t>> tables;
    std::size_t next = 0;
    for (const auto c : contexts) {
        tables.emplace_back(pool.begin() + static_cast<std::ptrdiff_t>(next),
                            pool.begin() +
                                static_cast<std::ptrdiff_t>(next + (c + shape.blockTokens - 1) / shape.blockTokens));
        next += tables.back().size();
    }
    std::vector<PagedSequence> seqs;
    for (std::size_t i = 0; i < contexts.size(); ++i)
        seqs.push_back({tables[i], contexts[i]});
    std::vector<float> q(contexts.size() * shape.queryHeads * shape.headDim);
    for (auto& x : q)
        x = normal(rng);
    const float scale = sharpness / std::sqrt(static_cast<float>(shape.headDim));

    std::vector<float> out(q.size(), -1.0f);
    if (fp16)
        core::real::pagedDecodeAttention(shape, std::span<const Half>(kHalf), std::span<const Half>(vHalf), q, seqs,
                                         scale, out);
    else
        core::real::pagedDecodeAttention(shape, k, v, q, seqs, scale, out);
    expectMatchesReference(out, reference(shape, k, v, q, seqs, scale), shape, contexts, 1e-5, 1e-5);
}

TEST(PagedAttention, MatchesAFloat64ReferenceOnScatteredBlocks)
{
    PagedKvShape shape;
    shape.queryHeads = 8;
    shape.kvHeads = 2;   // four query heads per KV head
    shape.headDim = 100; // not a multiple of the kernel's eight lanes
    shape.blockTokens = 16;
    // Contexts: empty, inside one block, a block boundary exactly, long and ragged.
    expectMatchesOnScatteredBlocks(shape, {0, 5, 16, 1000, 333}, 42);
}

TEST(PagedAttention, ModelShapesMatchAFloat64ReferenceOnScatteredBlocks)
{
    // Llama-3-8B's 32 query heads over 8 KV heads of 128, eight per KV head of 64 (as Llama-3-70B groups them), two per
    // KV head, and blocks of 5 tokens: odd contexts leave partly filled last blocks.
    for (const PagedKvShape shape : {PagedKvShape{32, 8, 128, 16}, PagedKvShape{16, 2, 64, 16},
                                     PagedKvShape{8, 4, 128, 16}, PagedKvShape{8, 2, 16, 5}}) {
        SCOPED_TRACE(::testing::Message() << shape.queryHeads << " heads over " << shape.kvHeads << " of "
                                          << shape.headDim << ", blocks of " << shape.blockTokens);
        expectMatchesOnScatteredBlocks(shape, {1, 7, 16, 33, 511}, 5);
    }
}

TEST(PagedAttention, OddGroupsBlocksAndDimensionsMatchAFloat64Reference)
{
    // Groups of 3, 5 and 6 query heads per KV head, blocks of an odd number of tokens (3, 7) and head dimensions of 16
    // to 48, 20 not a multiple of the eight lanes, in fp32 and fp16 pools: the kernel's loops take any of them.
    for (const PagedKvShape shape : {PagedKvShape{12, 4, 32, 16}, PagedKvShape{20, 4, 48, 16},
                                     PagedKvShape{6, 1, 16, 3}, PagedKvShape{6, 2, 20, 7}}) {
        SCOPED_TRACE(::testing::Message() << shape.queryHeads << " heads over " << shape.kvHeads << " of "
                                          << shape.headDim << ", blocks of " << shape.blockTokens);
        expectMatchesOnScatteredBlocks(shape, {1, 2, 3, 16, 47, 200}, 11);
        expectMatchesOnScatteredBlocks(shape, {1, 3, 45}, 12, true);
    }
}

TEST(PagedAttention, EveryTileOfHeadsAndTailOfDimensionsMatchesAFloat64Reference)
{
    // The kernel serves a KV head's query heads four at a time and a head's dimensions eight or sixteen at a time:
    // groups of 1, 2 and 7 (a tile of three after one of four), head sizes under eight (4), of whole eights but not
    // sixteens (8, 24, 40) and of neither (12).
    for (const PagedKvShape shape : {PagedKvShape{4, 4, 24, 16}, PagedKvShape{14, 2, 40, 16}, PagedKvShape{3, 1, 4, 16},
                                     PagedKvShape{2, 2, 8, 16}, PagedKvShape{4, 2, 12, 16}}) {
        SCOPED_TRACE(::testing::Message()
                     << shape.queryHeads << " heads over " << shape.kvHeads << " of " << shape.headDim);
        expectMatchesOnScatteredBlocks(shape, {1, 8, 9, 16, 100}, 13);
        expectMatchesOnScatteredBlocks(shape, {7, 40}, 14, true);
    }
}

TEST(PagedAttention, ASharpSoftmaxMatchesTheReferenceWhereMostWeightsUnderflow)
{
    // Scores twenty times the usual spread: over hundreds of tokens most lie more than 87 below their block's
    // maximum, where a float's exp underflows, and the weights computed eight at a time must still sum as the
    // reference's.
    expectMatchesOnScatteredBlocks(PagedKvShape{32, 8, 128, 16}, {16, 300, 1000}, 15, false, 20.0f);
    expectMatchesOnScatteredBlocks(PagedKvShape{8, 2, 64, 16}, {33, 700}, 16, true, 20.0f);
}

TEST(PagedAttention, AnFp16PoolMatchesAFloat64ReferenceOverItsOwnValues)
{
    // The fp16 kernel widens each element as it reaches it and computes in fp32.
    expectMatchesOnScatteredBlocks(PagedKvShape{8, 2, 100, 16}, {0, 5, 16, 1000, 333}, 7, true);
    expectMatchesOnScatteredBlocks(PagedKvShape{32, 8, 128, 16}, {1, 7, 511}, 8, true);
    // A pool of the wrong size is refused as an fp32 one is.
    std::vector<Half> k(PagedKvShape{}.blockFloats()), v(k.size() - 1);
    std::vector<float> q(PagedKvShape{}.queryHeads * PagedKvShape{}.headDim), out(q.size());
    const std::vector<std::uint32_t> table{0};
    const std::vector<PagedSequence> seqs{{table, 3}};
    EXPECT_THROW(core::real::pagedDecodeAttention(PagedKvShape{}, std::span<const Half>(k), std::span<const Half>(v), q,
                                                  seqs, 1.0f, out),
                 std::invalid_argument);
}

TEST(PagedAttention, OneTokenReturnsItsValueAndEqualScoresAverage)
{
    PagedKvShape shape;
    shape.queryHeads = 2;
    shape.kvHeads = 1;
    shape.headDim = 8;
    shape.blockTokens = 4;
    std::vector<float> k(3 * shape.blockFloats(), 0.0f), v(k.size());
    for (std::size_t i = 0; i < v.size(); ++i)
        v[i] = static_cast<float>(i % 97);
    const std::vector<std::uint32_t> one{2}, three{1, 0};
    const std::vector<PagedSequence> seqs{{one, 1}, {three, 6}};
    std::vector<float> q(2 * shape.queryHeads * shape.headDim, 1.0f);
    std::vector<float> out(q.size());
    core::real::pagedDecodeAttention(shape, k, v, q, seqs, 1.0f, out);
    // One token: the output is its value row (block 2, token 0).
    for (std::uint32_t d = 0; d < shape.headDim; ++d)
        EXPECT_FLOAT_EQ(out[d], v[2 * shape.blockFloats() + d]);
    // Zero keys give every token the same score: the output is the mean of the six value rows (block 1 tokens 0-3,
    // block 0 tokens 0-1), for both query heads of the shared KV head.
    for (std::uint32_t h = 0; h < shape.queryHeads; ++h)
        for (std::uint32_t d = 0; d < shape.headDim; ++d) {
            double mean = 0;
            for (std::uint32_t t = 0; t < 6; ++t) {
                const std::uint32_t block = t < 4 ? 1 : 0;
                mean += v[block * shape.blockFloats() + (t % 4) * shape.headDim + d] / 6.0;
            }
            EXPECT_NEAR(out[(shape.queryHeads + h) * shape.headDim + d], mean, 1e-4);
        }
}

} // namespace
} // namespace coh::test
