#pragma once
// A topology node's memory on the real-cpu backend: one buffer, filled with seeded values by the thread that owns
// it (so the pages land on that thread's NUMA node where there is more than one). A message copies a region of
// the sender's arena into the same region of the receiver's, the region's first bytes stamped with the message.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

namespace coh::core::real {

// What a copy carries at its start, so a receiver can tell its message from a stale, freed or misplaced one
// (core/real/copy_check.h names what it finds).
struct CopyStamp {
    static constexpr std::uint32_t kLive = 0x4b56434fu;  // "OCVK": a region holding a message's data
    static constexpr std::uint32_t kFreed = 0xdeadf7eeu; // what a sender writes over a region it releases
    std::uint32_t magic = kLive;
    std::uint32_t version = 0; // of the sender's data: the receiver expects the latest
    std::uint64_t message = 0; // the transport's sequence number
    std::uint32_t src = 0, dst = 0;
    std::uint64_t bytes = 0;
    // CRC-32 of the message's payload as the sender sealed it (payload_checksum.h): the receiver checks what landed
    // against it without the source, so a write into the source while it is copied shows even where the copy holds
    // exactly what the source holds by then.
    std::uint32_t checksum = 0;
    std::uint32_t pad = 0; // explicit, so two stamps compared byte for byte have no indeterminate bytes
    bool operator==(const CopyStamp&) const = default;
};

class NodeArena {
  public:
    // `bytes` is rounded up to a multiple of kAlign; filled from `seed`.
    NodeArena(std::size_t bytes, std::uint64_t seed);
    ~NodeArena();
    NodeArena(const NodeArena&) = delete;
    NodeArena& operator=(const NodeArena&) = delete;

    static constexpr std::size_t kAlign = 64;
    static constexpr unsigned char kFlipMask = 0x5a; // what a flipped byte is XORed with, on every backend
    std::size_t size() const { return m_size; }
    std::byte* data() { return m_data; }
    const std::byte* data() const { return m_data; }

    // Writes the stamp at `offset` (as much of it as `bytes` covers).
    void stamp(std::size_t offset, const CopyStamp& stamp, std::size_t bytes);
    // Flips the byte at `offset` (modulo the size) with kFlipMask: fault injection's corrupted or torn byte.
    void flip(std::size_t offset) { m_data[offset % m_size] ^= std::byte{kFlipMask}; }

  private:
    std::size_t m_size;
    std::byte* m_data;
};

// Where the copy after one of `bytes` at `offset` starts: past it, aligned, so consecutive copies walk the arena
// (and, once it is larger than the caches, come from memory).
inline std::size_t nextOffset(std::size_t offset, std::size_t bytes, std::size_t arenaSize)
{
    const std::size_t step = (bytes % arenaSize + NodeArena::kAlign - 1) / NodeArena::kAlign * NodeArena::kAlign;
    return (offset + step) % arenaSize;
}

// One piece of a message (a descriptor, as a copy engine takes them): `bytes` from `srcOffset` in the sender's arena to
// `dstOffset` in the receiver's. It wraps at the arenas' end (both the same size) as often as a piece larger than an
// arena needs: every byte is copied, the arena bounds the memory.
struct CopyPiece {
    std::size_t srcOffset = 0, dstOffset = 0, bytes = 0;
};
void copyPiece(const NodeArena& src, NodeArena& dst, const CopyPiece& piece);
// Calls f(srcAt, dstAt, n) for the contiguous runs of the piece's first `bytes`, each side wrapping at `size` (both
// memories' size) on its own: how any memory of this backend's lays a piece out.
template <class F> void forContiguousRuns(std::size_t size, const CopyPiece& piece, std::size_t bytes, F&& f)
{
    std::size_t src = piece.srcOffset % size, dst = piece.dstOffset % size;
    while (bytes > 0) {
        const std::size_t n = std::min({bytes, size - src, size - dst});
        f(src, dst, n);
        bytes -= n;
        src = (src + n) % size;
        dst = (dst + n) % size;
    }
}
// The first byte of the piece (up to one arena's worth) where `dst` differs from `src`, or -1 when none does.
std::int64_t firstDifference(const NodeArena& src, const NodeArena& dst, const CopyPiece& piece);
// The same over a message's pieces, counted in message order.
std::int64_t firstDifference(const NodeArena& src, const NodeArena& dst, std::span<const CopyPiece> pieces);

// A contiguous region, the same offset on both sides.
inline void copyRegion(const NodeArena& src, NodeArena& dst, std::size_t offset, std::size_t bytes)
{
    copyPiece(src, dst, {offset, offset, bytes});
}

} // namespace coh::core::real
