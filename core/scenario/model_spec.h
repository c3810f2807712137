#pragma once
// A transformer model's shape: what KV size and roofline compute time are derived from.
#include <cstdint>
#include <string>

namespace coh::core {

struct ModelSpec {
    std::string name;
    std::uint32_t layers = 0;
    std::uint32_t hiddenSize = 0;
    std::uint32_t heads = 0;
    std::uint32_t kvHeads = 0;
    std::uint32_t headDim = 0;
    std::uint32_t dtypeBytes = 2;
    double params = 0;       // total parameters (weights read per iteration)
    double activeParams = 0; // parameters touched per token (differs from params for MoE)
    std::string source;

    // 2 (K and V) x layers x kv_heads x head_dim x dtype bytes.
    std::uint64_t kvBytesPerToken() const { return 2ull * layers * kvHeads * headDim * dtypeBytes; }
    double weightBytes() const { return params * dtypeBytes; }
};

} // namespace coh::core
