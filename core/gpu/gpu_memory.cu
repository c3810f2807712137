// A node's memory on one GPU, its copies and their check (gpu_memory.h).
#include "core/gpu/gpu_memory.h"

#include "core/gpu/cuda_support.cuh"

#include <cuda_runtime.h>

#include <algorithm>
#include <memory>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>

namespace coh::core {

namespace {

using cuda::DeviceBuffer;
using cuda::DeviceEvent;

constexpr std::size_t kAlign = 64;
constexpr unsigned long long kNone = ~0ull;
// The most a cross-GPU check stages on the receiver at once (firstDifference).
constexpr std::size_t kMaxStagedBytes = std::size_t{64} << 20;
constexpr std::size_t kMinStagedBytes = std::size_t{1} << 20;

// splitmix64 of (seed advanced i + 1 times), the CPU arena's fill (real/node_arena.cpp), one word per thread.
__global__ void fillKernel(unsigned long long* words, std::size_t count, unsigned long long seed)
{
    for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < count;
         i += std::size_t{gridDim.x} * blockDim.x) {
        unsigned long long z = seed + (i + 1) * 0x9e3779b97f4a7c15ull;
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        words[i] = z ^ (z >> 31);
    }
}

// One block row per segment (blockIdx.y, striding when there are more segments than rows); its threads stride
// over the segment's bytes and keep the smallest message offset of a byte that differs.
__global__ void differenceKernel(const unsigned char* src, const unsigned char* dst, const GpuSegment* segments,
                                 std::size_t count, unsigned long long* first)
{
    for (std::size_t s = blockIdx.y; s < count; s += gridDim.y) {
        const GpuSegment seg = segments[s];
        for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < seg.bytes;
             i += std::size_t{gridDim.x} * blockDim.x)
            if (src[seg.srcOffset + i] != dst[seg.dstOffset + i]) {
                atomicMin(first, static_cast<unsigned long long>(seg.at + i));
                break; // this thread's later bytes lie further into the message
            }
    }
}

std::int64_t nanoseconds(const DeviceEvent& start, const DeviceEvent& stop)
{
    float ms = 0;
    COH_CUDA(cudaEventElapsedTime(&ms, start.get(), stop.get()));
    return static_cast<std::int64_t>(static_cast<double>(ms) * 1e6);
}

// The check's buffers on one device, kept between messages (a cudaFree would synchronize the whole device).
struct CheckBuffers {
    std::unique_ptr<DeviceBuffer<GpuSegment>> segments;
    std::unique_ptr<DeviceBuffer<unsigned long long>> first;
    std::unique_ptr<DeviceBuffer<unsigned char>> staged; // a cross-GPU check's chunk of the source
};

// The check: run on the current device and `stream`, off the copy's clock. Everything it uploads goes through the
// same stream, so the kernel cannot read a table that has not arrived.
std::int64_t compareOnDevice(const unsigned char* src, const unsigned char* dst,
                             const std::vector<GpuSegment>& segments, cudaStream_t stream, CheckBuffers& buffers)
{
    if (!buffers.segments || buffers.segments->count() < segments.size())
        buffers.segments = std::make_unique<DeviceBuffer<GpuSegment>>(segments.size());
    if (!buffers.first)
        buffers.first = std::make_unique<DeviceBuffer<unsigned long long>>(1);
    COH_CUDA(cudaMemcpyAsync(buffers.segments->get(), segments.data(), segments.size() * sizeof(GpuSegment),
                             cudaMemcpyHostToDevice, stream));
    unsigned long long* first = buffers.first->get();
    COH_CUDA(cudaMemsetAsync(first, 0xff, sizeof(unsigned long long), stream));
    const dim3 grid(64, static_cast<unsigned>(std::min<std::size_t>(segments.size(), 65535)));
    differenceKernel<<<grid, 256, 0, stream>>>(src, dst, buffers.segments->get(), segments.size(), first);
    COH_CUDA(cudaGetLastError());
    unsigned long long found = kNone;
    COH_CUDA(cudaMemcpyAsync(&found, first, sizeof found, cudaMemcpyDeviceToHost, stream));
    COH_CUDA(cudaStreamSynchronize(stream));
    return found == kNone ? -1 : static_cast<std::int64_t>(found);
}

