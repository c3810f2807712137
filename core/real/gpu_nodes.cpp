#include "core/real/gpu_nodes.h"

#include "core/real/node_workers.h" // poolBlocks, fillBlocks

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

namespace coh::core::real {

namespace {

// The GPU segments of pieces: each piece's first `limit(piece)` bytes, cut where either memory wraps; `at` counts
// from the message's start as the pieces follow each other.
template <class Limit>
std::vector<GpuSegment> segmentsOf(std::span<const CopyPiece> pieces, std::size_t size, Limit&& limit)
{
    std::vector<GpuSegment> out;
    std::size_t seen = 0;
    for (const CopyPiece& p : pieces) {
        std::size_t at = seen;
        forContiguousRuns(size, p, limit(p), [&](std::size_t from, std::size_t to, std::size_t n) {
            out.push_back({from, to, n, at});
            at += n;
        });
        seen += p.bytes;
    }
    return out;
}

class GpuNodeAttention final : public NodeAttention {
  public:
    GpuNodeAttention(int device, const PagedKvShape& shape, std::size_t poolBytes)
        : m_shape(shape)
        , m_blocks(poolBlocks(shape, poolBytes, 2))
        , m_gpu(makeKernel(device, shape, m_blocks))
    {
    }
    const PagedKvShape& shape() const override { return m_shape; }
    std::uint32_t blocks() const override { return m_blocks; }
    std::size_t elementBytes() const override { return 2; } // fp16
    std::int64_t run(std::span<const float> q, std::span<const PagedSequence> sequences, float scale,
                     std::uint32_t layers, std::span<float> out) override
    {
        m_batch.tables.clear();
        m_batch.tableOffsets.clear();
        m_batch.contexts.clear();
        for (const PagedSequence& s : sequences) {
            m_batch.tableOffsets.push_back(static_cast<std::uint32_t>(m_batch.tables.size()));
            m_batch.tables.insert(m_batch.tables.end(), s.blocks.begin(), s.blocks.end());
            m_batch.contexts.push_back(s.contextTokens);
        }
        const std::size_t floats = sequences.size() * std::size_t{m_shape.queryHeads} * m_shape.headDim;
        if (q.size() < floats || out.size() < floats)
            throw std::invalid_argument("real-cuda attention: q or out is shorter than the batch's heads");
        m_q.assign(q.begin(), q.begin() + static_cast<std::ptrdiff_t>(floats));
        const GpuAttentionRun r = m_gpu.step(m_q, m_batch, scale, static_cast<int>(layers));
        std::copy(r.out.begin(), r.out.end(), out.begin());
        return static_cast<std::int64_t>(std::llround(r.medianMs * 1e6));
    }
    void write(std::span<const KvRowWrite> writes, std::span<const std::byte> landed) override
    {
        m_writes.assign(writes.begin(), writes.end());
        m_gpu.write(m_writes, landed.data(), landed.size());
    }
    std::span<const BlockStamp> stamps() override
    {
        m_stamps = m_gpu.stamps();
        return m_stamps;
    }
    std::span<const std::uint32_t> checksums(std::span<const std::uint32_t> blocks) override
    {
        m_sumBlocks.assign(blocks.begin(), blocks.end());
        m_sums = m_gpu.checksums(m_sumBlocks);
        return m_sums;
    }
    void flipByte(std::uint32_t block) override { m_gpu.flipByte(block, NodeArena::kFlipMask); }
    void grow(std::uint32_t blocks) override
    {
        m_gpu.grow(blocks);
        m_blocks = blocks;
    }

  private:
    static GpuPagedAttention makeKernel(int device, const PagedKvShape& shape, std::uint32_t blocks);

