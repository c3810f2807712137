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
    : m_sample(limit, seed)
{
}

std::vector<MessageRecord> EventRecorder::takeSorted()
{
    const auto byStart = [](const MessageRecord& a, const MessageRecord& b) { return a.start < b.start; };
    // Messages are recorded when they arrive, so the record is already in start order except where a long
    // message was overtaken by shorter ones: an insertion sort fixes that in time proportional to the overtakes.
    // When they are many (a long transfer under heavy traffic) a merge sort takes over; both are stable, so the
    // result is the same either way.
    std::vector<MessageRecord>& kept = m_sample.kept();
    std::size_t budget = 8 * kept.size() + 64;
    for (std::size_t i = 1; i < kept.size() && budget > 0; ++i) {
        if (!byStart(kept[i], kept[i - 1]))
            continue;
        const MessageRecord moving = kept[i];
        std::size_t j = i;
        for (; j > 0 && byStart(moving, kept[j - 1]) && budget > 0; --j, --budget)
            kept[j] = kept[j - 1];
        kept[j] = moving;
        if (budget == 0)
            break;
    }
    if (budget == 0)
        std::stable_sort(kept.begin(), kept.end(), byStart);
    return std::move(kept);
}

} // namespace coh::core
