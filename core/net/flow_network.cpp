#include "core/net/flow_network.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace coh::core {

FlowNetwork::FlowNetwork(const Topology& topology, const Routing& routing, Simulator& sim, std::uint32_t wakeKind,
                         std::uint32_t deliverKind, SimTime linkInterval)
    : m_routing(routing)
    , m_sim(sim)
    , m_wakeKind(wakeKind)
    , m_deliverKind(deliverKind)
    , m_capacity(topology.links.size() * 2)
    , m_usage(topology.links.size() * 2, linkInterval)
    , m_channelRate(topology.links.size() * 2, 0.0)
    , m_channelBusy(topology.links.size() * 2, 0)
{
    for (std::uint32_t l = 0; l < topology.links.size(); ++l) {
        const double perNs = topology.links[l].bandwidthBytesPerSec * 1e-9;
        m_capacity[channelOf(l, true)] = perNs;
        m_capacity[channelOf(l, false)] = perNs;
    }
}

std::uint32_t FlowNetwork::allocateSlot()
{
    if (!m_free.empty()) {
        auto slot = m_free.back();
        m_free.pop_back();
        return slot;
    }
    m_flows.emplace_back();
    return static_cast<std::uint32_t>(m_flows.size() - 1);
}

void FlowNetwork::send(std::uint32_t route, double bytes, std::uint64_t cookie)
{
    const std::uint32_t slot = allocateSlot();
    Flow& flow = m_flows[slot];
    flow.info = FlowInfo{route, bytes, m_sim.now(), 0, cookie};
    flow.remaining = bytes;
    flow.rate = 0;
    const Route& r = m_routing.route(route);
    if (r.channels.empty() || bytes <= 0) {
        m_sim.scheduleIn(r.latency, m_deliverKind, slot);
        return;
    }
    advanceTo(m_sim.now());
    m_active.push_back(slot);
    // The first send of an instant is solved at once (most sends are alone). A decode step sends a message per
    // sequence at one instant: the rest of such a burst is solved once, in a wake at this same time after the
    // senders, instead of once per send. No time passes in between, so no flow moves a byte at a rate that is
    // about to change.
    const SimTime now = m_sim.now();
    if (m_lastSolveAt != now) {
        m_lastSolveAt = now;
        reallocate();
        return;
    }
    if (m_wakePending && m_wakeAt == now)
        return;
    ++m_generation;
    m_wakePending = true;
    m_wakeAt = now;
    m_sim.scheduleAt(m_wakeAt, m_wakeKind, 0, m_generation);
}

void FlowNetwork::onWake(const Event& ev)
{
    if (ev.payload != m_generation)
        return; // replaced by an earlier wake
    m_wakePending = false;
    advanceTo(m_sim.now());
    completeDrained();
    reallocate();
}

void FlowNetwork::onDeliver(const Event& ev)
{
    const std::uint32_t slot = ev.target;
    FlowInfo info = m_flows[slot].info;
    info.delivered = m_sim.now();
    m_free.push_back(slot);
    if (m_sink)
        m_sink->onFlowDelivered(info);
}

void FlowNetwork::advanceTo(SimTime t)
{
    const SimTime from = m_lastAdvance;
    m_lastAdvance = t;
    if (t <= from)
        return;
    const double dt = static_cast<double>(t - from);
    for (auto slot : m_active) {
        Flow& flow = m_flows[slot];
        flow.remaining -= flow.rate * dt;
    }
    for (auto c : m_busyChannels)
        m_usage.add(c, from, t, m_channelRate[c]);
}

void FlowNetwork::completeDrained()
{
    for (std::size_t i = 0; i < m_active.size();) {
        const std::uint32_t slot = m_active[i];
        const Flow& flow = m_flows[slot];
        // Completion times are rounded up to whole ns, so a drained flow may show a sliver of bytes.
        if (flow.remaining <= flow.rate + 1e-9 * flow.info.bytes) {
            m_sim.scheduleIn(m_routing.route(flow.info.route).latency, m_deliverKind, slot);
            m_active[i] = m_active.back();
            m_active.pop_back();
        } else {
            ++i;
        }
    }
}

void FlowNetwork::reallocate()
{
    for (auto c : m_busyChannels) {
        m_channelRate[c] = 0;
        m_channelBusy[c] = 0;
    }
    m_busyChannels.clear();
    if (m_active.empty())
        return;
    m_paths.clear();
    for (auto slot : m_active)
        m_paths.emplace_back(m_routing.route(m_flows[slot].info.route).channels);
    m_solver.solve(m_paths, m_capacity, m_rates);

    double soonest = std::numeric_limits<double>::infinity();
    for (std::size_t i = 0; i < m_active.size(); ++i) {
        Flow& flow = m_flows[m_active[i]];
        flow.rate = m_rates[i];
        soonest = std::min(soonest, std::max(flow.remaining, 0.0) / flow.rate);
        for (auto c : m_paths[i]) {
            if (!m_channelBusy[c]) {
                m_channelBusy[c] = 1;
                m_busyChannels.push_back(c);
            }
            m_channelRate[c] += flow.rate;
        }
    }
    if (!std::isfinite(soonest)) // validation rejects zero bandwidth, so a flow always drains
        return;
    // A pending wake at or before the new soonest completion still serves (an early wake only recomputes);
    // replacing it would leave a stale event behind for every flow that starts.
    const SimTime at = m_sim.now() + static_cast<SimTime>(std::ceil(soonest));
    if (m_wakePending && m_wakeAt >= m_sim.now() && m_wakeAt <= at)
        return;
    ++m_generation;
    m_wakePending = true;
    m_wakeAt = at;
    m_sim.scheduleAt(at, m_wakeKind, 0, m_generation);
}

SimTime FlowNetwork::now() const
{
    return m_sim.now();
}

} // namespace coh::core