    PagedKvShape m_shape;
    std::uint32_t m_blocks;
    GpuPagedAttention m_gpu;
    GpuAttentionBatch m_batch;
    std::vector<float> m_q;
    std::vector<KvRowWrite> m_writes;
    std::vector<BlockStamp> m_stamps;
    std::vector<std::uint32_t> m_sumBlocks, m_sums;
};

GpuPagedAttention GpuNodeAttention::makeKernel(int device, const PagedKvShape& shape, std::uint32_t blocks)
{
    // The same seeded values as a real-cpu pool, uploaded as fp16.
    std::vector<float> k, v;
    fillBlocks(k, v, 0, blocks, shape.blockFloats());
    return GpuPagedAttention(device, GpuKvShape{shape.queryHeads, shape.kvHeads, shape.headDim, shape.blockTokens}, k,
                             v);
}

} // namespace

GpuNodes::GpuNodes(const Topology& topology, const RealCpuOptions& options, std::uint64_t seed,
                   std::vector<GpuDevice> devices)
    : m_topology(topology)
    , m_options(options)
    , m_seed(seed)
    , m_devices(std::move(devices))
    , m_memories(topology.nodes.size())
    , m_partition(topology.nodes.size(), -1)
    , m_perDevice(m_devices.size(), 0)
    , m_attention(topology.nodes.size())
{
    if (m_devices.empty())
        throw GpuError("real-cuda: no GPU to run on");
}

GpuNodes::~GpuNodes()
{
    m_attention.clear();
}

GpuMemory& GpuNodes::memory(std::uint32_t node)
{
    auto& m = m_memories[node];
    if (!m) {
        // Device memories are dealt over the GPUs in turn, and host memories' streams in a turn of their own, so a
        // host node does not move the next partition to another GPU than the memory check counted it on.
        const bool host = hostMemoryOnGpus(m_topology.nodes[node].kind);
        std::size_t& dealt = host ? m_hostMemories : m_partitions;
        const std::size_t gpu = dealt++ % m_devices.size();
        m = std::make_unique<GpuMemory>(m_devices[gpu].index, m_options.arenaBytes, m_seed * 1000003 + node,
                                        host ? GpuMemoryPlace::PinnedHost : GpuMemoryPlace::Device);
        if (!host)
            m_partition[node] = m_perDevice[gpu]++;
    }
    return *m;
}

void GpuNodes::stampMemory(std::uint32_t node, std::size_t offset, const CopyStamp& stamp, std::size_t bytes)
{
    GpuMemory& m = memory(node);
    offset %= m.size();
    m.write(offset, &stamp, std::min({bytes, sizeof stamp, m.size() - offset}));
}

std::uint32_t GpuNodes::payloadChecksum(std::uint32_t node, std::span<const CopyPiece> pieces, CopySide side)
{
    const GpuMemory& m = memory(node);
    constexpr std::size_t kChunk = std::size_t{8} << 20; // bounds the host buffer a large message is read through
    std::vector<unsigned char> staged;
    Crc32 crc;
    forPayloadRuns(m.size(), pieces, side, [&](std::size_t offset, std::size_t n) {
        for (std::size_t done = 0; done < n;) {
            const std::size_t part = std::min(kChunk, n - done);
            staged.resize(part);
            m.read(offset + done, staged.data(), part);
            crc.add(staged.data(), part);
            done += part;
        }
    });
    return crc.value();
}

void GpuNodes::flipMemoryByte(std::uint32_t node, std::size_t offset)
{
    GpuMemory& m = memory(node);
    offset %= m.size();
    unsigned char byte = 0;
    m.read(offset, &byte, 1);
    byte ^= NodeArena::kFlipMask;
    m.write(offset, &byte, 1);
}

CopyResult GpuNodes::copyPieces(std::uint32_t src, std::uint32_t dst, std::span<const CopyPiece> pieces,
                                const CopyStamp& stamp, CopyFault fault)
{
    CopyResult result;
    if (pieces.empty())
        return result;
    const GpuMemory& from = memory(src);
    GpuMemory& to = memory(dst);
    const std::size_t size = to.size();
    // The faults play as on real-cpu (node_worker.h): the same bytes written, the same byte flipped.
    std::vector<CopyPiece> copied(pieces.begin(), pieces.end());
    copied.front() = writtenPart(copied.front(), fault);
    result.ns = to.copyFrom(from, segmentsOf(copied, size, [](const CopyPiece& p) { return p.bytes; }));
    if (fault == CopyFault::FlipByte)
        if (const auto where = flippedByte(pieces, size))
            flipMemoryByte(dst, *where);
    const auto [at, stampBytes] = heldStamp(pieces.front(), size);
    result.stampBytes = stampBytes;
    to.read(at, &result.held, result.stampBytes);
    result.stampOk = std::memcmp(&result.held, &stamp, result.stampBytes) == 0;
    return result;
}

std::int64_t GpuNodes::firstDifference(std::uint32_t src, std::uint32_t dst, std::span<const CopyPiece> pieces)
{
    GpuMemory& to = memory(dst);
    const std::size_t size = to.size();
    return to.firstDifference(memory(src),
                              segmentsOf(pieces, size, [&](const CopyPiece& p) { return std::min(p.bytes, size); }));
}

NodeAttention& GpuNodes::attention(std::uint32_t node, const PagedKvShape& shape, std::size_t)
{
    auto& a = m_attention[node];
    if (!a || !sameShape(a->shape(), shape)) {
        a.reset();
        a = std::make_unique<GpuNodeAttention>(memory(node).device(), shape, m_options.arenaBytes);
    }
    return *a;
}

std::vector<BackendNodeMapping> GpuNodes::mapping() const
{
    std::vector<BackendNodeMapping> out;
    for (std::uint32_t node = 0; node < m_memories.size(); ++node) {
        if (!m_memories[node])
            continue;
        const int device = m_memories[node]->device();
        std::string name;
        for (const GpuDevice& d : m_devices)
            if (d.index == device)
                name = d.name;
        const std::string attends = m_attention[node]
                                        ? fmt::format("; runs its decode attention (fp16) over a {} K/V pool",
                                                      memorySize(m_attention[node]->poolBytes()))
                                        : std::string();
        const std::string size = memorySize(m_memories[node]->size());
        if (m_memories[node]->place() == GpuMemoryPlace::PinnedHost)
            out.push_back(
                {m_topology.nodes[node].id,
                 fmt::format("{} of pinned host memory, copied to and from GPUs by DMA, with a stream on GPU "
                             "{} ({}){}",
                             size, device, name,
                             m_attention[node] ? fmt::format("; its decode attention runs on GPU {} (fp16)", device)
                                               : std::string())});
        else
            out.push_back({m_topology.nodes[node].id,
                           fmt::format("GPU {} ({}) partition {}: {} of device memory and a stream of its own{}",
                                       device, name, m_partition[node], size, attends)});
    }
    return out;
}

} // namespace coh::core::real
