#include "core/real/stale_read.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace coh::core::real {

StaleReadError measureStaleRead(const PagedKvShape& shape, std::span<const float> kPool, std::span<const float> vPool,
                                std::span<const float> q, const PagedSequence& fresh, std::span<const float> freshOut,
                                std::span<const std::uint32_t> staleTable, float scale)
{
    if (staleTable.size() != fresh.blocks.size())
        throw std::invalid_argument("measureStaleRead: the stale block table is not as long as the fresh one");
    const std::size_t floats = std::size_t{shape.queryHeads} * shape.headDim;
    if (freshOut.size() != floats)
        throw std::invalid_argument("measureStaleRead: the fresh output is not one sequence's");
    std::vector<float> staleOut(floats);
    const PagedSequence stale{staleTable, fresh.contextTokens};
    pagedDecodeAttention(shape, kPool, vPool, q, std::span(&stale, 1), scale, staleOut);
    return compareStaleRead(shape, fresh, freshOut, staleTable, staleOut);
}

StaleReadError compareStaleRead(const PagedKvShape& shape, const PagedSequence& fresh, std::span<const float> freshOut,
                                std::span<const std::uint32_t> staleTable, std::span<const float> staleOut)
{
    if (staleTable.size() != fresh.blocks.size())
        throw std::invalid_argument("compareStaleRead: the stale block table is not as long as the fresh one");
    const std::size_t floats = std::size_t{shape.queryHeads} * shape.headDim;
    if (freshOut.size() != floats || staleOut.size() != floats)
        throw std::invalid_argument("compareStaleRead: an output is not one sequence's");
    StaleReadError e;
    e.contextTokens = fresh.contextTokens;
    double diff2 = 0, norm2 = 0;
    for (std::size_t i = 0; i < floats; ++i) {
        const double d = static_cast<double>(staleOut[i]) - freshOut[i];
        diff2 += d * d;
        norm2 += static_cast<double>(freshOut[i]) * freshOut[i];
        e.maxAbs = std::max(e.maxAbs, std::abs(d));
    }
    e.relL2 = norm2 > 0 ? std::sqrt(diff2 / norm2) : std::sqrt(diff2);
    // The tokens of the blocks that differ (the last block may be partly filled).
    for (std::size_t b = 0; b < staleTable.size(); ++b)
        if (staleTable[b] != fresh.blocks[b])
            e.staleTokens += std::min<std::uint32_t>(
                shape.blockTokens, fresh.contextTokens - static_cast<std::uint32_t>(b) * shape.blockTokens);
    return e;
}

} // namespace coh::core::real
