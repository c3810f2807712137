#include "core/real/paged_attention.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <type_traits>
#include <vector>

namespace coh::core::real {

namespace {

// The reduction may be reordered into vector lanes (-fopenmp-simd; no OpenMP runtime is involved).
inline float dot(const float* __restrict a, const float* __restrict b, std::uint32_t dim)
{
    float sum = 0;
#pragma omp simd reduction(+ : sum)
    for (std::uint32_t d = 0; d < dim; ++d)
        sum += a[d] * b[d];
    return sum;
}

// The running softmax of one query head: the largest score so far, the sum of exp(score - max), and the
// exp-weighted sum of the value rows.
struct HeadState {
    float max = -std::numeric_limits<float>::infinity();
    float sum = 0;
    float* acc = nullptr; // headDim floats
};

// Folds one block's scores (already computed) and value rows into a head's state.
inline void fold(HeadState& head, const float* __restrict scores, const float* __restrict v, std::uint32_t tokens,
                 std::uint32_t dim)
{
    float blockMax = head.max;
    for (std::uint32_t t = 0; t < tokens; ++t)
        blockMax = std::max(blockMax, scores[t]);
    // Rescale what was summed under the old maximum (exp(-inf) = 0 on the first block).
    const float correction = std::exp(head.max - blockMax);
    head.sum *= correction;
    float* __restrict acc = head.acc;
#pragma omp simd
    for (std::uint32_t d = 0; d < dim; ++d)
        acc[d] *= correction;
    for (std::uint32_t t = 0; t < tokens; ++t) {
        const float p = std::exp(scores[t] - blockMax);
        head.sum += p;
        const float* __restrict vt = v + std::size_t{t} * dim;
#pragma omp simd
        for (std::uint32_t d = 0; d < dim; ++d)
            acc[d] += p * vt[d];
    }
    head.max = blockMax;
}

// One build for x86-64-v3 (AVX2 and FMA: 8 lanes, fused multiply-add) beside the baseline, picked at load time by
// what the CPU has; the helpers above are inlined into each. Elsewhere the baseline alone.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define COH_KERNEL_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define COH_KERNEL_CLONES
#endif

// The kernel for either element; each clone below inlines it whole. An fp16 pool's rows of a block are widened into
// fp32 scratch (a few KB, in L1) as the block is reached, so the arithmetic is the fp32 kernel's.
template <class T>
[[gnu::always_inline]] inline void
attendOver(const PagedKvShape& shape, std::span<const T> kPool, std::span<const T> vPool, std::span<const float> q,
           std::span<const PagedSequence> sequences, float scale, std::span<float> out)
{
    const std::uint32_t dim = shape.headDim;
    const std::uint32_t group = shape.group();
    const std::size_t headFloats = std::size_t{shape.queryHeads} * dim;
    const std::size_t headBlockFloats = std::size_t{shape.blockTokens} * dim; // one KV head's rows of a block
    std::vector<float> scores(std::size_t{group} * shape.blockTokens);
    std::vector<float> acc(std::size_t{group} * dim);
    std::vector<HeadState> heads(group);
    std::vector<float> kWide, vWide;
    if constexpr (!std::is_same_v<T, float>) {
        kWide.resize(headBlockFloats);
        vWide.resize(headBlockFloats);
    }
    for (std::size_t s = 0; s < sequences.size(); ++s) {
        const PagedSequence& seq = sequences[s];
        for (std::uint32_t kvHead = 0; kvHead < shape.kvHeads; ++kvHead) {
            const float* qGroup = q.data() + s * headFloats + std::size_t{kvHead} * group * dim;
            std::fill(acc.begin(), acc.end(), 0.0f);
            for (std::uint32_t g = 0; g < group; ++g)
                heads[g] = HeadState{-std::numeric_limits<float>::infinity(), 0, acc.data() + std::size_t{g} * dim};
            std::uint32_t left = seq.contextTokens;
            for (std::size_t b = 0; left > 0 && b < seq.blocks.size(); ++b) {
                const std::uint32_t tokens = std::min(left, shape.blockTokens);
                const std::size_t base = std::size_t{seq.blocks[b]} * shape.blockFloats() + kvHead * headBlockFloats;
                const float* k = nullptr;
                const float* vRows = nullptr;
                if constexpr (std::is_same_v<T, float>) {
                    k = kPool.data() + base;
                    vRows = vPool.data() + base;
                } else {
                    widen(kPool.data() + base, kWide.data(), std::size_t{tokens} * dim);
                    widen(vPool.data() + base, vWide.data(), std::size_t{tokens} * dim);
                    k = kWide.data();
                    vRows = vWide.data();
                }
                // Each key row once, against every query head of the group.
                for (std::uint32_t t = 0; t < tokens; ++t)
                    for (std::uint32_t g = 0; g < group; ++g)
                        scores[std::size_t{g} * shape.blockTokens + t] =
                            dot(qGroup + std::size_t{g} * dim, k + std::size_t{t} * dim, dim) * scale;
                for (std::uint32_t g = 0; g < group; ++g)
                    fold(heads[g], scores.data() + std::size_t{g} * shape.blockTokens, vRows, tokens, dim);
                left -= tokens;
            }
            for (std::uint32_t g = 0; g < group; ++g) {
                float* o = out.data() + s * headFloats + (std::size_t{kvHead} * group + g) * dim;
                const float inv = heads[g].sum > 0 ? 1.0f / heads[g].sum : 0.0f;
                for (std::uint32_t d = 0; d < dim; ++d)
                    o[d] = heads[g].acc[d] * inv;
            }
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
