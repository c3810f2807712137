#include "core/serving/router.h"

namespace coh::core {

Router::Router(RouterPolicy policy, std::vector<std::uint32_t> prefill, std::vector<std::uint32_t> decode)
    : m_policy(policy)
    , m_prefill(std::move(prefill))
    , m_decode(std::move(decode))
{
}

std::uint32_t Router::pick(const std::vector<std::uint32_t>& pool, std::size_t& cursor,
                           const std::vector<InstanceState>& instances, bool prefill) const
{
    switch (m_policy) {
    case RouterPolicy::RoundRobin: {
        const std::uint32_t chosen = pool[cursor];
        cursor = (cursor + 1) % pool.size();
        return chosen;
    }
    case RouterPolicy::LeastLoaded: {
        // Prefill load is the prompt tokens waiting or running (they set the wait); decode load is the
        // sequences it holds. Ties go to the first instance so runs stay deterministic.
        auto load = [&](const InstanceState& s) {
            return prefill ? s.queuedTokens + s.batchTokens : std::uint64_t{s.assigned};
        };
        std::uint32_t best = pool.front();
        for (auto i : pool)
            if (load(instances[i]) < load(instances[best]))
                best = i;
        return best;
    }
    }
    return pool.front();
}

std::uint32_t Router::pickPrefill(const std::vector<InstanceState>& instances)
{
    return pick(m_prefill, m_prefillCursor, instances, true);
}

std::uint32_t Router::pickDecode(const std::vector<InstanceState>& instances)
{
    return pick(m_decode, m_decodeCursor, instances, false);
}

} // namespace coh::core
