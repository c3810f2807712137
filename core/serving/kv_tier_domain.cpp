#include "core/serving/kv_tier_domain.h"

#include "core/coherence/invariants.h"

#include <fmt/format.h>

#include <stdexcept>

namespace coh::core {

using coherence::ProcessorOp;
using coherence::StepResult;

namespace {

// A plain copy's tag: bit 63, its job and the request (protocol flows carry a slot and a message tag).
constexpr std::uint64_t kCopyFlow = std::uint64_t{1} << 63;

} // namespace

KvTierDomain::KvTierDomain(const coherence::Protocol* protocol, const std::string& tierName, Transport& network,
                           EventRecorder& recorder, double blockBytes, double controlBytes, std::uint8_t firstKind,
                           KvTierMoveListener& listener)
    : m_protocol(protocol)
    , m_network(network)
    , m_recorder(recorder)
    , m_listener(listener)
    , m_blockBytes(blockBytes)
    , m_firstKind(firstKind)
{
    m_copyKinds.push_back({tierName + " Copy-Down", true, 0, 0, "data"});
    m_copyKinds.push_back({tierName + " Copy-Up", true, 0, 0, "data"});
    if (!protocol)
        return;
    m_blocks = std::make_unique<coherence::BlockSet>(*protocol, 1);
    // Named apart from the KV path's and the pool's messages, which may run the same protocol.
    m_driver = std::make_unique<ProtocolDriver<KvTierDomain>>(
        *this, *protocol, network, 1,
        DriverCosts{blockBytes, controlBytes, static_cast<std::uint8_t>(firstKind + m_copyKinds.size())},
        tierName + " ");
}

std::uint32_t KvTierDomain::newSlot(std::uint32_t request)
{
    std::uint32_t slot;
    if (!m_freeSlots.empty()) {
        slot = m_freeSlots.back();
        m_freeSlots.pop_back();
        m_slots[slot] = Slot{};
    } else {
        slot = static_cast<std::uint32_t>(m_slots.size());
        m_slots.emplace_back();
        m_blocks->add();
    }
    m_slots[slot].request = request;
    return slot;
}

namespace {

std::optional<KvPayload> payloadOfMove(std::uint32_t request, TierMoveRows rows)
{
    if (rows.tokens == 0)
        return std::nullopt;
    return KvPayload{
        .sequence = request, .firstToken = rows.firstToken, .tokens = rows.tokens, .shard = 0, .shards = 1};
}

} // namespace

void KvTierDomain::move(std::uint32_t request, Job job, std::uint32_t blocks, std::uint32_t decodeNode,
                        std::uint32_t tierNode, TierMoveRows rows)
{
    if (blocks == 0) {
        m_listener.onMoveDone(request, job, 0);
        return;
    }
    const bool down = job != Fetch;
    if (!m_protocol) {
        const double bytes = blocks * m_blockBytes;
        MessageKindStats& kind = m_copyKinds[down ? 0 : 1];
        kind.count += blocks; // per block, as every message count of a run
        kind.bytes += bytes;
        const std::uint32_t src = down ? decodeNode : tierNode, dst = down ? tierNode : decodeNode;
        if (src != dst)
            (down ? m_bytesDown : m_bytesUp) += bytes;
        m_sendingCopy = payloadOfMove(request, rows);
        m_network.send(m_network.routing().routeId(src, dst), src == dst ? 0.0 : bytes, *this,
                       kCopyFlow | (std::uint64_t{blocks} << 40) | (std::uint64_t{job} << 32) | request);
        m_sendingCopy.reset();
        return;
    }
    // Each move is one transaction on a block of its own: the blocks it writes are new (or a new version of the open
    // tail), so no move waits behind another's state (an append-only table never writes a sealed block twice).
    const std::uint32_t slot = newSlot(request);
    Slot& s = m_slots[slot];
    s.participants.cacheNodes[0] = decodeNode;
    s.participants.home = tierNode;
    s.rows = rows;
    // The weight rides on the op; onIssued makes it the block's while the move runs.
    m_driver->request(slot, 0, {down ? ProcessorOp::Store : ProcessorOp::Load, job, blocks});
}

void KvTierDomain::onIssued(Ref slot, std::uint8_t, const DriverOp& op)
{
    m_slots[slot].weight = op.payload;
}

void KvTierDomain::onStep(Key slot, Ref, const coherence::CheckedStep& step) const
{
    if (step.violation != coherence::Violation::None)
        fail(slot, m_blocks->failure());
}

void KvTierDomain::onOpDone(Key slot, std::uint8_t cache, const DriverOp& op, const StepResult* step)
{
    const std::uint32_t request = m_slots[slot].request;
    if (op.op != ProcessorOp::Evict) {
        // Performed: the data is written (the Evict then takes it home) or read (the HBM copy is back).
        m_driver->enqueueFront(slot, cache, {ProcessorOp::Evict, op.kind, op.payload});
        if (op.kind == Fetch)
            m_listener.onMoveDone(request, op.kind, op.payload);
        return;
    }
    (void)step;
    m_slots[slot].done = true;
    if (op.kind != Fetch)
        m_listener.onMoveDone(request, op.kind, op.payload); // the data is home: the tier holds it
    freeIfIdle(slot);
}

void KvTierDomain::freeIfIdle(std::uint32_t slot)
{
    Slot& s = m_slots[slot];
    if (!s.done || !ProtocolDriver<KvTierDomain>::idle(s.driver) || !m_blocks->shape(slot).quiescent())
        return;
    m_blocks->reset(slot);
    s.done = false;
    m_freeSlots.push_back(slot);
}

void KvTierDomain::onFlowDelivered(const FlowInfo& flow)
{
    if (flow.tag & kCopyFlow) {
        const auto request = static_cast<std::uint32_t>(flow.tag & 0xffffffffu);
        const auto job = static_cast<std::uint8_t>((flow.tag >> 32) & 0xffu);
        const auto blocks = static_cast<std::uint32_t>((flow.tag >> 40) & 0x7fffffu);
        if (flow.bytes > 0) {
            MessageRecord record = recordOf(flow, m_network.routing());
            record.request = request;
            record.kind = static_cast<std::uint8_t>(m_firstKind + (job == Fetch ? 1 : 0));
            record.blockCount = blocks;
            m_recorder.add(record);
        }
        m_listener.onMoveDone(request, job, blocks);
        return;
    }
    const auto slot = static_cast<std::uint32_t>(flow.tag >> 16);
    const auto tag = static_cast<std::uint16_t>(flow.tag & 0xffffu);
    const int i = m_driver->arrive(slot, tag);
    if (i >= 0 && flow.bytes > 0) {
        const Slot& s = m_slots[slot];
        MessageRecord record = recordOf(flow, m_network.routing());
        record.request = s.request;
        record.blockCount = s.weight;
        s.driver.arrivals.origin(i).stamp(record);
        // The replay explains transitions of the KV and pool tables only; this kind names the tier's message.
        record.sender = MessageSender::None;
        m_recorder.add(record);
        if (m_blocks->shape(slot).message(i).hasData)
            (record.dst == s.participants.home ? m_bytesDown : m_bytesUp) += flow.bytes;
    }
    m_driver->pump(slot);
    freeIfIdle(slot);
}

std::optional<KvPayload> KvTierDomain::payloadOf(std::uint64_t tag) const
{
    if (tag & kCopyFlow)
        return m_sendingCopy;
    const auto slot = static_cast<std::uint32_t>(tag >> 16);
    if (slot >= m_slots.size())
        return std::nullopt;
    const Slot& s = m_slots[slot];
    const int i = s.driver.arrivals.inFlight(m_blocks->shape(slot), static_cast<std::uint16_t>(tag & 0xffffu));
    if (i < 0 || !m_blocks->shape(slot).message(i).hasData)
        return std::nullopt;
    return payloadOfMove(s.request, s.rows);
}

std::vector<MessageKindStats> KvTierDomain::kinds() const
{
    std::vector<MessageKindStats> kinds = m_copyKinds;
    if (m_driver)
        kinds.insert(kinds.end(), m_driver->kinds().begin(), m_driver->kinds().end());
    return kinds;
}

std::uint64_t KvTierDomain::messages() const
{
    std::uint64_t count = 0;
    for (const auto& kind : kinds())
        count += kind.count;
    return count;
}

void KvTierDomain::checkFinished() const
{
    if (!m_driver)
        return;
    for (std::uint32_t slot = 0; slot < m_slots.size(); ++slot)
        if (!ProtocolDriver<KvTierDomain>::idle(m_slots[slot].driver))
            fail(slot, "the event queue is empty but a move still waits on the protocol (deadlock)");
}

void KvTierDomain::fail(std::uint32_t slot, const std::string& what) const
{
    throw std::runtime_error(
        fmt::format("coherence invariant violated under {} for the tier copy of request {}: {} [{}]", m_protocol->name,
                    m_slots[slot].request, what, describeStates(m_blocks->shape(slot))));
}

} // namespace coh::core
