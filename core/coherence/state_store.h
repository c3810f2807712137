#pragma once
// The explorer's visited set: encoded states packed into one arena, indexed by an open-addressing hash table of
// state ids. About 12 bytes of overhead per state on top of the encoding, so millions of states fit.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace coh::core::coherence {

class StateStore {
  public:
    StateStore();

    // The id of `state`, and whether it was new. Ids count up from 0 in insertion order.
    std::pair<std::uint32_t, bool> insert(std::string_view state);
    std::optional<std::uint32_t> find(std::string_view state) const;
    std::string_view get(std::uint32_t id) const;
    std::size_t size() const { return m_offsets.size() - 1; }
    std::size_t bytes() const { return m_arena.size(); }

  private:
    void grow();
    std::size_t slotFor(std::string_view state, std::uint64_t hash) const;

    std::string m_arena;
    std::vector<std::uint64_t> m_offsets; // state i is arena[offsets[i], offsets[i + 1])
    std::vector<std::uint32_t> m_slots;   // id + 1, 0 = empty
};

} // namespace coh::core::coherence
