#pragma once
// A bounded, unbiased sample of a stream (Vitter's Algorithm R): the first `limit` items are kept, then the n-th
// replaces a random kept one with probability limit / n. The event record's messages and decode iterations use it,
// so long runs keep bounded records that still represent the whole run.
#include "core/sim/splitmix64.h"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace coh::core {

template <class T> class Reservoir {
  public:
    Reservoir(std::uint32_t limit, std::uint64_t seed)
        : m_limit(limit)
        , m_state(seed ^ 0x9E3779B97F4A7C15ull)
    {
        m_kept.reserve(std::min<std::uint32_t>(limit, 1u << 16));
    }

    void add(const T& item)
    {
        ++m_total;
        if (m_kept.size() < m_limit) {
            m_kept.push_back(item);
            return;
        }
        if (m_limit == 0)
            return;
        const std::uint64_t slot = splitmix64(m_state) % m_total;
        if (slot < m_limit)
            m_kept[slot] = item;
    }

    std::uint64_t total() const { return m_total; }
    std::vector<T>& kept() { return m_kept; }

  private:
    std::uint32_t m_limit;
    std::uint64_t m_state; // splitmix64, to pick the slots
    std::uint64_t m_total = 0;
    std::vector<T> m_kept;
};

} // namespace coh::core
