#include "core/real/copy_transport.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace coh::core::real {

CopyTransport::CopyTransport(const Topology& topology, Routing& routing, Simulator& sim, std::uint32_t deliverKind,
                             SimTime linkInterval, NodeWorkers& workers)
    : m_topology(topology)
    , m_routing(routing)
    , m_sim(sim)
    , m_deliverKind(deliverKind)
    , m_workers(workers)
    , m_cursor(topology.nodes.size(), 0)
    , m_usage(topology.links.size() * 2, linkInterval)
{
    m_summary.name = "real-cpu";
}

CopyTransport::~CopyTransport() = default;

void CopyTransport::send(std::uint32_t routeId, double bytes, FlowEndpoint& endpoint, std::uint64_t tag)
{
    routeId = m_routing.current(routeId);
    const Route& route = m_routing.route(routeId);
    const SimTime now = m_sim.now();
    m_lastActivity = now;
    FlowInfo info{routeId, bytes, now, 0, tag};
    SimTime took = 0;
    if (!route.channels.empty() && bytes > 0) {
        // A message no memory could hold is the model's mistake, not a copy to attempt.
        if (!std::isfinite(bytes) || bytes > kMaxCopyBytes)
            throw CopyCheckError(fmt::format("real-cpu: a message of {:.3g} B from {} to {} is larger than any copy "
                                             "this backend makes ({:.3g} B)",
                                             bytes, m_topology.nodes[route.src].id, m_topology.nodes[route.dst].id,
                                             kMaxCopyBytes));
        const auto size = static_cast<std::size_t>(std::ceil(bytes));
        NodeWorker& from = m_workers[route.src];
        NodeWorker& to = m_workers[route.dst];
        std::size_t& cursor = m_cursor[route.dst];
        const std::size_t offset = cursor;
        const CopyStamp stamp{++m_messages, route.src, route.dst, size};
        from.arena().stamp(offset, stamp, size);
        const CopyResult result =
            to.copyFrom(from.arena(), offset, size, stamp, std::exchange(m_nextFault, CopyFault::None));
        if (result.firstBad >= 0 || !result.stampOk)
            refuse(info, route, result);
        cursor = nextOffset(offset, size, to.arena().size());
        took = std::max<SimTime>(1, result.ns);
        ++m_summary.copies;
        ++m_summary.verified;
        m_summary.bytesCopied += static_cast<double>(size);
        m_summary.copyMs += static_cast<double>(took) * 1e-6;
        if (bytes >= m_largestCopy) {
            m_largestCopy = bytes;
            m_summary.largestCopyGBps = bytes / static_cast<double>(took);
        }
        for (const std::uint32_t channel : route.channels)
            m_usage.add(channel, now, now + took, bytes / static_cast<double>(took));
    }
    std::uint32_t slot;
    if (m_free.empty()) {
        slot = static_cast<std::uint32_t>(m_pending.size());
        m_pending.emplace_back();
    } else {
        slot = m_free.back();
        m_free.pop_back();
    }
    m_pending[slot] = Pending{info, &endpoint};
    m_sim.scheduleIn(took, m_deliverKind, slot);
}

void CopyTransport::onDeliver(const Event& ev)
{
    Pending pending = m_pending[ev.target];
    m_free.push_back(ev.target);
    pending.info.delivered = m_sim.now();
    m_lastActivity = m_sim.now();
    pending.endpoint->onFlowDelivered(pending.info);
}

void CopyTransport::refuse(const FlowInfo& info, const Route& route, const CopyResult& result) const
{
    const auto& src = m_topology.nodes[route.src].id;
    const auto& dst = m_topology.nodes[route.dst].id;
    // The stamp first: a copy that does not start with its message is stale or partly written, whatever else differs.
    const std::string what =
        !result.stampOk ? std::string("does not start with its message's stamp (a stale or partly written copy)")
                        : fmt::format("differs from its source at byte {}", result.firstBad);
    throw CopyCheckError(fmt::format("real-cpu: the copy of message {} ({} -> {}, {:.0f} B) {}: the receiver's memory "
                                     "does not hold what was sent",
                                     m_messages, src, dst, info.bytes, what));
}

void CopyTransport::linkFailed(std::uint32_t)
{
    throw std::logic_error("real-cpu: a link failure reached the copy transport");
}
void CopyTransport::linkDetected(std::uint32_t)
{
    throw std::logic_error("real-cpu: a link failure reached the copy transport");
}
void CopyTransport::linkRepaired(std::uint32_t)
{
    throw std::logic_error("real-cpu: a link failure reached the copy transport");
}

BackendSummary CopyTransport::describe() const
{
    BackendSummary s = m_summary;
    s.mapping = m_workers.mapping();
    return s;
}

} // namespace coh::core::real
