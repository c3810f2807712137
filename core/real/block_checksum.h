#pragma once
// A block's checksum on the CPU (core/gpu/kv_rows.h says what it sums): over rows of K and V pools laid out as
// PagedKvShape says, whatever their element. The writer seals a block's rows with it; a read adds up what the block
// holds now and compares.
#include "core/real/paged_attention.h"

#include <cstddef>
#include <cstdint>

namespace coh::core::real {

// The checksum of rows [fromRow, toRow) of `block` in pools of `elementBytes`-byte elements. The sum over [a, c) is
// the sum over [a, b) plus the one over [b, c), so a block's seal is extended row by row as it is appended.
std::uint32_t blockRowsChecksum(const PagedKvShape& shape, const std::byte* kPool, const std::byte* vPool,
                                std::size_t elementBytes, std::uint32_t block, std::uint32_t fromRow,
                                std::uint32_t toRow);

} // namespace coh::core::real
