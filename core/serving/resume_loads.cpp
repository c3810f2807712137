#include "core/serving/resume_loads.h"

namespace coh::core {

namespace {

// The tag: request (32 bits), instance (16) and the instance's generation when the load started (16, wrapping).
std::uint64_t tagOf(std::uint32_t request, std::uint32_t instance, std::uint32_t generation)
{
    return std::uint64_t{request} | (std::uint64_t{instance & 0xffffu} << 32) |
           (std::uint64_t{generation & 0xffffu} << 48);
}

} // namespace

ResumeLoads::ResumeLoads(Transport& network, EventRecorder& recorder, std::span<const InstanceState> instances,
                         PrefixLoadListener& listener, double bytesPerToken, std::uint32_t blockTokens,
                         std::uint8_t kind)
    : m_network(network)
    , m_recorder(recorder)
    , m_instances(instances)
    , m_listener(listener)
    , m_bytesPerToken(bytesPerToken)
    , m_blockTokens(blockTokens)
    , m_kindIndex(kind)
    , m_kind{"Resume-Load", true, 0, 0, "data"}
{
}

void ResumeLoads::start(std::uint32_t request, std::uint32_t node, std::uint32_t instance, std::uint32_t tokens)
{
    const InstanceState& inst = m_instances[instance];
    const std::uint32_t to = inst.nodes.front();
    // A copy on the instance's own node is in its memory already: no bytes cross a link.
    const double bytes = node == to ? 0.0 : m_bytesPerToken * tokens;
    ++m_kind.count;
    m_kind.bytes += bytes;
    m_network.send(m_network.routing().routeId(node, to), bytes, *this, tagOf(request, instance, inst.generation));
}

void ResumeLoads::onFlowDelivered(const FlowInfo& flow)
{
    const auto request = static_cast<std::uint32_t>(flow.tag & 0xffffffffu);
    const auto instance = static_cast<std::uint32_t>((flow.tag >> 32) & 0xffffu);
    const auto generation = static_cast<std::uint32_t>(flow.tag >> 48);
    if (flow.bytes > 0) {
        MessageRecord m = recordOf(flow, m_network.routing());
        m.kind = m_kindIndex;
        m.request = request;
        const auto tokens = static_cast<std::uint32_t>(flow.bytes / m_bytesPerToken + 0.5);
        m.blockCount = (tokens + m_blockTokens - 1) / m_blockTokens;
        m_recorder.add(m);
    }
    // The instance failed while the load was on its way: the batch it was for is gone.
    if ((m_instances[instance].generation & 0xffffu) != generation)
        return;
    m_listener.onPrefixLoaded(instance);
}

} // namespace coh::core
