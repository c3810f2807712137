#pragma once
// Where a node's message pieces go (docs/real-backend.md#how-a-message-is-copied): its arena cut into slots of one
// descriptor each, handed out in a shuffled order, as a paged KV pool hands out blocks. A message's pieces therefore
// land scattered, on both sides, and a copy pays per descriptor what scattered addresses cost.
#include "core/real/node_arena.h"

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <vector>

namespace coh::core::real {

class ArenaSlots {
  public:
    // `pieceBytes` > 0 and at most `arenaBytes`; slots are rounded up to a cache line.
    ArenaSlots(std::size_t arenaBytes, std::size_t pieceBytes, std::uint64_t seed)
        : m_slotBytes((pieceBytes + NodeArena::kAlign - 1) / NodeArena::kAlign * NodeArena::kAlign)
        , m_order(std::max<std::size_t>(1, arenaBytes / m_slotBytes))
    {
        std::iota(m_order.begin(), m_order.end(), std::size_t{0});
        std::shuffle(m_order.begin(), m_order.end(), std::mt19937_64(seed));
    }
    // The offset of the next slot; after the last, the first again.
    std::size_t next()
    {
        const std::size_t slot = m_order[m_cursor];
        m_cursor = (m_cursor + 1) % m_order.size();
        return slot * m_slotBytes;
    }

  private:
    std::size_t m_slotBytes;
    std::vector<std::size_t> m_order;
    std::size_t m_cursor = 0;
};

} // namespace coh::core::real