// A cross-GPU check's staging buffer on the current device: `bytes`, or where the device has no room for them (its
// pools grew first), the most of a half, a quarter, ... down to kMinStagedBytes that it has room for.
std::unique_ptr<DeviceBuffer<unsigned char>> stagingBuffer(std::size_t bytes)
{
    for (;;) {
        try {
            return std::make_unique<DeviceBuffer<unsigned char>>(bytes);
        } catch (const GpuOutOfMemory&) {
            if (bytes <= kMinStagedBytes)
                throw;
            bytes = std::max(kMinStagedBytes, bytes / 2);
        }
    }
}

// Lets GPUs `a` and `b` copy straight to and from each other, once per pair, the first time they copy: enabling it
// makes each one's context on the other, so only GPUs the run copies between pay for it. Where they cannot (or may
// not), cudaMemcpyPeerAsync still copies, staged: so a failure here only means no direct path, and its error is
// cleared so the next checked call does not report it. Leaves `a` current.
void enablePeerAccess(int a, int b)
{
    static std::mutex mutex;
    static std::set<std::pair<int, int>> done;
    const std::lock_guard lock(mutex);
    for (const auto& [device, peer] : {std::pair{b, a}, std::pair{a, b}}) {
        if (!done.insert({device, peer}).second)
            continue;
        int can = 0;
        if (cudaDeviceCanAccessPeer(&can, device, peer) != cudaSuccess || !can ||
            cudaSetDevice(device) != cudaSuccess || cudaDeviceEnablePeerAccess(peer, 0) != cudaSuccess)
            (void)cudaGetLastError();
    }
    COH_CUDA(cudaSetDevice(a));
}

} // namespace

struct GpuMemory::Device {
    Device(int device, std::size_t n, GpuMemoryPlace where)
        : index(device)
        , size(n)
        , place(where)
    {
        if (place == GpuMemoryPlace::PinnedHost)
            host = std::make_unique<cuda::PinnedHostBuffer>(n);
        else
            onDevice = std::make_unique<DeviceBuffer<unsigned char>>(n);
    }
    // Its bytes, by the one pointer every GPU and the host use for them (unified addressing).
    unsigned char* bytes() const { return host ? host->get() : onDevice->get(); }
    bool onHost() const { return place == GpuMemoryPlace::PinnedHost; }
    // The GPU that moves a copy from `s` into `d` and checks it: the receiver's, but a GPU pushes into host memory, so
    // for a receiver in host memory the sender's (host to host: the receiver's stream's GPU). It reaches both.
    static Device& engineFor(Device& s, Device& d) { return d.onHost() && !s.onHost() ? s : d; }
    int index;
    std::size_t size;
    GpuMemoryPlace place;
    std::unique_ptr<DeviceBuffer<unsigned char>> onDevice;
    std::unique_ptr<cuda::PinnedHostBuffer> host;
    cudaStream_t stream{};
    DeviceEvent start, stop;
    CheckBuffers check;
    ~Device()
    {
        if (stream)
            cudaStreamDestroy(stream);
    }
};

GpuMemory::GpuMemory(int device, std::size_t bytes, std::uint64_t seed, GpuMemoryPlace place)
{
    COH_CUDA(cudaSetDevice(device));
    const std::size_t size = std::max(kAlign, (bytes + kAlign - 1) / kAlign * kAlign);
    auto d = std::make_unique<Device>(device, size, place);
    COH_CUDA(cudaStreamCreateWithFlags(&d->stream, cudaStreamNonBlocking));
    const std::size_t words = size / sizeof(unsigned long long);
    fillKernel<<<256, 256, 0, d->stream>>>(reinterpret_cast<unsigned long long*>(d->bytes()), words, seed);
    COH_CUDA(cudaGetLastError());
    COH_CUDA(cudaStreamSynchronize(d->stream));
    m_device = d.release();
}

GpuMemory::~GpuMemory()
{
    // Its buffers, stream and events belong to its device: free them there (unchecked: a destructor does not throw).
    if (m_device)
        cudaSetDevice(m_device->index);
    delete m_device;
}

int GpuMemory::device() const
{
    return m_device->index;
}

std::size_t GpuMemory::size() const
{
    return m_device->size;
}

GpuMemoryPlace GpuMemory::place() const
{
    return m_device->place;
}

void GpuMemory::write(std::size_t offset, const void* bytes, std::size_t n)
{
    if (offset + n > m_device->size)
        throw std::invalid_argument("GpuMemory::write: past the memory's end");
    COH_CUDA(cudaSetDevice(m_device->index));
    COH_CUDA(cudaMemcpyAsync(m_device->bytes() + offset, bytes, n, cudaMemcpyDefault, m_device->stream));
    COH_CUDA(cudaStreamSynchronize(m_device->stream));
}

