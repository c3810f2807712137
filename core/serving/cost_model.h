#pragma once
// Roofline compute time of one serving iteration: time = overhead + max(FLOPs / achieved FLOP/s,
// bytes / achieved memory bandwidth). The formulas are in docs/engine.md.
#include "core/scenario/scenario.h"

#include <cstdint>

namespace coh::core {

// What one instance (a tensor-parallel group of nodes) can do, after efficiencies.
struct InstanceHardware {
    double flopsPerNs = 0;
    double bytesPerNs = 0;
    double hbmBytes = 0;
};

class CostModel {
  public:
    CostModel(const ModelSpec& model, const ServingSpec& serving);

    InstanceHardware hardware(const Topology& topology, const std::vector<std::uint32_t>& nodes) const;

    // A prefill batch of `tokens` prompt tokens whose prompt lengths squared sum to `sumSquaredLengths`.
    SimTime prefill(std::uint64_t tokens, double sumSquaredLengths, const InstanceHardware& hw) const;
    // A decode step for `batch` sequences that together attend over `contextTokens` cached tokens.
    SimTime decode(std::uint32_t batch, std::uint64_t contextTokens, const InstanceHardware& hw) const;
    // A decode step without its attention: the linear layers (weights once, 2 FLOPs per active parameter per
    // sequence) and the iteration overhead. A real backend adds its measured attention to it.
    SimTime decodeLinear(std::uint32_t batch, const InstanceHardware& hw) const;

    double prefillFlops(std::uint64_t tokens, double sumSquaredLengths) const;
    double prefillBytes(std::uint64_t tokens) const;
    double decodeFlops(std::uint32_t batch, std::uint64_t contextTokens) const;
    double decodeBytes(std::uint32_t batch, std::uint64_t contextTokens) const;

  private:
    SimTime roofline(double flops, double bytes, const InstanceHardware& hw) const;

    const ModelSpec& m_model;
    const ServingSpec& m_serving;
    double m_attentionWidth; // heads x head_dim: the width of Q and of the attention output
    double m_kvBytesPerToken;
};

} // namespace coh::core
