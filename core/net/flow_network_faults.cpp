// Link failures in the flow network: a failed link stops the flows crossing it, messages wait for a route that
// avoids it (once routing knows it is down) or for the link to come back, and are then sent again whole, as a
// transport retransmits a message whose connection broke. The waiting flows keep their slots and their start time,
// so a delivered message's latency includes its wait.
#include "core/net/flow_network.h"

#include <algorithm>

namespace coh::core {

bool FlowNetwork::usable(const Route& route) const
{
    if (!route.reachable)
        return false;
    return std::none_of(route.channels.begin(), route.channels.end(),
                        [&](std::uint32_t c) { return m_linkFailed[linkOfChannel(c)] != 0; });
}

void FlowNetwork::stop(std::uint32_t slot)
{
    m_flows[slot].stoppedAt = m_sim.now();
    m_flows[slot].rate = 0;
    m_waiting.push_back(slot);
    ++m_faults.stopped;
}

void FlowNetwork::stopBundle(std::uint32_t leader)
{
    m_flows[leader].joinable = false;
    for (std::uint32_t slot = leader + 1; slot != 0;) {
        Flow& flow = m_flows[slot - 1];
        slot = flow.nextMember;
        flow.members = 1;
        flow.nextMember = flow.lastMember = 0;
        stop(static_cast<std::uint32_t>(&flow - m_flows.data()));
    }
}

void FlowNetwork::linkFailed(std::uint32_t link)
{
    if (m_linkFailed[link])
        return;
    m_linkFailed[link] = 1;
    ++m_linksFailed;
    // Flows that drain at this very instant are through; the rest of those crossing the link stop.
    advanceTo(m_sim.now());
    completeDrained();
    for (std::size_t i = 0; i < m_active.size();) {
        const std::uint32_t slot = m_active[i];
        const Flow& flow = m_flows[slot];
        const auto& channels = flow.route->channels;
        if (std::none_of(channels.begin(), channels.end(), [&](std::uint32_t c) { return linkOfChannel(c) == link; })) {
            ++i;
            continue;
        }
        m_faults.bytesResent += (flow.info.bytes - std::max(flow.remaining, 0.0)) * flow.members;
        if (!detach(slot))
            markDirty(channels);
        m_active[i] = m_active.back();
        m_active.pop_back();
        stopBundle(slot);
    }
    reallocate();
}

void FlowNetwork::linkDetected(std::uint32_t link)
{
    if (!m_linkFailed[link])
        return; // back before the monitor noticed: its messages went on at the repair
    m_routing.setLinkDown(link, true);
    sendWaitingAgain();
}

void FlowNetwork::linkRepaired(std::uint32_t link)
{
    if (!m_linkFailed[link])
        return;
    m_linkFailed[link] = 0;
    --m_linksFailed;
    m_routing.setLinkDown(link, false);
    sendWaitingAgain();
}

void FlowNetwork::sendWaitingAgain()
{
    std::vector<std::uint32_t> waiting;
    waiting.swap(m_waiting);
    for (auto slot : waiting) {
        Flow& flow = m_flows[slot];
        const std::uint32_t id = m_routing.current(flow.info.route);
        const Route& route = m_routing.route(id);
        if (!usable(route)) {
            m_waiting.push_back(slot);
            continue;
        }
        if (id != flow.info.route)
            ++m_faults.rerouted;
        m_faults.stalledNs += static_cast<double>(m_sim.now() - flow.stoppedAt);
        flow.info.route = id;
        flow.route = &route;
        flow.remaining = flow.info.bytes;
        launch(slot);
    }
}

} // namespace coh::core
