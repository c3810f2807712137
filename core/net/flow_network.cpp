#include "core/net/flow_network.h"

#include "core/net/simulation_limit.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace coh::core {

FlowNetwork::FlowNetwork(const Topology& topology, Routing& routing, Simulator& sim, std::uint32_t wakeKind,
                         std::uint32_t deliverKind, SimTime linkInterval)
    : m_routing(routing)
    , m_sim(sim)
    , m_wakeKind(wakeKind)
    , m_deliverKind(deliverKind)
    , m_capacity(topology.links.size() * 2)
    , m_flowsOn(topology.links.size() * 2)
    , m_usage(topology.links.size() * 2, linkInterval)
    , m_channelRate(topology.links.size() * 2, 0.0)
    , m_rateSince(topology.links.size() * 2, 0)
    , m_channelMark(topology.links.size() * 2, 0)
    , m_newRate(topology.links.size() * 2, 0.0)
    , m_spare(topology.links.size() * 2, 0.0)
    , m_unfrozen(topology.links.size() * 2, 0)
{
    m_linkFailed.assign(topology.links.size(), 0);
    for (std::uint32_t l = 0; l < topology.links.size(); ++l) {
        const double perNs = topology.links[l].bandwidthBytesPerSec * 1e-9;
        m_capacity[channelOf(l, true)] = perNs;
        m_capacity[channelOf(l, false)] = perNs;
        m_linkIds.push_back(topology.links[l].id);
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
    m_flowMark.push_back(0);
    return static_cast<std::uint32_t>(m_flows.size() - 1);
}

void FlowNetwork::send(std::uint32_t route, double bytes, FlowEndpoint& endpoint, std::uint64_t tag)
{
    const std::uint32_t slot = allocateSlot();
    Flow& flow = m_flows[slot];
    // The sender may hold a route id from before a link failed or came back.
    route = m_routing.current(route);
    flow.info = FlowInfo{route, bytes, m_sim.now(), 0, tag};
    if (!m_routing.route(route).channels.empty())
        countSent(bytes);
    flow.endpoint = &endpoint;
    flow.remaining = bytes;
    flow.rate = 0;
    flow.members = 1;
    flow.nextMember = flow.lastMember = 0;
    flow.joinable = false;
    flow.route = &m_routing.route(route);
    if (m_linksFailed != 0 && bytes > 0 && !usable(*flow.route)) [[unlikely]] {
        stop(slot);
        return;
    }
    launch(slot);
}

void FlowNetwork::launch(std::uint32_t slot)
{
    Flow& flow = m_flows[slot];
    const Route& r = *flow.route;
    const double bytes = flow.info.bytes;
    if (r.channels.empty() || bytes <= 0) {
        if (!joinBundle(slot)) {
            flow.joinable = true;
            m_sim.scheduleIn(r.latency, m_deliverKind, slot);
        }
        return;
    }
    const SimTime now = m_sim.now();
    if (bytes <= r.bottleneckBytesPerNs * kSmallMessageNs) {
        // Drains within one tick of its bottleneck even when alone: it takes that tick plus the latency, whatever
        // else shares the links. Fair-sharing it would re-solve its neighbours' rates twice to move them by
        // less than a tick (a control message on NVLink or PCIe).
        for (auto c : r.channels)
            m_usage.addAt(c, now, bytes);
        if (!joinBundle(slot)) {
            flow.joinable = true;
            m_sim.scheduleIn(r.latency + kSmallMessageNs, m_deliverKind, slot);
        }
        return;
    }
    advanceTo(now);
    if (joinBundle(slot)) {
        // One more flow on the bundle's channels: its share and its neighbours' change.
        markDirty(r.channels);
        solveSoon();
        return;
    }
    m_active.push_back(slot);
    flow.joinable = true;
    if (attach(slot)) {
        // Alone on its links: it runs at its bottleneck's rate and nobody else's rate changes.
        flow.rate = r.bottleneckBytesPerNs;
        for (auto c : r.channels)
            setChannelRate(c, flow.rate);
        scheduleWake();
        return;
    }
    markDirty(r.channels);
    solveSoon();
}

bool FlowNetwork::joinBundle(std::uint32_t slot)
{
    const Flow& flow = m_flows[slot];
    const std::uint32_t route = flow.info.route;
    if (route >= m_bundleOf.size())
        m_bundleOf.resize(route + 1, 0);
    const std::uint32_t leaderSlot = m_bundleOf[route];
    m_bundleOf[route] = slot + 1;
    if (leaderSlot == 0 || leaderSlot == slot + 1)
        return false;
    Flow& leader = m_flows[leaderSlot - 1];
    // Started this instant over this route with this size and neither drained nor delivered: no byte of it has
    // moved, so from now on the new flow is indistinguishable from it and arrives when it does.
    if (!leader.joinable || leader.info.route != route || leader.info.start != flow.info.start ||
        leader.info.bytes != flow.info.bytes)
        return false;
    m_bundleOf[route] = leaderSlot;
    const std::uint32_t tail = leader.lastMember != 0 ? leader.lastMember : leaderSlot;
    m_flows[tail - 1].nextMember = slot + 1;
    leader.lastMember = slot + 1;
    ++leader.members;
    return true;
}

void FlowNetwork::solveSoon()
{
    const SimTime now = m_sim.now();
    // The first send of an instant is solved at once (most sends are alone). A decode step sends a message per
    // sequence at one instant: the rest of such a burst is solved once, in a wake at this same time after the
    // senders, instead of once per send. No time passes in between, so no flow moves a byte at a rate that is
    // about to change.
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
    // A bundle arrives member by member, in the order they were sent; each slot is freed before its delivery,
    // which may send again, and the chain is read before that.
    m_flows[ev.target].joinable = false;
    for (std::uint32_t slot = ev.target + 1; slot != 0;) {
        const Flow& flow = m_flows[slot - 1];
        FlowInfo info = flow.info;
        FlowEndpoint& endpoint = *flow.endpoint;
        const std::uint32_t next = flow.nextMember;
        info.delivered = m_sim.now();
        m_free.push_back(slot - 1);
        endpoint.onFlowDelivered(info);
        slot = next;
    }
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
}

void FlowNetwork::completeDrained()
{
    for (std::size_t i = 0; i < m_active.size();) {
        const std::uint32_t slot = m_active[i];
        const Flow& flow = m_flows[slot];
        // Completion times are rounded up to whole ns, so a drained flow may show a sliver of bytes.
        if (flow.remaining <= flow.rate + 1e-9 * flow.info.bytes) {
            m_sim.scheduleIn(flow.route->latency, m_deliverKind, slot);
            m_flows[slot].joinable = false;
            if (!detach(slot))
                markDirty(flow.route->channels);
            m_active[i] = m_active.back();
            m_active.pop_back();
        } else {
            ++i;
        }
    }
}

bool FlowNetwork::attach(std::uint32_t slot)
{
    bool alone = true;
    for (auto c : m_flows[slot].route->channels) {
        alone &= m_flowsOn[c].empty();
        m_flowsOn[c].push_back(slot);
    }
    return alone;
}

bool FlowNetwork::detach(std::uint32_t slot)
{
    const Flow& flow = m_flows[slot];
    bool alone = true;
    for (auto c : flow.route->channels) {
        auto& on = m_flowsOn[c];
        *std::find(on.begin(), on.end(), slot) = on.back();
        on.pop_back();
        alone &= on.empty();
        // An idle channel carries exactly nothing; a busy one is re-solved with the rest of its component.
        if (on.empty())
            setChannelRate(c, 0);
    }
    return alone;
}

void FlowNetwork::markDirty(const std::vector<std::uint32_t>& channels)
{
    for (auto c : channels) {
        if (m_channelMark[c] || m_flowsOn[c].empty())
            continue;
        m_channelMark[c] = 1;
        m_dirty.push_back(c);
    }
}

void FlowNetwork::reallocate()
{
    if (!m_dirty.empty())
        solveDirty();
    scheduleWake();
}

void FlowNetwork::solveDirty()
{
    // The component: every flow reachable from a dirty channel through shared channels. Flows elsewhere keep
    // their rates, which a solve of everything would reproduce.
    m_componentChannels.assign(m_dirty.begin(), m_dirty.end());
    m_dirty.clear();
    std::size_t left = 0; // the component's flows not yet frozen (marked)
    for (std::size_t i = 0; i < m_componentChannels.size(); ++i) {
        for (auto slot : m_flowsOn[m_componentChannels[i]]) {
            if (m_flowMark[slot])
                continue;
            m_flowMark[slot] = 1;
            ++left;
            for (auto c : m_flows[slot].route->channels) {
                if (!m_channelMark[c]) {
                    m_channelMark[c] = 1;
                    m_componentChannels.push_back(c);
                }
            }
        }
    }
    // Progressive filling (max-min fairness, as in SimGrid or ns-3's flow models) on the component alone, over
    // the network's own lists: raise every rate together until a channel saturates, freeze its flows, repeat.
    // Every flow on a component's channel is in the component, and a marked flow is one not yet frozen.
    for (auto c : m_componentChannels) {
        m_channelMark[c] = 0;
        m_spare[c] = m_capacity[c];
        std::uint32_t flows = 0;
        for (auto slot : m_flowsOn[c])
            flows += m_flows[slot].members;
        m_unfrozen[c] = flows;
        m_newRate[c] = 0;
    }
    while (left > 0) {
        // The bottleneck is the channel whose equal share is smallest.
        double share = std::numeric_limits<double>::infinity();
        std::uint32_t bottleneck = m_componentChannels.front();
        for (auto c : m_componentChannels) {
            if (m_unfrozen[c] == 0)
                continue;
            // Rounding may leave a saturated channel a hair below zero; a share is never negative.
            const double s = m_spare[c] > 0 ? m_spare[c] / m_unfrozen[c] : 0.0;
            if (s < share) {
                share = s;
                bottleneck = c;
            }
        }
        // Every unfrozen flow on the bottleneck gets the same share, so the order they are frozen in does not
        // change any channel's spare capacity.
        for (auto slot : m_flowsOn[bottleneck]) {
            if (!m_flowMark[slot])
                continue;
            m_flowMark[slot] = 0;
            --left;
            m_flows[slot].rate = share;
            const std::uint32_t members = m_flows[slot].members;
            for (auto c : m_flows[slot].route->channels) {
                m_spare[c] -= share * members;
                m_unfrozen[c] -= members;
                m_newRate[c] += share * members;
            }
        }
    }
    for (auto c : m_componentChannels)
        setChannelRate(c, m_newRate[c]);
}

void FlowNetwork::scheduleWake()
{
    double soonest = std::numeric_limits<double>::infinity();
    for (auto slot : m_active) {
        const Flow& flow = m_flows[slot];
        soonest = std::min(soonest, std::max(flow.remaining, 0.0) / flow.rate);
    }
    if (!std::isfinite(soonest)) // validation rejects zero bandwidth, so a flow always drains
        return;
    // The first completion must be a representable time, below kTimeInfinity (which the kernel never reaches).
    // Below 2^63 the conversion is exact (doubles that large are whole numbers); the sum is checked exactly.
    if (!(soonest < 0x1p63) || static_cast<SimTime>(std::ceil(soonest)) >= kTimeInfinity - m_sim.now()) [[unlikely]]
        refuseEndPastClock(soonest);
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

void FlowNetwork::refuseEndPastClock(double ns) const
{
    const Flow* first = &m_flows[m_active.front()];
    for (auto slot : m_active)
        if (std::max(m_flows[slot].remaining, 0.0) / m_flows[slot].rate == ns)
            first = &m_flows[slot];
    const Flow& flow = *first;
    // The slowest link of its route limits the flow most; it is the one to name.
    std::uint32_t slowest = flow.route->channels.front();
    for (auto c : flow.route->channels)
        if (m_capacity[c] < m_capacity[slowest])
            slowest = c;
    const std::uint32_t link = linkOfChannel(slowest);
    throw SimulationLimitError(
        link, "bandwidth",
        fmt::format("link '{}' ({:g} B/s): a message of {:.0f} bytes still has {:.0f} bytes to send at t = {:.3g} s "
                    "and would take {:.3g} s more, past the last representable time ({:.3g} s: nanoseconds in 64 "
                    "bits)",
                    m_linkIds[link], m_capacity[slowest] * 1e9, flow.info.bytes, std::max(flow.remaining, 0.0),
                    toSeconds(m_sim.now()), ns * 1e-9, toSeconds(kTimeInfinity)));
}

void FlowNetwork::setChannelRate(std::uint32_t channel, double rate) const
{
    if (rate == m_channelRate[channel])
        return;
    m_usage.add(channel, m_rateSince[channel], m_lastAdvance, m_channelRate[channel]);
    m_channelRate[channel] = rate;
    m_rateSince[channel] = m_lastAdvance;
}

const LinkUsage& FlowNetwork::usage() const
{
    for (std::uint32_t c = 0; c < m_channelRate.size(); ++c) {
        m_usage.add(c, m_rateSince[c], m_lastAdvance, m_channelRate[c]);
        m_rateSince[c] = m_lastAdvance;
    }
    return m_usage;
}

} // namespace coh::core
