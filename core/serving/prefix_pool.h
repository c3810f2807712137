#pragma once
// The shared prefix-KV pool's contents: which prefix blocks (trace hash ids) it holds, least recently used
// first out when a store needs room. The engine moves the bytes; this only answers "is it there" and keeps
// the counts.
#include <cstdint>
#include <list>
#include <optional>
#include <span>
#include <unordered_map>

namespace coh::core {

class PrefixPool {
  public:
    explicit PrefixPool(std::uint64_t capacityBlocks);

    // How many of `hashes`, from the first, the pool holds; those become the most recently used.
    std::uint32_t leadingHits(std::span<const std::uint32_t> hashes);
    // Stores a block (a no-op when present, beyond refreshing it); evicts the least recently used when full
    // and returns which.
    std::optional<std::uint32_t> store(std::uint32_t hash);
    bool contains(std::uint32_t hash) const { return m_where.count(hash) != 0; }

    std::uint64_t size() const { return m_where.size(); }
    void clear()
    {
        m_order.clear();
        m_where.clear();
    }
    std::uint64_t evictions() const { return m_evictions; }

  private:
    void touch(std::unordered_map<std::uint32_t, std::list<std::uint32_t>::iterator>::iterator it);

    std::uint64_t m_capacity;
    std::list<std::uint32_t> m_order; // most recently used first
    std::unordered_map<std::uint32_t, std::list<std::uint32_t>::iterator> m_where;
    std::uint64_t m_evictions = 0;
};

} // namespace coh::core
