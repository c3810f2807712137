#include "core/serving/failures.h"

#include <algorithm>
#include <cmath>

namespace coh::core {

Failures::Failures(const Scenario& scenario, std::span<const InstanceState> instances)
    : m_spec(scenario.failures)
    , m_down(scenario.topology.nodes.size(), 0)
    , m_repairsPending(scenario.topology.nodes.size(), 0)
    , m_linkDown(scenario.topology.links.size(), 0)
    , m_instances(instances.size())
{
    for (std::size_t e = 0; e < m_spec.events.size(); ++e) {
        const FailureEventSpec& event = m_spec.events[e];
        m_entryTarget.push_back(event.isLink() ? scenario.topology.linkIndex(event.link).value_or(0)
                                               : scenario.topology.nodeIndex(event.node).value_or(0));
        m_rng.emplace_back(scenario.seed * 0x9E3779B97F4A7C15ull + e + 1);
    }
    m_summary.enabled = true;
    m_summary.recovery = toString(m_spec.recovery);
    m_summary.instancesUp.push_back({0, static_cast<std::uint32_t>(m_instances)});
}

SimTime Failures::nextGap(std::uint32_t entry)
{
    // Inverse CDF of the exponential on 53 random bits: the same draws on every platform (std's distributions
    // are not specified bit for bit).
    const double u = static_cast<double>(m_rng[entry]() >> 11) * 0x1.0p-53;
    const double gap = -std::log1p(-u) * static_cast<double>(*m_spec.events[entry].mtbf);
    return std::max<SimTime>(1, static_cast<SimTime>(std::min(gap, 1e18)));
}

void Failures::start(Simulator& sim, std::uint32_t failKind)
{
    for (std::uint32_t e = 0; e < m_spec.events.size(); ++e) {
        const FailureEventSpec& event = m_spec.events[e];
        sim.scheduleAt(event.at ? *event.at : nextGap(e), failKind, e);
    }
}

std::int64_t Failures::fail(Simulator& sim, std::uint32_t entry, std::uint32_t detectKind, std::uint32_t repairKind,
                            std::uint32_t failKind)
{
    const std::uint32_t target = m_entryTarget[entry];
    const FailureEventSpec& event = m_spec.events[entry];
    std::uint8_t& down = event.isLink() ? m_linkDown[target] : m_down[target];
    if (down) {
        // Already down through another entry: this failure changes nothing; a random one tries again later.
        if (event.mtbf)
            sim.scheduleIn(nextGap(entry), failKind, entry);
        return -1;
    }
    ++down;
    const auto index = static_cast<std::uint32_t>(m_summary.failures.size());
    FailureRecord record;
    record.node = event.node;
    record.link = event.link;
    record.failed = sim.now();
    // The last heartbeat heard was at or before the failure; the node is declared dead `timeout` after it, or when
    // it comes back and re-registers empty, whichever is first.
    const SimTime lastBeat = sim.now() / m_spec.heartbeat * m_spec.heartbeat;
    record.detected = addTime(lastBeat, m_spec.timeout, "a failure's detection");
    if (event.repair) {
        record.repaired = addTime(sim.now(), *event.repair, "a repair");
        if (!event.isLink())
            ++m_repairsPending[target];
        record.detected = std::min(record.detected, record.repaired);
    }
    m_summary.failures.push_back(record);
    m_targets.push_back(target);
    m_entry.push_back(entry);
    m_lost.emplace_back();
    sim.scheduleAt(record.detected, detectKind, index);
    if (event.repair)
        sim.scheduleAt(record.repaired, repairKind, index);
    return index;
}

void Failures::repair(Simulator& sim, std::uint32_t record, std::uint32_t failKind, bool quiet)
{
    const std::uint32_t entry = m_entry[record];
    if (isLinkEntry(entry)) {
        --m_linkDown[m_targets[record]];
    } else {
        --m_down[m_targets[record]];
        --m_repairsPending[m_targets[record]];
    }
    if (m_spec.events[entry].mtbf && !quiet)
        sim.scheduleIn(nextGap(entry), failKind, entry);
}

void Failures::instancesUp(SimTime now, std::uint32_t up)
{
    auto& steps = m_summary.instancesUp;
    if (!steps.empty() && steps.back().time == now)
        steps.back().value = up;
    else if (steps.empty() || steps.back().value != up)
        steps.push_back({now, up});
}

FailuresSummary Failures::summary(SimTime end) const
{
    FailuresSummary s = m_summary;
    // Instance time up over instance time: the step function integrated over [0, end].
    double upNs = 0;
    for (std::size_t i = 0; i < s.instancesUp.size(); ++i) {
        const SimTime from = std::min(s.instancesUp[i].time, end);
        const SimTime to = i + 1 < s.instancesUp.size() ? std::min(s.instancesUp[i + 1].time, end) : end;
        upNs += static_cast<double>(to - from) * s.instancesUp[i].value;
    }
    const double total = static_cast<double>(end) * static_cast<double>(m_instances);
    s.availability = total > 0 ? upNs / total : 1.0;
    return s;
}

} // namespace coh::core
