#pragma once
// What a copy's stamp seals (docs/real-backend.md#how-a-message-is-copied): the CRC-32 of the message's payload,
// every byte after the stamp. The sender computes it before it stamps the message; the receiver computes it again
// over what landed. Both sides take the same bytes in the same order, each piece up to one memory's worth (what the
// byte check compares), so a faithful copy of the bytes the sender sealed gives the same figure on each side.
#include "core/real/node_arena.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <unordered_set>

namespace coh::core::real {

enum class CopySide : std::uint8_t { Source, Destination };

// Calls f(offset, n) for the contiguous runs of the payload of `pieces` in a memory of `size` bytes, on `side`, in
// message order. A message larger than its memory reuses places (the arena bounds the memory: its pieces wrap, or
// come back to slots handed out before), and a later piece there rewrites what an earlier one wrote, the stamp
// included. The payload is therefore the message up to its first reused place: every byte after the stamp, each
// place once, the same bytes on each side.
template <class F> void forPayloadRuns(std::size_t size, std::span<const CopyPiece> pieces, CopySide side, F&& f)
{
    std::unordered_set<std::size_t> srcPlaces, dstPlaces;
    for (std::size_t i = 0; i < pieces.size(); ++i) {
        const CopyPiece& p = pieces[i];
        if (pieces.size() > 1 &&
            (!srcPlaces.insert(p.srcOffset % size).second || !dstPlaces.insert(p.dstOffset % size).second))
            return;
        const std::size_t covered = std::min(p.bytes, size);
        // The stamp leads the first piece (as much of it as the piece holds); no other piece has one.
        const std::size_t from = i == 0 ? std::min(sizeof(CopyStamp), covered) : 0;
        if (from == covered)
            continue;
        const CopyPiece rest{p.srcOffset + from, p.dstOffset + from, covered - from};
        forContiguousRuns(size, rest, rest.bytes, [&](std::size_t src, std::size_t dst, std::size_t n) {
            f(side == CopySide::Source ? src : dst, n);
        });
    }
}

// The place of the payload's last byte on `side` (where CopyFault::TornSource writes on the sender's), or none when
// the message is no longer than its stamp.
inline std::optional<std::size_t> lastPayloadByte(std::size_t size, std::span<const CopyPiece> pieces, CopySide side)
{
    std::optional<std::size_t> last;
    forPayloadRuns(size, pieces, side, [&](std::size_t offset, std::size_t n) { last = offset + n - 1; });
    return last;
}

// CRC-32 as gzip and zlib take it (polynomial 0x04c11db7, reflected; "123456789" gives 0xcbf43926), fed in runs.
class Crc32 {
  public:
    void add(const void* bytes, std::size_t n);
    std::uint32_t value() const { return m_crc; }

  private:
    std::uint32_t m_crc = 0;
};

// The payload's CRC-32 as `memory` holds it on `side`.
std::uint32_t payloadChecksum(const NodeArena& memory, std::span<const CopyPiece> pieces, CopySide side);

} // namespace coh::core::real
