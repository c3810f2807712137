// Build without CUDA: there is no GPU kernel to run, and callers check probeGpus() first.
#include "core/gpu/cuda_attention.h"

namespace coh::core {

namespace {
[[noreturn]] void noCuda()
{
    throw GpuError("this build has no CUDA backend (configure with -DCOH_ENABLE_CUDA=AUTO or ON where nvcc is "
                   "installed)");
}
} // namespace

GpuPagedAttention::GpuPagedAttention(int, const GpuKvShape&, const std::vector<float>&, const std::vector<float>&)
{
    noCuda();
}

GpuPagedAttention::~GpuPagedAttention() = default;

GpuAttentionRun GpuPagedAttention::run(const std::vector<float>&, const GpuAttentionBatch&, float, int)
{
    noCuda();
}

GpuAttentionRun GpuPagedAttention::step(const std::vector<float>&, const GpuAttentionBatch&, float, int)
{
    noCuda();
}

double gpuDeviceCopyMs(int, std::size_t, int)
{
    noCuda();
}

} // namespace coh::core
