#pragma once
// A topology node's memory on the real-cuda backend (docs/real-backend.md#real-cuda): a buffer on one GPU with a
// stream of its own, the partition of that GPU the node plays (nodes that share a GPU each get their own memory and
// stream); or, for a node whose memory is the host's (a CPU socket's DRAM, CXL memory, storage's buffer), pinned host
// memory with a stream on the GPU it was dealt. A copy between two memories is one cudaMemcpyAsync (same GPU, or
// host memory on either side) or cudaMemcpyPeerAsync (another GPU) per contiguous segment, as a copy engine takes
// one descriptor per piece of a paged cache, timed with CUDA events on the stream of the GPU whose copy engine moves
// it: the receiver's, or the sender's when the receiver is host memory (a GPU pushes into host memory). The check
// compares the two memories on a GPU that reaches both. Every CUDA call is checked.
//
// C++17 and free of CUDA types, like cuda_attention.h: a build without CUDA throws GpuError from every function
// (gpu_memory_none.cpp).
#include "core/gpu/cuda_attention.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace coh::core {

// A run of bytes contiguous in both memories (neither side wraps inside it). `at` is where its first byte lies in
// the message, so a difference found in it can be named by its place in the message.
struct GpuSegment {
    std::size_t srcOffset = 0, dstOffset = 0, bytes = 0;
    std::size_t at = 0;
};

// Where a GpuMemory's bytes are: the GPU's own memory, or pinned host memory that GPU's copy engine reaches over
// its bus.
enum class GpuMemoryPlace { Device, PinnedHost };

class GpuMemory {
  public:
    // `bytes` (rounded up to 64) on `device`, or in pinned host memory with a stream on `device`, filled by `device`
    // from `seed` (splitmix64, as a CPU arena is), so every node's memory holds different bytes and a copy from the
    // wrong one shows.
    GpuMemory(int device, std::size_t bytes, std::uint64_t seed, GpuMemoryPlace place = GpuMemoryPlace::Device);
    ~GpuMemory();
    GpuMemory(const GpuMemory&) = delete;
    GpuMemory& operator=(const GpuMemory&) = delete;

    int device() const; // the GPU it lies on, or whose stream serves it in host memory
    std::size_t size() const;
    GpuMemoryPlace place() const;

    // Host to this memory and back, waiting for the copy; `offset + n` must lie within the memory.
    void write(std::size_t offset, const void* bytes, std::size_t n);
    void read(std::size_t offset, void* out, std::size_t n) const;

    // Copies the segments from `src` into this memory, in order, on this memory's stream, and waits. Returns the
    // time between CUDA events recorded before the first and after the last, in ns.
    std::int64_t copyFrom(const GpuMemory& src, const std::vector<GpuSegment>& segments);
    // Where this memory first differs from `src` over the segments, given in message order (`at` growing): the
    // smallest `at + i` of a differing byte, or -1.
    std::int64_t firstDifference(const GpuMemory& src, const std::vector<GpuSegment>& segments) const;

  private:
    struct Device;
    Device* m_device = nullptr;
};

} // namespace coh::core
