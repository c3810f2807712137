#include "core/engine/direct_transfer_kv.h"

#include <algorithm>
#include <stdexcept>

namespace coh::core {

DirectTransferKv::DirectTransferKv(Transport& network, EventRecorder& recorder,
                                   std::vector<std::vector<std::uint32_t>> instanceNodes, std::uint64_t kvBytesPerToken,
                                   std::uint32_t blockTokens, std::size_t requests)
    : m_network(network)
    , m_recorder(recorder)
    , m_instanceNodes(std::move(instanceNodes))
    , m_kvBytesPerToken(kvBytesPerToken)
    , m_blockTokens(blockTokens)
    , m_writer(requests, 0)
    , m_pending(requests, 0)
{
}

void DirectTransferKv::prefillWrite(std::uint32_t request, std::uint32_t instance, std::uint32_t)
{
    m_writer[request] = instance;
}

void DirectTransferKv::acquireForDecode(std::uint32_t request, std::uint32_t instance, std::uint32_t tokens)
{
    const auto& from = m_instanceNodes[m_writer[request]];
    const auto& to = m_instanceNodes[instance];
    // Each block is sharded by KV head across a TP group; shard pairs move in parallel.
    const std::size_t shards = std::max(from.size(), to.size());
    const double bytes = static_cast<double>(tokens) * static_cast<double>(m_kvBytesPerToken);
    m_pending[request] = static_cast<std::uint16_t>(shards);
    ++m_transfers;
    m_shards = static_cast<std::uint32_t>(shards);
    for (std::size_t s = 0; s < shards; ++s) {
        const std::uint32_t src = from[s % from.size()], dst = to[s % to.size()];
        const auto route = m_network.routing().routeId(src, dst);
        if (src != dst)
            m_bytes += bytes / shards;
        m_sendingShard = static_cast<std::uint32_t>(s);
        m_network.send(route, src == dst ? 0.0 : bytes / shards, *this, (std::uint64_t{tokens} << 32) | request);
    }
}

void DirectTransferKv::onFlowDelivered(const FlowInfo& flow)
{
    const auto request = static_cast<std::uint32_t>(flow.tag & 0xffffffffu);
    const auto tokens = static_cast<std::uint32_t>(flow.tag >> 32);
    if (flow.bytes > 0) {
        MessageRecord m = recordOf(flow, m_network.routing());
        m.kind = 0;
        m.request = request;
        m.blockCount = (tokens + m_blockTokens - 1) / m_blockTokens;
        m_recorder.add(m);
        ++m_messages;
    }
    if (m_pending[request] == 0) // abandoned: a node failure took the sequence
        return;
    if (--m_pending[request] == 0 && listener())
        listener()->onKvReady(request);
}

std::optional<KvPayload> DirectTransferKv::payloadOf(std::uint64_t tag) const
{
    return KvPayload{.sequence = static_cast<std::uint32_t>(tag & 0xffffffffu),
                     .firstToken = 0,
                     .tokens = static_cast<std::uint32_t>(tag >> 32),
                     .shard = m_sendingShard,
                     .shards = m_shards};
}

void DirectTransferKv::release(std::uint32_t) {}

std::uint32_t DirectTransferKv::addSequence()
{
    m_writer.push_back(0);
    m_pending.push_back(0);
    return static_cast<std::uint32_t>(m_writer.size() - 1);
}

void DirectTransferKv::restoreAt(std::uint32_t, std::uint32_t, std::uint32_t)
{
    throw std::logic_error("the direct copy keeps no surviving copy to restore a sequence from");
}

KvStats DirectTransferKv::stats() const
{
    KvStats s;
    s.transfers = m_transfers;
    s.bytes = m_bytes;
    s.protocol = "direct";
    s.kinds = {{"KV-Data", true, m_messages, m_bytes, "data"}};
    return s;
}

} // namespace coh::core
