// Build without CUDA: there are no GPU memories; callers check probeGpus() first (core/real/backend.cpp refuses
// real-cuda with the reason before anything is made).
#include "core/gpu/gpu_memory.h"
#include "core/gpu/no_cuda.h"

namespace coh::core {

GpuMemory::GpuMemory(int, std::size_t, std::uint64_t, GpuMemoryPlace)
{
    throwNoCuda();
}
GpuMemory::~GpuMemory() = default;
int GpuMemory::device() const
{
    throwNoCuda();
}
std::size_t GpuMemory::size() const
{
    throwNoCuda();
}
GpuMemoryPlace GpuMemory::place() const
{
    throwNoCuda();
}
void GpuMemory::write(std::size_t, const void*, std::size_t)
{
    throwNoCuda();
}
void GpuMemory::read(std::size_t, void*, std::size_t) const
{
    throwNoCuda();
}
std::int64_t GpuMemory::copyFrom(const GpuMemory&, const std::vector<GpuSegment>&)
{
    throwNoCuda();
}
std::int64_t GpuMemory::firstDifference(const GpuMemory&, const std::vector<GpuSegment>&) const
{
    throwNoCuda();
}

} // namespace coh::core
