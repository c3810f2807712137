#include "core/engine/event_recorder.h"

#include <algorithm>

namespace coh::core {

MessageRecord recordOf(const FlowInfo& flow, const Routing& routing)
{
    const Route& route = routing.route(flow.route);
    MessageRecord m;
    m.start = flow.start;
    m.end = flow.delivered;
    m.src = route.src;
    m.dst = route.dst;
    m.path = flow.route;
    m.bytes = flow.bytes;
    return m;
}

EventRecorder::EventRecorder(std::uint32_t limit, std::uint64_t seed)
    : m_limit(limit)
    , m_state(seed ^ 0x9E3779B97F4A7C15ull)
{
    m_kept.reserve(std::min<std::uint32_t>(limit, 1u << 16));
}

std::uint64_t EventRecorder::nextRandom()
{
    // splitmix64: tiny, fast and good enough to pick reservoir slots.
    std::uint64_t z = (m_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

void EventRecorder::add(const MessageRecord& message)
{
    ++m_total;
    if (m_kept.size() < m_limit) {
        m_kept.push_back(message);
        return;
    }
    if (m_limit == 0)
        return;
    // Algorithm R: the n-th message replaces a random kept one with probability limit / n.
    const std::uint64_t slot = nextRandom() % m_total;
    if (slot < m_limit)
        m_kept[slot] = message;
}

std::vector<MessageRecord> EventRecorder::takeSorted()
{
    std::stable_sort(m_kept.begin(), m_kept.end(),
                     [](const MessageRecord& a, const MessageRecord& b) { return a.start < b.start; });
    return std::move(m_kept);
}

} // namespace coh::core
