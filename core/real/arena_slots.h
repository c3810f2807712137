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
        ++m_moves;
        return slot * m_slotBytes;
    }

    // The next slot that `skip(offset, slotBytes)` does not turn down (rows set aside for a pool); when it turns
    // every slot down, the next one anyway.
    template <class Skip> std::size_t next(Skip&& skip)
    {
        for (std::size_t tried = 0; tried < m_order.size(); ++tried)
            if (const std::size_t offset = next(); !skip(offset, m_slotBytes))
                return offset;
        return next();
    }

    std::size_t slots() const { return m_order.size(); }
    // Slots passed so far (handed out or turned down): more than slots() since a mark, and one was passed twice.
    std::size_t moves() const { return m_moves; }
    // Back to where the cursor was at `moves` passed.
    void rewind(std::size_t moves)
    {
        m_cursor = (m_cursor + m_order.size() - (m_moves - moves) % m_order.size()) % m_order.size();
        m_moves = moves;
    }

  private:
    std::size_t m_slotBytes;
    std::vector<std::size_t> m_order;
    std::size_t m_cursor = 0;
    std::size_t m_moves = 0;
};

} // namespace coh::core::real
