#pragma once
// Paged decode attention on the CPU (docs/real-backend.md#attention): one new query token per sequence attends over
// the sequence's cached keys and values, which sit in fixed-size blocks anywhere in a shared pool and are found
// through the sequence's block table, as vLLM's PagedAttention keeps them. Grouped-query attention maps each
// query head to its KV head (query head / (query heads / KV heads)); the softmax is computed online in one pass
// over the blocks (running maximum and sum), so no score vector of the context's length is ever kept.
#include "core/real/half.h"

#include <cstddef>
#include <cstdint>
#include <span>

namespace coh::core::real {

// What a K/V element of this many bytes is called: "fp16" (2) or "fp32" (4).
inline const char* kvDtypeName(double elementBytes)
{
    return elementBytes == 2 ? "fp16" : "fp32";
}

struct PagedKvShape {
    std::uint32_t queryHeads = 32;
    std::uint32_t kvHeads = 8;
    std::uint32_t headDim = 128;
    std::uint32_t blockTokens = 16;
    // Floats per block in each of the K and V pools: [kvHeads][blockTokens][headDim], so one head's rows of a block
    // are contiguous (as vLLM lays its cache out) and a step streams them instead of striding across heads.
    std::size_t blockFloats() const { return std::size_t{blockTokens} * kvHeads * headDim; }
    // Queries per KV head.
    std::uint32_t group() const { return queryHeads / kvHeads; }
    // The K and V bytes one layer reads for `tokens` cached tokens of `elementBytes` each (2: fp16, 4: fp32).
    double kvBytes(std::uint64_t tokens, double elementBytes) const
    {
        return static_cast<double>(tokens) * 2.0 * kvHeads * headDim * elementBytes;
    }
};

inline bool sameShape(const PagedKvShape& a, const PagedKvShape& b)
{
    return a.queryHeads == b.queryHeads && a.kvHeads == b.kvHeads && a.headDim == b.headDim &&
           a.blockTokens == b.blockTokens;
}

struct PagedSequence {
    std::span<const std::uint32_t> blocks; // block table: pool index of the sequence's 1st, 2nd, ... block
    std::uint32_t contextTokens = 0;       // tokens cached; the last block may be partly filled
};

// out[s][h][d] = softmax_t(q[s][h] . K[s][t][h/group] * scale) . V[s][t][h/group], for every sequence s. `q` and
// `out` are [sequences][queryHeads][headDim]; `kPool` and `vPool` are [blocks][kvHeads][blockTokens][headDim].
// The query heads of one KV head are served together, so each K and V row is read once per step. A sequence with no
// context gets zeros. Throws std::invalid_argument when the shape, the spans or a block table do not fit together.
// The pools hold fp32 or fp16 (Half) elements; q, out and the arithmetic are fp32 either way.
void pagedDecodeAttention(const PagedKvShape& shape, std::span<const float> kPool, std::span<const float> vPool,
                          std::span<const float> q, std::span<const PagedSequence> sequences, float scale,
                          std::span<float> out);
void pagedDecodeAttention(const PagedKvShape& shape, std::span<const Half> kPool, std::span<const Half> vPool,
                          std::span<const float> q, std::span<const PagedSequence> sequences, float scale,
                          std::span<float> out);

} // namespace coh::core::real
