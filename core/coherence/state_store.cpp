#include "core/coherence/state_store.h"

#include <functional>

namespace coh::core::coherence {

StateStore::StateStore()
    : m_offsets{0}
    , m_slots(1u << 16, 0)
{
}

std::string_view StateStore::get(std::uint32_t id) const
{
    return std::string_view(m_arena).substr(m_offsets[id], m_offsets[id + 1] - m_offsets[id]);
}

std::size_t StateStore::slotFor(std::string_view state, std::uint64_t hash) const
{
    const std::size_t mask = m_slots.size() - 1;
    std::size_t slot = hash & mask;
    while (m_slots[slot] != 0 && get(m_slots[slot] - 1) != state)
        slot = (slot + 1) & mask; // linear probing: the table is kept at most half full
    return slot;
}

std::pair<std::uint32_t, bool> StateStore::insert(std::string_view state)
{
    const std::uint64_t hash = std::hash<std::string_view>{}(state);
    const std::size_t slot = slotFor(state, hash);
    if (m_slots[slot] != 0)
        return {m_slots[slot] - 1, false};
    const auto id = static_cast<std::uint32_t>(size());
    m_arena.append(state);
    m_offsets.push_back(m_arena.size());
    m_slots[slot] = id + 1;
    if (size() * 2 > m_slots.size())
        grow();
    return {id, true};
}

std::optional<std::uint32_t> StateStore::find(std::string_view state) const
{
    const std::size_t slot = slotFor(state, std::hash<std::string_view>{}(state));
    if (m_slots[slot] == 0)
        return std::nullopt;
    return m_slots[slot] - 1;
}

void StateStore::grow()
{
    std::vector<std::uint32_t> old(m_slots.size() * 2, 0);
    old.swap(m_slots);
    for (std::uint32_t id = 0; id < size(); ++id) {
        const std::string_view s = get(id);
        m_slots[slotFor(s, std::hash<std::string_view>{}(s))] = id + 1;
    }
}

} // namespace coh::core::coherence
