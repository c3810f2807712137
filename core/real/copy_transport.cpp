#include "core/real/copy_transport.h"

#include "core/real/arena_slots.h"
#include "core/real/copy_check.h"
#include "core/real/gpu_nodes.h" // hostMemoryOnGpus

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace coh::core::real {

CopyTransport::CopyTransport(const Topology& topology, Routing& routing, Simulator& sim, std::uint32_t wakeKind,
                             std::uint32_t deliverKind, SimTime linkInterval, NodeResources& nodes)
    : m_topology(topology)
    , m_routing(routing)
    , m_sim(sim)
    , m_wakeKind(wakeKind)
    , m_deliverKind(deliverKind)
    , m_nodes(nodes)
    , m_cursor(topology.nodes.size(), 0)
    , m_versions(topology.nodes.size(), 0)
    , m_slots(topology.nodes.size())
    , m_usage(topology.links.size() * 2, linkInterval)
{
    m_summary.name = nodes.name();
    // real-cuda places these nodes in pinned host memory: their copies take the host path, fitted apart.
    for (const Node& n : topology.nodes)
        m_hostMemory.push_back(m_summary.name == "real-cuda" && hostMemoryOnGpus(n.kind));
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
    std::uint64_t message = 0;
    CopyFault fault = std::exchange(m_nextFault, CopyFault::None);
    std::uint32_t carried = 0; // tokens whose rows the message carries
    if (!route.channels.empty() && bytes > 0) {
        // A message no memory could hold is the model's mistake, not a copy to attempt.
        if (!std::isfinite(bytes) || bytes > kMaxCopyBytes)
            throw CopyCheckError(fmt::format("{}: a message of {:.3g} B from {} to {} is larger than any copy "
                                             "this backend makes ({:.3g} B)",
                                             m_summary.name, bytes, m_topology.nodes[route.src].id,
                                             m_topology.nodes[route.dst].id, kMaxCopyBytes));
        const auto size = static_cast<std::size_t>(std::ceil(bytes));
        const std::size_t next = placePieces(route.src, route.dst, size, m_nodes.memoryBytes(route.dst));
        message = ++m_messages;
        if (message == m_faultAt)
            fault = m_faultAtCopy;
        // What prefill left in the sender's memory: the sequence's K/V rows, where the message holds a sequence's.
        const std::optional<KvPayload> payload = m_rowsLayout ? endpoint.payloadOf(tag) : std::nullopt;
        carried = payload ? putRows(route.src, *payload, fault) : 0;
        CopyStamp stamp{
            .version = ++m_versions[route.src], .message = message, .src = route.src, .dst = route.dst, .bytes = size};
        // The sender seals the payload, then stamps it with the seal.
        stamp.checksum = m_nodes.payloadChecksum(route.src, m_pieces, CopySide::Source);
        m_nodes.stamp(route.src, m_pieces.front().srcOffset, sourceStamp(stamp, fault), m_pieces.front().bytes);
        if (fault == CopyFault::TornSource)
            if (const auto at = lastPayloadByte(m_nodes.memoryBytes(route.src), m_pieces, CopySide::Source))
                m_nodes.flipByte(route.src, *at);
        CopyResult result = m_nodes.copy(route.src, route.dst, m_pieces, stamp, fault);
        // The receiver checks the seal on what landed once the stamp is right. Only a copy that fails either is
        // compared with its source byte for byte, to tell what went wrong (a byte changed on the way, or the source
        // changed after its seal): a whole copy is not read a third time.
        if (result.stampOk) {
            result.checksum = m_nodes.payloadChecksum(route.dst, m_pieces, CopySide::Destination);
            result.checksumOk = result.checksum == stamp.checksum;
        }
        if (!result.stampOk || !result.checksumOk)
            result.firstBad = m_nodes.firstDifference(route.src, route.dst, m_pieces);
        if (result.firstBad >= 0 || !result.stampOk || !result.checksumOk)
            refuse(info, route, stamp, result);
        if (carried > 0) {
            m_nodes.landedRows().landed(route.dst, *m_rowsLayout, *payload, carried,
                                        checkRows(info, route, *payload, message));
            m_summary.kvRowsCarried += carried;
            m_summary.kvRowsOffered += payload->tokens;
            ++m_summary.kvTransfersChecked;
        }
        m_cursor[route.dst] = next;
        took = std::max<SimTime>(1, result.ns);
        ++m_summary.copies;
        m_summary.descriptors += m_pieces.size();
        ++m_summary.verified;
        m_summary.bytesCopied += static_cast<double>(size);
        countSent(bytes);
        m_summary.copyMs += static_cast<double>(took) * 1e-6;
        // The run's own costs, per path as calibration measures them (real-cuda's host memory apart).
        (m_hostMemory[route.src] || m_hostMemory[route.dst] ? m_hostCopyFit : m_copyFit)
            .add(bytes, static_cast<double>(took));
        if (bytes >= m_largestCopy) {
            m_largestCopy = bytes;
            m_summary.largestCopyGBps = bytes / static_cast<double>(took);
        }
    }
    // Another sequence's blocks can only be copied where a sequence's are: the fault waits for such a copy.
    if (fault == CopyFault::WrongBlocks && carried == 0)
        m_nextFault = fault;
    std::uint32_t slot;
    if (m_free.empty()) {
        slot = static_cast<std::uint32_t>(m_pending.size());
        m_pending.emplace_back();
    } else {
        slot = m_free.back();
        m_free.pop_back();
    }
    // A lost completion: the bytes are there, but nothing tells the receiver's owner (checkDelivered finds it).
    m_pending[slot] = Pending{info, &endpoint, message, true, fault == CopyFault::LostCompletion};
    if (message == 0) {
        // Nothing copied (no bytes, or within one node): delivered now, as the simulator delivers it.
        if (!m_pending[slot].lost)
            m_sim.scheduleIn(0, m_deliverKind, slot);
        return;
    }
    // It lands when its own time has passed, shared with the pair's other copies in flight.
    wakeAt(m_pairs.add(route.src, route.dst, now, took, slot));
}

void CopyTransport::wakeAt(const PairSharing::Wake& wake)
{
    m_sim.scheduleAt(wake.at, m_wakeKind, wake.pair, wake.generation);
}

void CopyTransport::onWake(const Event& ev)
{
    m_wokeLanded.clear();
    PairSharing::Wake next;
    const SimTime now = m_sim.now();
    const bool more = m_pairs.land({ev.target, ev.time, ev.payload}, now, m_wokeLanded, next);
    for (const PairSharing::Landed& landed : m_wokeLanded) {
        const Pending& p = m_pending[landed.token];
        const double rate = p.info.bytes / static_cast<double>(std::max<SimTime>(1, now - landed.sent));
        for (const std::uint32_t channel : m_routing.route(p.info.route).channels)
            m_usage.add(channel, landed.sent, now, rate);
        if (!p.lost)
            m_sim.scheduleIn(0, m_deliverKind, landed.token);
    }
    if (more)
        wakeAt(next);
}

std::size_t CopyTransport::placePieces(std::uint32_t src, std::uint32_t dst, std::size_t size, std::size_t arena)
{
    m_pieces.clear();
    const std::size_t piece = m_nodes.options().descriptorBytes;
    if (piece == 0 || piece >= arena) {
        // One region, contiguous and at the same offset on both sides, walking the receiver's arena.
        const std::size_t offset = m_cursor[dst];
        m_pieces.push_back({offset, offset, size});
        return nextOffset(offset, size, arena);
    }
    // One piece per descriptor, each in a slot of its own on each side.
    for (auto node : {src, dst})
        if (!m_slots[node])
            m_slots[node] = std::make_unique<ArenaSlots>(arena, piece, node + 1);
    // Neither side writes where rows wait for their node's pool (LandedKvRows::setAsideFor), as long as the message
    // fits around them. One that does not wraps both arenas in step, as every message larger than them does: a slot
    // it passes twice is written twice with the same bytes on both sides, so its stamp and payload stay whole.
    ArenaSlots& from = *m_slots[src];
    ArenaSlots& to = *m_slots[dst];
    const LandedKvRows& landed = m_nodes.landedRows();
    const auto asideIn = [&landed](std::uint32_t node) {
        return [&landed, node](std::size_t offset, std::size_t bytes) { return landed.setAside(node, offset, bytes); };
    };
    const auto place = [&](auto&& skipFrom, auto&& skipTo) {
        m_pieces.clear();
        for (std::size_t at = 0; at < size; at += piece)
            m_pieces.push_back({from.next(skipFrom), to.next(skipTo), std::min(piece, size - at)});
    };
    const std::size_t fromMark = from.moves(), toMark = to.moves();
    place(asideIn(src), asideIn(dst));
    if (from.moves() - fromMark > from.slots() || to.moves() - toMark > to.slots()) {
        from.rewind(fromMark);
        to.rewind(toMark);
        const auto none = [](std::size_t, std::size_t) { return false; };
        place(none, none);
    }
    return m_cursor[dst];
}

std::uint32_t CopyTransport::putRows(std::uint32_t src, const KvPayload& payload, CopyFault fault)
{
    const std::size_t size = m_nodes.memoryBytes(src);
    const std::uint32_t tokens = tokensCarried(*m_rowsLayout, payload, payloadRoom(size, m_pieces));
    if (tokens == 0)
        return 0;
    composeRows(*m_rowsLayout, payload, tokens, payload.sequence, m_rows);
    const std::vector<std::byte>* sent = &m_rows;
    if (fault == CopyFault::WrongBlocks) {
        composeRows(*m_rowsLayout, payload, tokens, payload.sequence + 1, m_sentRows);
        sent = &m_sentRows;
    }
    forPayloadBytes(size, m_pieces, CopySide::Source, sent->size(),
                    [&](std::size_t offset, std::size_t at, std::size_t n) {
                        m_nodes.writeBytes(src, offset, std::span(*sent).subspan(at, n));
                    });
    return tokens;
}

std::vector<LandedKvRows::Segment> CopyTransport::checkRows(const FlowInfo& info, const Route& route,
                                                            const KvPayload& payload, std::uint64_t message)
{
    std::vector<LandedKvRows::Segment> segments;
    m_landed.resize(m_rows.size());
    forPayloadBytes(m_nodes.memoryBytes(route.dst), m_pieces, CopySide::Destination, m_landed.size(),
                    [&](std::size_t offset, std::size_t at, std::size_t n) {
                        m_nodes.readBytes(route.dst, offset, std::span(m_landed).subspan(at, n));
                        segments.push_back({offset, at, n});
                    });
    const auto bad = firstRowMismatch(*m_rowsLayout, payload, m_rows, m_landed);
    if (!bad)
        return segments;
    throw CopyCheckError(fmt::format("{}: the copy of message {} ({} -> {}, {:.0f} B) landed K/V rows that are not "
                                     "sequence {}'s: {}. The copy is faithful to its source, stamp and CRC-32 "
                                     "included: the sender's descriptors named another sequence's blocks",
                                     m_summary.name, message, m_topology.nodes[route.src].id,
                                     m_topology.nodes[route.dst].id, info.bytes, payload.sequence,
                                     describeRowMismatch(payload, *bad)));
}

CopyStamp CopyTransport::sourceStamp(const CopyStamp& stamp, CopyFault fault)
{
    CopyStamp held = stamp;
    if (fault == CopyFault::FreedSource)
        held.magic = CopyStamp::kFreed; // what a releasing sender writes over the region
    else if (fault == CopyFault::ExpiredLease)
        held.version = stamp.version - 1; // the holder's copy from before its lease expired
    return held;
}

void CopyTransport::onDeliver(const Event& ev)
{
    Pending& slot = m_pending[ev.target];
    slot.inFlight = false;
    Pending pending = slot;
    m_free.push_back(ev.target);
    pending.info.delivered = m_sim.now();
    m_lastActivity = m_sim.now();
    pending.endpoint->onFlowDelivered(pending.info);
}

void CopyTransport::checkDelivered() const
{
    for (const Pending& p : m_pending) {
        if (!p.inFlight)
            continue;
        const Route& route = m_routing.route(p.info.route);
        throw CopyCheckError(fmt::format("{}: message {} ({} -> {}, {:.0f} B, sent at {} ns) was copied but its "
                                         "completion never arrived: a lost completion, the receiver's owner still "
                                         "waits for it when the run runs out of events",
                                         m_summary.name, p.message, m_topology.nodes[route.src].id,
                                         m_topology.nodes[route.dst].id, p.info.bytes, p.info.start));
    }
}

void CopyTransport::refuse(const FlowInfo& info, const Route& route, const CopyStamp& expected,
                           const CopyResult& result) const
{
    const auto& src = m_topology.nodes[route.src].id;
    const auto& dst = m_topology.nodes[route.dst].id;
    const CopyDefect defect =
        classifyCopy(expected, result.held, result.stampBytes, result.firstBad, result.checksumOk);
    std::string what(describeDefect(defect));
    if (defect == CopyDefect::Corrupted)
        what = fmt::format("differs from its source at byte {}: corrupted", result.firstBad);
    else if (defect == CopyDefect::TornSource)
        what += fmt::format(" (CRC-32 {:#010x} sealed, {:#010x} landed)", expected.checksum, result.checksum);
    throw CopyCheckError(fmt::format("{}: the copy of message {} ({} -> {}, {:.0f} B) {}: the receiver's memory "
                                     "does not hold what was sent",
                                     m_summary.name, expected.message, src, dst, info.bytes, what));
}

void CopyTransport::linkFailed(std::uint32_t)
{
    throw std::logic_error("a real backend: a link failure reached the copy transport");
}
void CopyTransport::linkDetected(std::uint32_t)
{
    throw std::logic_error("a real backend: a link failure reached the copy transport");
}
void CopyTransport::linkRepaired(std::uint32_t)
{
    throw std::logic_error("a real backend: a link failure reached the copy transport");
}

BackendSummary CopyTransport::describe() const
{
    BackendSummary s = m_summary;
    s.mapping = m_nodes.mapping();
    s.copyFit = m_copyFit.totalFit();
    s.hostCopyFit = m_hostCopyFit.totalFit();
    s.copiesQueued = m_pairs.shared();
    s.copyWaitMs = m_pairs.beyondOwnNs() * 1e-6;
    return s;
}

} // namespace coh::core::real
