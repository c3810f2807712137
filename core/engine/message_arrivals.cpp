#include "core/engine/message_arrivals.h"

#include <fmt/format.h>

namespace coh::core {

int MessageArrivals::inFlight(const coherence::BlockSystem& system, std::uint16_t tag) const
{
    for (int i = 0; i < system.messageCount(); ++i)
        if (m_tags[i] == tag && !m_arrived[i])
            return i;
    return -1;
}

int MessageArrivals::arrive(const coherence::BlockSystem& system, std::uint16_t tag)
{
    for (int i = 0; i < system.messageCount(); ++i) {
        if (m_tags[i] != tag || m_arrived[i])
            continue;
        m_arrived[i] = true;
        return i;
    }
    return -1;
}

template <class Deliver>
coherence::CheckedStep MessageArrivals::deliverFirst(const coherence::BlockSystem& shape, Deliver deliver)
{
    coherence::CheckedStep step;
    step.result.status = coherence::StepStatus::Stalled;
    for (int i = 0; i < shape.messageCount(); ++i) {
        if (!m_arrived[i] || !shape.deliverable(i))
            continue;
        const int remaining = shape.messageCount() - 1;
        step = deliver(i);
        if (step.result.status == coherence::StepStatus::Stalled)
            continue; // nothing changed, `shape` included
        // The system removed message i and shifted the rest down; keep the parallel arrays aligned. Messages
        // the step sent sit after them and get their tags from sent().
        for (int j = i; j < remaining; ++j) {
            m_tags[j] = m_tags[j + 1];
            m_arrived[j] = m_arrived[j + 1];
            m_origins[j] = m_origins[j + 1];
        }
        return step;
    }
    return step;
}

coherence::StepResult MessageArrivals::deliverOne(coherence::BlockSystem& system)
{
    return deliverFirst(system,
                        [&](int i) {
                            return coherence::CheckedStep{
                                system.deliver(i, static_cast<coherence::Value>(system.latest() + 1))};
                        })
        .result;
}

coherence::CheckedStep MessageArrivals::deliverOne(coherence::BlockSet& set, std::uint32_t block)
{
    return deliverFirst(set.shape(block), [&](int i) { return set.deliver(block, i); });
}

std::string describeStates(const coherence::BlockSystem& system)
{
    const coherence::Protocol& p = system.protocol();
    std::string states;
    for (int c = 0; c < system.caches(); ++c)
        states += fmt::format("P{}={} ", c, p.cache.states[system.line(c).state].name);
    return states + coherence::homeName(p.home) + "=" + p.directory.states[system.directory().state].name;
}

} // namespace coh::core
