#pragma once
// Canonical byte encoding of a block system for the explorer's hash set. Two systems that differ only in the
// order of messages the network may reorder anyway encode identically: messages are sorted by (network, src,
// dst), keeping send order inside an ordered channel and sorting by content elsewhere.
#include "core/coherence/block_system.h"

#include <cstddef>
#include <string>
#include <string_view>

namespace coh::core::coherence {

// Appends `system`'s encoding to `out`. Written values must be below 128 (the explorer uses 0 and 1).
void encodeState(const BlockSystem& system, std::string& out);
// Appends every field of `system` in array order, values as stored (16 bits), messages in their order: equal
// encodings mean equal systems. The automaton's key for a block state.
void encodeExactState(const BlockSystem& system, std::string& out);
// Reads one encoded block starting at `pos` into `system` (same protocol and cache count); returns the position
// after it. Messages come back in canonical order.
std::size_t decodeState(std::string_view bytes, std::size_t pos, BlockSystem& system);

} // namespace coh::core::coherence
