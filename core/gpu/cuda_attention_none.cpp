// Build without CUDA: there is no GPU kernel to run, and callers check probeGpus() first.
#include "core/gpu/cuda_attention.h"
#include "core/gpu/no_cuda.h"

namespace coh::core {

GpuPagedAttention::GpuPagedAttention(int, const GpuKvShape&, const std::vector<float>&, const std::vector<float>&)
{
    throwNoCuda();
}

GpuPagedAttention::~GpuPagedAttention() = default;

GpuAttentionRun GpuPagedAttention::run(const std::vector<float>&, const GpuAttentionBatch&, float, int)
{
    throwNoCuda();
}

GpuAttentionRun GpuPagedAttention::step(const std::vector<float>&, const GpuAttentionBatch&, float, int)
{
    throwNoCuda();
}

void GpuPagedAttention::write(const std::vector<KvRowWrite>&, const std::byte*, std::size_t)
{
    throwNoCuda();
}

std::vector<BlockStamp> GpuPagedAttention::stamps()
{
    throwNoCuda();
}

std::vector<std::uint32_t> GpuPagedAttention::checksums(const std::vector<std::uint32_t>&)
{
    throwNoCuda();
}

void GpuPagedAttention::flipByte(std::uint32_t, unsigned char)
{
    throwNoCuda();
}

void GpuPagedAttention::grow(std::uint32_t)
{
    throwNoCuda();
}

double gpuDeviceCopyMs(int, std::size_t, int)
{
    throwNoCuda();
}

} // namespace coh::core
