#include "core/real/node_arena.h"

#include "core/real/huge_pages.h"

#include <algorithm>
#include <cstring>
#include <new>

namespace coh::core::real {

NodeArena::NodeArena(std::size_t bytes, std::uint64_t seed)
    : m_size(std::max(kAlign, (bytes + kAlign - 1) / kAlign * kAlign))
    , m_data(static_cast<std::byte*>(::operator new (m_size, std::align_val_t{kAlign})))
{
    adviseHugePages(m_data, m_size);
    // splitmix64: cheap, and every arena's content differs, so a copy from the wrong node shows.
    std::uint64_t x = seed;
    for (std::size_t i = 0; i < m_size; i += sizeof x) {
        x += 0x9e3779b97f4a7c15ULL;
        std::uint64_t z = x;
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        z ^= z >> 31;
        std::memcpy(m_data + i, &z, sizeof z);
    }
}

NodeArena::~NodeArena()
{
    ::operator delete (m_data, std::align_val_t{kAlign});
}

void NodeArena::stamp(std::size_t offset, const CopyStamp& stamp, std::size_t bytes)
{
    const std::size_t n = std::min({bytes, sizeof stamp, m_size - offset});
    std::memcpy(m_data + offset, &stamp, n);
}

void copyPiece(const NodeArena& src, NodeArena& dst, const CopyPiece& piece)
{
    forContiguousRuns(dst.size(), piece, piece.bytes, [&](std::size_t from, std::size_t to, std::size_t n) {
        std::memcpy(dst.data() + to, src.data() + from, n);
    });
}

std::int64_t firstDifference(const NodeArena& src, const NodeArena& dst, const CopyPiece& piece)
{
    std::int64_t found = -1;
    std::size_t seen = 0;
    forContiguousRuns(dst.size(), piece, std::min(piece.bytes, dst.size()),
                      [&](std::size_t from, std::size_t to, std::size_t n) {
                          if (found < 0 && std::memcmp(dst.data() + to, src.data() + from, n) != 0)
                              for (std::size_t i = 0; i < n; ++i)
                                  if (dst.data()[to + i] != src.data()[from + i]) {
                                      found = static_cast<std::int64_t>(seen + i);
                                      break;
                                  }
                          seen += n;
                      });
    return found;
}

std::int64_t firstDifference(const NodeArena& src, const NodeArena& dst, std::span<const CopyPiece> pieces)
{
    std::size_t seen = 0;
    for (const CopyPiece& p : pieces) {
        if (const std::int64_t bad = firstDifference(src, dst, p); bad >= 0)
            return static_cast<std::int64_t>(seen) + bad;
        seen += p.bytes;
    }
    return -1;
}

} // namespace coh::core::real