void GpuMemory::read(std::size_t offset, void* out, std::size_t n) const
{
    if (offset + n > m_device->size)
        throw std::invalid_argument("GpuMemory::read: past the memory's end");
    COH_CUDA(cudaSetDevice(m_device->index));
    COH_CUDA(cudaMemcpyAsync(out, m_device->bytes() + offset, n, cudaMemcpyDefault, m_device->stream));
    COH_CUDA(cudaStreamSynchronize(m_device->stream));
}

std::int64_t GpuMemory::copyFrom(const GpuMemory& src, const std::vector<GpuSegment>& segments)
{
    Device& d = *m_device;
    Device& s = *src.m_device;
    for (const GpuSegment& seg : segments)
        if (seg.srcOffset + seg.bytes > s.size || seg.dstOffset + seg.bytes > d.size)
            throw std::invalid_argument("GpuMemory::copyFrom: a segment lies past a memory's end");
    const Device& engine = Device::engineFor(s, d);
    const bool peer = !s.onHost() && !d.onHost() && s.index != d.index;
    if (peer)
        enablePeerAccess(engine.index, engine.index == d.index ? s.index : d.index);
    COH_CUDA(cudaSetDevice(engine.index));
    // Either side's stream may still be writing (a stamp): the copy starts after both.
    COH_CUDA(cudaStreamSynchronize(s.stream));
    COH_CUDA(cudaStreamSynchronize(d.stream));
    COH_CUDA(cudaEventRecord(engine.start.get(), engine.stream));
    for (const GpuSegment& seg : segments) {
        unsigned char* to = d.bytes() + seg.dstOffset;
        const unsigned char* from = s.bytes() + seg.srcOffset;
        if (peer)
            COH_CUDA(cudaMemcpyPeerAsync(to, d.index, from, s.index, seg.bytes, engine.stream));
        else // the same GPU, or host memory on a side: the pointers say which way
            COH_CUDA(cudaMemcpyAsync(to, from, seg.bytes, cudaMemcpyDefault, engine.stream));
    }
    COH_CUDA(cudaEventRecord(engine.stop.get(), engine.stream));
    COH_CUDA(cudaEventSynchronize(engine.stop.get()));
    return nanoseconds(engine.start, engine.stop);
}

std::int64_t GpuMemory::firstDifference(const GpuMemory& src, const std::vector<GpuSegment>& segments) const
{
    if (segments.empty())
        return -1;
    Device& d = *m_device;
    Device& s = *src.m_device;
    if (!s.onHost() && !d.onHost() && s.index != d.index) {
        // Compared on this GPU, a chunk at a time: the source's bytes are brought over into a staging buffer (kept
        // between messages, no larger than this memory or kMaxStagedBytes, however large the message) and compared
        // there. The segments run in message order, so the first chunk with a difference holds the first one.
        enablePeerAccess(d.index, s.index);
        if (!d.check.staged)
            d.check.staged = stagingBuffer(std::min(d.size, kMaxStagedBytes));
        const std::size_t capacity = std::min(d.check.staged->count(), d.size);
        unsigned char* staged = d.check.staged->get();
        std::vector<GpuSegment> chunk;
        std::size_t used = 0;
        // The stream runs in order: the chunk's copies land before its comparison, which waits for its result.
        const auto compareChunk = [&]() -> std::int64_t {
            const std::int64_t found =
                chunk.empty() ? -1 : compareOnDevice(staged, d.bytes(), chunk, d.stream, d.check);
            chunk.clear();
            used = 0;
            return found;
        };
        for (GpuSegment seg : segments)
            while (seg.bytes > 0) {
                const std::size_t n = std::min(seg.bytes, capacity - used);
                COH_CUDA(cudaMemcpyPeerAsync(staged + used, d.index, s.bytes() + seg.srcOffset, s.index, n, d.stream));
                chunk.push_back({used, seg.dstOffset, n, seg.at});
                used += n;
                seg.srcOffset += n;
                seg.dstOffset += n;
                seg.at += n;
                seg.bytes -= n;
                if (used == capacity)
                    if (const std::int64_t found = compareChunk(); found >= 0)
                        return found;
            }
        return compareChunk();
    }
    // On the copy's GPU: it reaches both (pinned host memory is addressed by every GPU).
    Device& where = Device::engineFor(s, d);
    COH_CUDA(cudaSetDevice(where.index));
    return compareOnDevice(s.bytes(), d.bytes(), segments, where.stream, where.check);
}

} // namespace coh::core
