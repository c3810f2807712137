#include "core/real/block_checksum.h"

#include "core/gpu/kv_rows.h"

#include <algorithm>
#include <bit>
#include <cstring>

namespace coh::core::real {

namespace {

// One build for x86-64-v3 (AVX2: eight 32-bit lanes) beside the baseline, picked at load time, as the attention kernel
// is (paged_attention.cpp): the sum then keeps up with reading the rows from memory.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define COH_CHECKSUM_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define COH_CHECKSUM_CLONES
#endif

// One row's share (or several rows' where their units lie end to end): kvUnitSum over the whole units, loaded at once
// where the host is little-endian, then the tail.
COH_CHECKSUM_CLONES std::uint32_t rowChecksum(const unsigned char* row, std::uint32_t rowBytes,
                                              std::uint32_t firstPlace)
{
    std::uint32_t sum = 0;
    std::uint32_t u = 0;
    if constexpr (std::endian::native == std::endian::little) {
        for (const std::uint32_t whole = rowBytes / 4; u < whole; ++u) {
            std::uint32_t unit;
            std::memcpy(&unit, row + std::size_t{u} * 4, 4);
            sum += kvUnitSum(firstPlace + u, unit);
        }
    }
    for (; u < kvRowUnits(rowBytes); ++u)
        sum += kvUnitSum(firstPlace + u, kvRowUnit(row, rowBytes, u));
    return sum;
}

} // namespace

std::uint32_t blockRowsChecksum(const PagedKvShape& shape, const std::byte* kPool, const std::byte* vPool,
                                std::size_t elementBytes, std::uint32_t block, std::uint32_t fromRow,
                                std::uint32_t toRow)
{
    // Rows past the block (a stamp's count gone wrong) are not the block's to sum.
    toRow = std::min(toRow, shape.blockTokens);
    const auto rowBytes = static_cast<std::uint32_t>(shape.headDim * elementBytes);
    const std::uint32_t rowUnits = kvRowUnits(rowBytes);
    std::uint32_t sum = 0;
    if (fromRow >= toRow)
        return sum;
    // A head's rows lie end to end in the pool, and their units' places follow on: with no unit padded at a row's end,
    // they are one run to sum. One call per head instead of per row: the sums then keep up with a decode step's reads
    // (2026-12-07, `cohsim run datasets/scenarios/cache-aware-mooncake.json --backend real-cpu --max-requests 3`).
    const bool wholeUnits = rowBytes % 4 == 0;
    const std::uint32_t rows = wholeUnits ? toRow - fromRow : 1;
    for (const bool isV : {false, true}) {
        const auto* pool = reinterpret_cast<const unsigned char*>(isV ? vPool : kPool);
        for (std::uint32_t head = 0; head < shape.kvHeads; ++head)
            for (std::uint32_t row = fromRow; row < toRow; row += rows) {
                const std::size_t at =
                    ((std::size_t{block} * shape.kvHeads + head) * shape.blockTokens + row) * shape.headDim;
                sum += rowChecksum(pool + at * elementBytes, rowBytes * rows,
                                   kvUnitPlace(isV, head, row, 0, shape.kvHeads, shape.blockTokens, rowUnits));
            }
    }
    return sum;
}

} // namespace coh::core::real
