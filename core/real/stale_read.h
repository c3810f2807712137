#pragma once
// What a stale read does to decode (docs/real-backend.md#stale-reads): one sequence's paged decode attention over
// its blocks as they are now, and again with some of its blocks read from the bytes they held before, compared
// element by element. The same kernel computes both, so the error is the one the stale bytes cause.
#include "core/net/backend_summary.h"
#include "core/real/paged_attention.h"

#include <span>
#include <vector>

namespace coh::core::real {

// `fresh`: the sequence as it is, and `freshOut` the attention output the step already computed over it (its
// [queryHeads][headDim]); `staleTable`: its block table with each block read stale replaced by the pool block holding
// that block's older bytes (as long as fresh's). `q` is the sequence's query. Only the stale side is computed here.
// Throws std::invalid_argument as pagedDecodeAttention does, or when freshOut is not one sequence's output.
StaleReadError measureStaleRead(const PagedKvShape& shape, std::span<const float> kPool, std::span<const float> vPool,
                                std::span<const float> q, const PagedSequence& fresh, std::span<const float> freshOut,
                                std::span<const std::uint32_t> staleTable, float scale);

// The error itself, from both outputs (one sequence's [queryHeads][headDim] each), wherever the stale one was
// computed (the CUDA kernel on real-cuda). Throws std::invalid_argument as measureStaleRead does.
StaleReadError compareStaleRead(const PagedKvShape& shape, const PagedSequence& fresh, std::span<const float> freshOut,
                                std::span<const std::uint32_t> staleTable, std::span<const float> staleOut);

} // namespace coh::core::real
