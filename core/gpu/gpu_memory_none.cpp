// Build without CUDA: there are no GPU memories; callers check probeGpus() first (core/real/backend.cpp refuses
// real-cuda with the reason before anything is made).
#include "core/gpu/gpu_memory.h"

namespace coh::core {

namespace {
[[noreturn]] void noCuda()
{
    throw GpuError("this build has no CUDA backend (configure with -DCOH_ENABLE_CUDA=AUTO or ON where nvcc is "
                   "installed)");
}
} // namespace

GpuMemory::GpuMemory(int, std::size_t, std::uint64_t)
{
    noCuda();
}
GpuMemory::~GpuMemory() = default;
int GpuMemory::device() const
{
    noCuda();
}
std::size_t GpuMemory::size() const
{
    noCuda();
}
void GpuMemory::write(std::size_t, const void*, std::size_t)
{
    noCuda();
}
void GpuMemory::read(std::size_t, void*, std::size_t) const
{
    noCuda();
}
std::int64_t GpuMemory::copyFrom(const GpuMemory&, const std::vector<GpuSegment>&)
{
    noCuda();
}
std::int64_t GpuMemory::firstDifference(const GpuMemory&, const std::vector<GpuSegment>&) const
{
    noCuda();
}

} // namespace coh::core
