#pragma once
// `cohsim bench attention --backend real-cuda`: the CUDA paged decode attention's achieved bandwidth (the fp16 K and V
// bytes it reads over its CUDA-event time) against a device-to-device copy of as many bytes on the same GPU,
// alternating round by round, over context lengths (docs/real-backend.md#cuda).
#include "core/gpu/cuda_attention.h"

#include <cstdint>
#include <vector>

namespace coh::core::real {

struct GpuAttentionBenchOptions {
    GpuKvShape shape; // Llama-3-8B's attention: 32 query heads, 8 KV heads of 128
    std::vector<std::uint32_t> contexts{128, 512, 2048, 8192, 32768};
    std::uint32_t sequences = 64; // per decode step: 2,048 warps; one sequence's 32 would leave most of a GPU idle
    int rounds = 7;               // per context, each an attention step then a copy of its KV bytes
    std::size_t poolBytes = std::size_t{1} << 30; // fp16 K and V together; the tables take its blocks in turn
    int device = 0;
};

struct GpuAttentionBenchRow {
    std::uint32_t context = 0;
    double kvBytes = 0;     // K and V read by one step
    double attentionMs = 0; // median
    double copyMs = 0;      // median: a device-to-device copy of kvBytes
    double attentionGBps() const { return kvBytes / (attentionMs * 1e6); }
    double copyGBps() const { return kvBytes / (copyMs * 1e6); }
};

// Throws GpuError where there is no GPU (or no CUDA in the build).
std::vector<GpuAttentionBenchRow> runGpuAttentionBench(const GpuAttentionBenchOptions& options);

} // namespace coh::core::real
