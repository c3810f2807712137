#pragma once
// What every CUDA source of core/gpu shares: checked calls, and device buffers and events freed however a scope is
// left. Included by .cu files only.
#include "core/gpu/cuda_attention.h" // GpuError

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace coh::core::cuda {

// Every CUDA call goes through here: a failure names the call and what the runtime says.
inline void check(cudaError_t err, const char* call)
{
    if (err == cudaSuccess)
        return;
    const std::string what = std::string("CUDA: ") + call + " failed: " + cudaGetErrorString(err);
    // A failure that is not sticky stays the runtime's last error: clear it, or the next launch's cudaGetLastError()
    // would report it as its own (a sticky one cannot be cleared, and this does no harm to it).
    (void)cudaGetLastError();
    if (err == cudaErrorMemoryAllocation)
        throw GpuOutOfMemory(what);
    throw GpuError(what);
}
#define COH_CUDA(call) ::coh::core::cuda::check((call), #call)

// One device allocation, freed however the scope is left.
template <class T> class DeviceBuffer {
  public:
    explicit DeviceBuffer(std::size_t count)
        : m_count(std::max<std::size_t>(1, count))
    {
        COH_CUDA(cudaMalloc(reinterpret_cast<void**>(&m_data), m_count * sizeof(T)));
    }
    ~DeviceBuffer() { cudaFree(m_data); } // a failure to free cannot be reported from here
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;
    T* get() const { return m_data; }
    std::size_t count() const { return m_count; }
    void swap(DeviceBuffer& other) noexcept
    {
        std::swap(m_count, other.m_count);
        std::swap(m_data, other.m_data);
    }
    void upload(const std::vector<T>& host)
    {
        if (host.size() > m_count)
            throw std::invalid_argument("DeviceBuffer::upload: more elements than the buffer holds");
        COH_CUDA(cudaMemcpy(m_data, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice));
    }

  private:
    std::size_t m_count;
    T* m_data = nullptr;
};

// Pinned host memory, freed however the scope is left: page-locked, so a GPU's copy engine reaches it over the bus
// (DMA), and mapped and portable, so every GPU addresses it by the same pointer (unified addressing) from its kernels.
class PinnedHostBuffer {
  public:
    explicit PinnedHostBuffer(std::size_t bytes)
    {
        COH_CUDA(cudaHostAlloc(&m_data, std::max<std::size_t>(1, bytes), cudaHostAllocPortable | cudaHostAllocMapped));
    }
    ~PinnedHostBuffer() { cudaFreeHost(m_data); } // a failure to free cannot be reported from here
    PinnedHostBuffer(const PinnedHostBuffer&) = delete;
    PinnedHostBuffer& operator=(const PinnedHostBuffer&) = delete;
    unsigned char* get() const { return static_cast<unsigned char*>(m_data); }

  private:
    void* m_data = nullptr;
};

class DeviceEvent {
  public:
    DeviceEvent() { COH_CUDA(cudaEventCreate(&m_event)); }
    ~DeviceEvent() { cudaEventDestroy(m_event); }
    DeviceEvent(const DeviceEvent&) = delete;
    DeviceEvent& operator=(const DeviceEvent&) = delete;
    cudaEvent_t get() const { return m_event; }

  private:
    cudaEvent_t m_event{};
};

} // namespace coh::core::cuda
