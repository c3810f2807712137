#include "core/serving/cost_model.h"

#include <algorithm>
#include <cmath>

namespace coh::core {

CostModel::CostModel(const ModelSpec& model, const ServingSpec& serving)
    : m_model(model)
    , m_serving(serving)
    , m_attentionWidth(static_cast<double>(model.heads) * model.headDim)
    , m_kvBytesPerToken(static_cast<double>(model.kvBytesPerToken()))
{
}

InstanceHardware CostModel::hardware(const Topology& topology, const std::vector<std::uint32_t>& nodes) const
{
    InstanceHardware hw;
    for (auto n : nodes) {
        const Node& node = topology.nodes[n];
        hw.flopsPerNs += node.compute.peakFlops * 1e-9 * m_serving.flopsEfficiency;
        hw.bytesPerNs += node.compute.memoryBandwidthBytesPerSec * 1e-9 * m_serving.bandwidthEfficiency;
        if (const MemoryTier* hbm = node.tier(Tier::Hbm))
            hw.hbmBytes += hbm->capacityBytes;
    }
    return hw;
}

// Linear layers: 2 FLOPs per active parameter per token. Causal attention: QK^T and AV each cost
// 2 * L^2 * width per layer for a prompt of L tokens, halved by the causal mask.
double CostModel::prefillFlops(std::uint64_t tokens, double sumSquaredLengths) const
{
    return 2.0 * m_model.activeParams * static_cast<double>(tokens) +
           2.0 * m_model.layers * m_attentionWidth * sumSquaredLengths;
}

// All weights are streamed once per iteration; the new KV is written once.
double CostModel::prefillBytes(std::uint64_t tokens) const
{
    return m_model.weightBytes() + m_kvBytesPerToken * static_cast<double>(tokens);
}

// One new token per sequence: 2 FLOPs per active parameter, and 4 * width FLOPs per cached token per layer
// (q.k and the weighted sum of v).
double CostModel::decodeFlops(std::uint32_t batch, std::uint64_t contextTokens) const
{
    return 2.0 * m_model.activeParams * batch +
           4.0 * m_model.layers * m_attentionWidth * static_cast<double>(contextTokens);
}

// Weights once per step (a mixture-of-experts model touches at most active_params per sequence), plus every
// cached KV byte of every sequence in the batch.
double CostModel::decodeBytes(std::uint32_t batch, std::uint64_t contextTokens) const
{
    const double weights = std::min(m_model.params, m_model.activeParams * batch) * m_model.dtypeBytes;
    return weights + m_kvBytesPerToken * static_cast<double>(contextTokens);
}

SimTime CostModel::roofline(double flops, double bytes, const InstanceHardware& hw) const
{
    const double ns = std::max(flops / hw.flopsPerNs, bytes / hw.bytesPerNs);
    return addTime(m_serving.iterationOverhead, ceilToSimTime(ns, "a serving iteration"), "a serving iteration");
}

SimTime CostModel::prefill(std::uint64_t tokens, double sumSquaredLengths, const InstanceHardware& hw) const
{
    return roofline(prefillFlops(tokens, sumSquaredLengths), prefillBytes(tokens), hw);
}

SimTime CostModel::decode(std::uint32_t batch, std::uint64_t contextTokens, const InstanceHardware& hw) const
{
    return roofline(decodeFlops(batch, contextTokens), decodeBytes(batch, contextTokens), hw);
}

SimTime CostModel::decodeLinear(std::uint32_t batch, const InstanceHardware& hw) const
{
    return roofline(decodeFlops(batch, 0), decodeBytes(batch, 0), hw);
}

} // namespace coh::core
