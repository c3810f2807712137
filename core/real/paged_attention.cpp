#include "core/real/paged_attention.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <type_traits>
#include <vector>

namespace coh::core::real {

namespace {

// Eight floats, as one AVX register holds them (two SSE ones in the baseline build). GCC's vector extensions let the
// loops below say which sums stay in registers; `a * b + c` becomes one fused multiply-add where the build has FMA
// (this file is compiled with -ffp-contract=fast).
using Vec8 = float __attribute__((vector_size(32)));
// Every helper taking or returning one is inlined into the kernel's clones: no call passes a vector, so the baseline
// clone's different vector ABI (GCC's -Wpsabi note) never applies.
#pragma GCC diagnostic ignored "-Wpsabi"

[[gnu::always_inline]] inline Vec8 load8(const float* p)
{
    Vec8 v;
    std::memcpy(&v, p, sizeof v);
    return v;
}

[[gnu::always_inline]] inline void store8(float* p, Vec8 v)
{
    std::memcpy(p, &v, sizeof v);
}

[[gnu::always_inline]] inline float sum8(Vec8 v)
{
    return ((v[0] + v[4]) + (v[1] + v[5])) + ((v[2] + v[6]) + (v[3] + v[7]));
}

using Vec8i = std::int32_t __attribute__((vector_size(32)));

// exp(x) of eight lanes, x <= 0 (a score less its block's maximum): Cephes' expf, a degree-6 polynomial on the
// remainder after whole powers of two (relative error under 2e-7, where glibc's expf keeps under one ulp, 6e-8);
// below -87 it gives about 1.7e-38, a normal float, not 0.
[[gnu::always_inline]] inline Vec8 exp8(Vec8 x)
{
    const Vec8 lowest = Vec8{} - 87.0f;
    x = x < lowest ? lowest : x;
    Vec8 whole = x * 1.44269504088896341f + 0.5f; // x / ln 2 + 1/2: its floor is x / ln 2 rounded to nearest
    Vec8i n = __builtin_convertvector(whole, Vec8i);
    n += __builtin_convertvector(__builtin_convertvector(n, Vec8) > whole, Vec8i); // truncation rounded up: -1
    whole = __builtin_convertvector(n, Vec8);
    x = x - whole * 0.693359375f - whole * -2.12194440e-4f;
    Vec8 y = 1.9875691500e-4f * x + 1.3981999507e-3f;
    y = y * x + 8.3334519073e-3f;
    y = y * x + 4.1665795894e-2f;
    y = y * x + 1.6666665459e-1f;
    y = y * x + 5.0000001201e-1f;
    y = y * (x * x) + x + 1.0f;
    Vec8 scale;
    const Vec8i bits = (n + 127) << 23;
    std::memcpy(&scale, &bits, sizeof scale);
    return y * scale;
}

// Query heads a tile serves at once: four heads' sums over two key rows (eight AVX registers), or their value sums
// over sixteen dimensions (eight), leave room for the rows they read (the baseline build, two SSE registers a vector,
// spills some).
constexpr std::uint32_t kTileHeads = 4;

// scores[g * stride + r] = q_g . k_r * scale for G query heads (rows of q, dim apart) and R key rows (of k, dim
// apart): each key row is loaded once for the G heads.
template <std::uint32_t G, std::uint32_t R>
[[gnu::always_inline]] inline void scoreTile(const float* __restrict q, const float* __restrict k, std::uint32_t dim,
                                             float scale, float* __restrict scores, std::uint32_t stride)
{
    Vec8 sum[G][R] = {};
    std::uint32_t d = 0;
    for (; d + 8 <= dim; d += 8) {
        Vec8 rows[R];
        for (std::uint32_t r = 0; r < R; ++r)
            rows[r] = load8(k + std::size_t{r} * dim + d);
        for (std::uint32_t g = 0; g < G; ++g) {
            const Vec8 qv = load8(q + std::size_t{g} * dim + d);
            for (std::uint32_t r = 0; r < R; ++r)
                sum[g][r] += qv * rows[r];
        }
    }
    for (std::uint32_t g = 0; g < G; ++g)
        for (std::uint32_t r = 0; r < R; ++r) {
            float total = sum8(sum[g][r]);
            for (std::uint32_t e = d; e < dim; ++e)
                total += q[std::size_t{g} * dim + e] * k[std::size_t{r} * dim + e];
            scores[std::size_t{g} * stride + r] = total * scale;
        }
}

template <std::uint32_t G>
[[gnu::always_inline]] inline void scoreHeads(const float* q, const float* k, std::uint32_t tokens, std::uint32_t dim,
                                              float scale, float* scores, std::uint32_t stride)
{
    std::uint32_t t = 0;
    for (; t + 2 <= tokens; t += 2)
        scoreTile<G, 2>(q, k + std::size_t{t} * dim, dim, scale, scores + t, stride);
    if (t < tokens)
        scoreTile<G, 1>(q, k + std::size_t{t} * dim, dim, scale, scores + t, stride);
}

// acc_g = acc_g * correction[g] + sum_t p[g * stride + t] * v_t for G heads' value sums (rows of acc, dim apart):
// sixteen dimensions of every head at a time, held in registers over the block's rows.
template <std::uint32_t G>
[[gnu::always_inline]] inline void valueHeads(float* __restrict acc, const float* __restrict correction,
                                              const float* __restrict p, std::uint32_t stride,
                                              const float* __restrict v, std::uint32_t tokens, std::uint32_t dim)
{
    std::uint32_t d = 0;
    for (; d + 16 <= dim; d += 16) {
        Vec8 lo[G], hi[G];
        for (std::uint32_t g = 0; g < G; ++g) {
            lo[g] = load8(acc + std::size_t{g} * dim + d) * correction[g];
            hi[g] = load8(acc + std::size_t{g} * dim + d + 8) * correction[g];
        }
        for (std::uint32_t t = 0; t < tokens; ++t) {
            const Vec8 v0 = load8(v + std::size_t{t} * dim + d), v1 = load8(v + std::size_t{t} * dim + d + 8);
            for (std::uint32_t g = 0; g < G; ++g) {
                const float pg = p[std::size_t{g} * stride + t];
                lo[g] += pg * v0;
                hi[g] += pg * v1;
            }
        }
        for (std::uint32_t g = 0; g < G; ++g) {
            store8(acc + std::size_t{g} * dim + d, lo[g]);
            store8(acc + std::size_t{g} * dim + d + 8, hi[g]);
        }
    }
    for (; d < dim; ++d)
        for (std::uint32_t g = 0; g < G; ++g) {
            float a = acc[std::size_t{g} * dim + d] * correction[g];
            for (std::uint32_t t = 0; t < tokens; ++t)
                a += p[std::size_t{g} * stride + t] * v[std::size_t{t} * dim + d];
            acc[std::size_t{g} * dim + d] = a;
        }
}

// The same for any count of heads: in tiles of kTileHeads, the last one smaller.
template <class Tile> [[gnu::always_inline]] inline void inHeadTiles(std::uint32_t heads, Tile&& tile)
{
    for (std::uint32_t g = 0; g < heads; g += kTileHeads)
        switch (std::min(kTileHeads, heads - g)) {
        case 4:
            tile(g, std::integral_constant<std::uint32_t, 4>{});
            break;
        case 3:
            tile(g, std::integral_constant<std::uint32_t, 3>{});
            break;
        case 2:
            tile(g, std::integral_constant<std::uint32_t, 2>{});
            break;
        default:
            tile(g, std::integral_constant<std::uint32_t, 1>{});
            break;
        }
}

// The running softmax of one query head: the largest score so far and the sum of exp(score - max); its
// exp-weighted sum of value rows is its row of the sequence's accumulators.
struct HeadState {
    float max = -std::numeric_limits<float>::infinity();
    float sum = 0;
};

// Asks for `bytes` from `p` on into the caches ahead of their use: the next block of a table is anywhere in the pool,
// where the hardware's prefetcher cannot guess it.
[[gnu::always_inline]] inline void prefetch(const void* p, std::size_t bytes)
{
    const auto* c = static_cast<const char*>(p);
    for (std::size_t at = 0; at < bytes; at += 64)
        __builtin_prefetch(c + at); // every level: asking for L2 alone measured slower here
}

// One build for x86-64-v3 (AVX2 and FMA: 8 lanes, fused multiply-add) beside the baseline, picked at load time by
// what the CPU has; the helpers above are inlined into each. Elsewhere the baseline alone.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define COH_KERNEL_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define COH_KERNEL_CLONES
#endif

// The kernel for either element; each clone below inlines it whole. A sequence's blocks are read in table order, each
// front to back (every KV head's rows, as they lie), with the next block asked for ahead; each query head keeps its
// running softmax and value sums across the blocks. An fp16 pool's rows of a block are widened into fp32 scratch (a
// few KB, in L1) as they are reached, so the arithmetic is the fp32 kernel's.
template <class T>
[[gnu::always_inline]] inline void
attendOver(const PagedKvShape& shape, std::span<const T> kPool, std::span<const T> vPool, std::span<const float> q,
           std::span<const PagedSequence> sequences, float scale, std::span<float> out)
{
    const std::uint32_t dim = shape.headDim;
    const std::uint32_t group = shape.group();
    const std::uint32_t stride = shape.blockTokens; // a head's scores of one block
    const std::size_t headFloats = std::size_t{shape.queryHeads} * dim;
    const std::size_t headBlockFloats = std::size_t{shape.blockTokens} * dim; // one KV head's rows of a block
    std::vector<float> scores(std::size_t{group} * stride);
    std::vector<float> acc(headFloats);
    std::vector<HeadState> heads(shape.queryHeads);
    std::vector<float> correction(group);
    std::vector<float> kWide, vWide;
    if constexpr (!std::is_same_v<T, float>) {
        kWide.resize(headBlockFloats);
        vWide.resize(headBlockFloats);
    }
    for (std::size_t s = 0; s < sequences.size(); ++s) {
        const PagedSequence& seq = sequences[s];
        const float* qSeq = q.data() + s * headFloats;
        std::fill(acc.begin(), acc.end(), 0.0f);
        std::fill(heads.begin(), heads.end(), HeadState{});
        std::uint32_t left = seq.contextTokens;
        for (std::size_t b = 0; left > 0 && b < seq.blocks.size(); ++b) {
            const std::uint32_t tokens = std::min(left, shape.blockTokens);
            const std::size_t block = std::size_t{seq.blocks[b]} * shape.blockFloats();
            if (left > tokens && b + 1 < seq.blocks.size()) {
                const std::size_t next = std::size_t{seq.blocks[b + 1]} * shape.blockFloats();
                prefetch(kPool.data() + next, shape.blockFloats() * sizeof(T));
                prefetch(vPool.data() + next, shape.blockFloats() * sizeof(T));
            }
            for (std::uint32_t kvHead = 0; kvHead < shape.kvHeads; ++kvHead) {
                const std::size_t base = block + kvHead * headBlockFloats;
                const float* k = nullptr;
                const float* v = nullptr;
                if constexpr (std::is_same_v<T, float>) {
                    k = kPool.data() + base;
                    v = vPool.data() + base;
                } else {
                    widen(kPool.data() + base, kWide.data(), std::size_t{tokens} * dim);
                    widen(vPool.data() + base, vWide.data(), std::size_t{tokens} * dim);
                    k = kWide.data();
                    v = vWide.data();
                }
                const std::size_t firstHead = std::size_t{kvHead} * group;
                const float* qGroup = qSeq + firstHead * dim;
                // Each key row once, against every query head of the group.
                inHeadTiles(group, [&](std::uint32_t g, auto tileHeads) [[gnu::always_inline]] {
                    scoreHeads<decltype(tileHeads)::value>(qGroup + std::size_t{g} * dim, k, tokens, dim, scale,
                                                           scores.data() + std::size_t{g} * stride, stride);
                });
                // The online softmax: rescale what was summed under the old maximum (exp(-inf) = 0 on the first
                // block), and turn the scores into weights.
                for (std::uint32_t g = 0; g < group; ++g) {
                    HeadState& head = heads[firstHead + g];
                    float* row = scores.data() + std::size_t{g} * stride;
                    float blockMax = head.max;
                    for (std::uint32_t t = 0; t < tokens; ++t)
                        blockMax = std::max(blockMax, row[t]);
                    correction[g] = std::exp(head.max - blockMax);
                    float sum = head.sum * correction[g];
                    std::uint32_t t = 0;
                    for (; t + 8 <= tokens; t += 8) {
                        const Vec8 p = exp8(load8(row + t) - blockMax);
                        store8(row + t, p);
                        sum += sum8(p);
                    }
                    for (; t < tokens; ++t) {
                        row[t] = std::exp(row[t] - blockMax);
                        sum += row[t];
                    }
                    head.sum = sum;
                    head.max = blockMax;
                }
                float* accGroup = acc.data() + firstHead * dim;
                inHeadTiles(group, [&](std::uint32_t g, auto tileHeads) [[gnu::always_inline]] {
                    valueHeads<decltype(tileHeads)::value>(accGroup + std::size_t{g} * dim, correction.data() + g,
                                                           scores.data() + std::size_t{g} * stride, stride, v, tokens,
                                                           dim);
                });
            }
            left -= tokens;
        }
        float* o = out.data() + s * headFloats;
        for (std::uint32_t h = 0; h < shape.queryHeads; ++h) {
            const float inv = heads[h].sum > 0 ? 1.0f / heads[h].sum : 0.0f;
            for (std::uint32_t d = 0; d < dim; ++d)
                o[std::size_t{h} * dim + d] = acc[std::size_t{h} * dim + d] * inv;
        }
    }
}

COH_KERNEL_CLONES void attend(const PagedKvShape& shape, std::span<const float> kPool, std::span<const float> vPool,
                              std::span<const float> q, std::span<const PagedSequence> sequences, float scale,
                              std::span<float> out)
{
    attendOver(shape, kPool, vPool, q, sequences, scale, out);
}

COH_KERNEL_CLONES void attend(const PagedKvShape& shape, std::span<const Half> kPool, std::span<const Half> vPool,
                              std::span<const float> q, std::span<const PagedSequence> sequences, float scale,
                              std::span<float> out)
{
    attendOver(shape, kPool, vPool, q, sequences, scale, out);
}

// The kernel trusts its arguments in the loops; they are checked once here.
template <class T>
void attendChecked(const PagedKvShape& shape, std::span<const T> kPool, std::span<const T> vPool,
                   std::span<const float> q, std::span<const PagedSequence> sequences, float scale,
                   std::span<float> out)
{
    if (shape.kvHeads == 0 || shape.queryHeads % shape.kvHeads != 0 || shape.headDim == 0 || shape.blockTokens == 0)
        throw std::invalid_argument("paged attention: query heads must be a positive multiple of the KV heads");
    const std::size_t heads = sequences.size() * shape.queryHeads * shape.headDim;
    if (q.size() < heads || out.size() < heads || kPool.size() != vPool.size())
        throw std::invalid_argument("paged attention: q, out or the pools do not match the sequences");
    for (const auto& seq : sequences) {
        if (std::size_t{seq.contextTokens} > seq.blocks.size() * std::size_t{shape.blockTokens})
            throw std::invalid_argument("paged attention: a block table is shorter than its context");
        for (const std::uint32_t b : seq.blocks)
            if ((std::size_t{b} + 1) * shape.blockFloats() > kPool.size())
                throw std::invalid_argument("paged attention: a block table names a block past the pool");
    }
    attend(shape, kPool, vPool, q, sequences, scale, out);
}

} // namespace

void pagedDecodeAttention(const PagedKvShape& shape, std::span<const float> kPool, std::span<const float> vPool,
                          std::span<const float> q, std::span<const PagedSequence> sequences, float scale,
                          std::span<float> out)
{
    attendChecked(shape, kPool, vPool, q, sequences, scale, out);
}

void pagedDecodeAttention(const PagedKvShape& shape, std::span<const Half> kPool, std::span<const Half> vPool,
                          std::span<const float> q, std::span<const PagedSequence> sequences, float scale,
                          std::span<float> out)
{
    attendChecked(shape, kPool, vPool, q, sequences, scale, out);
}

} // namespace coh::core::real
