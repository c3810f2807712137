#include "core/engine/message_arrivals.h"

#include <fmt/format.h>

namespace coh::core {

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

coherence::StepResult MessageArrivals::deliverOne(coherence::BlockSystem& system)
{
    // One named result, returned on every path, so the step is built in the caller's storage, not copied out.
    coherence::StepResult step;
    step.status = coherence::StepStatus::Stalled;
    for (int i = 0; i < system.messageCount(); ++i) {
        if (!m_arrived[i] || !system.deliverable(i))
            continue;
        step = system.deliver(i, static_cast<coherence::Value>(system.latest() + 1));
        if (step.status == coherence::StepStatus::Stalled)
            continue;
        // The system removed message i and shifted the rest down; keep the parallel arrays aligned. Messages
        // the step sent sit after them and get their tags from sent().
        const int count = system.messageCount() - step.sentCount;
        for (int j = i; j < count; ++j) {
            m_tags[j] = m_tags[j + 1];
            m_arrived[j] = m_arrived[j + 1];
        }
        return step;
    }
    return step;
}

std::string describeStates(const coherence::BlockSystem& system)
{
    const coherence::Protocol& p = system.protocol();
    std::string states;
    for (int c = 0; c < system.caches(); ++c)
        states += fmt::format("P{}={} ", c, p.cache.states[system.line(c).state].name);
    return states + "Dir=" + p.directory.states[system.directory().state].name;
}

} // namespace coh::core
