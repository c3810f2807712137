#include "core/serving/prefix_pool.h"

namespace coh::core {

PrefixPool::PrefixPool(std::uint64_t capacityBlocks)
    : m_capacity(capacityBlocks)
{
}

void PrefixPool::touch(std::unordered_map<std::uint32_t, std::list<std::uint32_t>::iterator>::iterator it)
{
    m_order.splice(m_order.begin(), m_order, it->second);
}

std::uint32_t PrefixPool::leadingHits(std::span<const std::uint32_t> hashes)
{
    // A prefix is only reusable up to its first missing block: later blocks' KV depends on it.
    std::uint32_t hits = 0;
    for (auto hash : hashes) {
        const auto it = m_where.find(hash);
        if (it == m_where.end())
            break;
        touch(it);
        ++hits;
    }
    return hits;
}

std::optional<std::uint32_t> PrefixPool::store(std::uint32_t hash)
{
    if (m_capacity == 0)
        return std::nullopt;
    if (const auto it = m_where.find(hash); it != m_where.end()) {
        touch(it);
        return std::nullopt;
    }
    std::optional<std::uint32_t> evicted;
    if (m_where.size() >= m_capacity) {
        evicted = m_order.back();
        m_where.erase(m_order.back());
        m_order.pop_back();
        ++m_evictions;
    }
    m_order.push_front(hash);
    m_where.emplace(hash, m_order.begin());
    return evicted;
}

} // namespace coh::core
