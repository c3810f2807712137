#pragma once
// What is wrong with a copy, named from its bytes alone: the receiver compares what the region's first bytes hold
// with the stamp it expects, the rest with the source, and the rest's CRC-32 with the one the stamp carries. Each
// defect is a failure class real KV engines have shipped; the transport stops the run with its name
// (docs/real-backend.md#faults).
#include "core/real/node_arena.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace coh::core::real {

enum class CopyDefect : std::uint8_t {
    None,
    Corrupted,     // the stamp is right, a byte after it differs from the source
    PartlyWritten, // no stamp at all where it should be: the region still holds what it held before
    FreedSource,   // the freed pattern: the sender had released the region the copy read
    StaleVersion,  // this message's region at an older version: served by a holder whose lease had expired
    Misplaced,     // another message's stamp: a copy of the wrong region
    TornSource,    // stamp and bytes equal the source's, the CRC-32 does not: the source changed after it was sealed
};

// `held`: the destination's first `stampBytes` bytes (a short message covers part of the stamp); `firstBad`: the
// first byte that differs from the source, -1: none; `checksumOk`: the payload that landed has the stamp's CRC-32.
CopyDefect classifyCopy(const CopyStamp& expected, const CopyStamp& held, std::size_t stampBytes, std::int64_t firstBad,
                        bool checksumOk = true);
// What the defect is, as the run's error says it: "was read after ..." and so on.
std::string_view describeDefect(CopyDefect defect);

} // namespace coh::core::real
