#include "core/engine/event_recorder.h"

#include "core/sim/splitmix64.h"

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
    const std::uint64_t slot = splitmix64(m_state) % m_total;
    if (slot < m_limit)
        m_kept[slot] = message;
}

std::vector<MessageRecord> EventRecorder::takeSorted()
{
    const auto byStart = [](const MessageRecord& a, const MessageRecord& b) { return a.start < b.start; };
    // Messages are recorded when they arrive, so the record is already in start order except where a long
    // message was overtaken by shorter ones: an insertion sort fixes that in time proportional to the overtakes.
    // When they are many (a long transfer under heavy traffic) a merge sort takes over; both are stable, so the
    // result is the same either way.
    std::size_t budget = 8 * m_kept.size() + 64;
    for (std::size_t i = 1; i < m_kept.size() && budget > 0; ++i) {
        if (!byStart(m_kept[i], m_kept[i - 1]))
            continue;
        const MessageRecord moving = m_kept[i];
        std::size_t j = i;
        for (; j > 0 && byStart(moving, m_kept[j - 1]) && budget > 0; --j, --budget)
            m_kept[j] = m_kept[j - 1];
        m_kept[j] = moving;
        if (budget == 0)
            break;
    }
    if (budget == 0)
        std::stable_sort(m_kept.begin(), m_kept.end(), byStart);
    return std::move(m_kept);
}

} // namespace coh::core
