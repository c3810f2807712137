#include "core/real/node_workers.h"

#include "core/real/block_checksum.h"
#include "core/real/core_cache.h"
#include "core/real/huge_pages.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace coh::core::real {

namespace {

// `T`: the pool's element, float (fp32) or Half (fp16).
template <class T> class CpuNodeAttention final : public NodeAttention {
  public:
    CpuNodeAttention(NodeWorker& worker, const PagedKvShape& shape, std::size_t poolBytes)
        : m_worker(worker)
        , m_shape(shape)
        , m_blocks(poolBlocks(shape, poolBytes, sizeof(T)))
    {
        // Allocated and filled on the node's worker, so the pages are that thread's (first touch).
        m_worker.runTimed(&fill, this);
    }
    const PagedKvShape& shape() const override { return m_shape; }
    std::uint32_t blocks() const override { return m_blocks; }
    std::size_t elementBytes() const override { return sizeof(T); }
    std::size_t warmBytes() const override { return coreCacheBytes(); }
    std::int64_t run(std::span<const float> q, std::span<const PagedSequence> sequences, float scale,
                     std::uint32_t layers, std::span<float> out) override
    {
        Step step{this, q, sequences, scale, layers, out};
        return m_worker.runTimed(&runStep, &step);
    }
    void write(std::span<const KvRowWrite> writes, std::span<const std::byte> landed) override
    {
        for (const KvRowWrite& w : writes) {
            if (!writeFits(w, m_blocks, m_shape.blockTokens))
                throw std::invalid_argument("real-cpu attention: a write past the pool or its block's rows");
            if (!landedFits(w, landed.size(), m_shape.kvHeads, m_shape.headDim, sizeof(T)))
                throw std::invalid_argument("real-cpu attention: a write's landed rows past the bytes given");
        }
        Writes job{this, writes, landed};
        m_worker.runTimed(&writeRows, &job);
    }
    std::span<const BlockStamp> stamps() override { return m_stamps; }
    std::span<const std::uint32_t> checksums(std::span<const std::uint32_t> blocks) override
    {
        for (const std::uint32_t block : blocks)
            if (block >= m_blocks)
                throw std::invalid_argument("real-cpu attention: a checksum of a block past the pool");
        Sums job{this, blocks};
        m_worker.runTimed(&sumRows, &job);
        return m_sums;
    }
    void flipByte(std::uint32_t block) override
    {
        if (block >= m_blocks)
            throw std::invalid_argument("real-cpu attention: a flipped byte past the pool");
        auto* bytes = reinterpret_cast<unsigned char*>(m_k.data() + std::size_t{block} * m_shape.blockFloats());
        *bytes ^= NodeArena::kFlipMask;
    }
    void grow(std::uint32_t blocks) override
    {
        if (blocks < m_blocks)
            throw std::invalid_argument("real-cpu attention: a pool grows, it does not shrink");
        Growth job{this, blocks};
        m_worker.runTimed(&growPool, &job);
        if (job.failed)
            throw std::bad_alloc();
    }

  private:
    struct Step {
        CpuNodeAttention* self;
        std::span<const float> q;
        std::span<const PagedSequence> sequences;
        float scale;
        std::uint32_t layers;
        std::span<float> out;
    };
    struct Writes {
        CpuNodeAttention* self;
        std::span<const KvRowWrite> writes;
        std::span<const std::byte> landed;
    };
    struct Sums {
        CpuNodeAttention* self;
        std::span<const std::uint32_t> blocks;
    };
    struct Growth {
        CpuNodeAttention* self;
        std::uint32_t blocks;
        bool failed = false; // the allocation threw on the worker, whose jobs do not throw
    };
    std::uint32_t rowsChecksum(std::uint32_t block, std::uint32_t fromRow, std::uint32_t toRow) const
    {
        return blockRowsChecksum(m_shape, reinterpret_cast<const std::byte*>(m_k.data()),
                                 reinterpret_cast<const std::byte*>(m_v.data()), sizeof(T), block, fromRow, toRow);
    }
    static void fill(void* context)
    {
        auto& self = *static_cast<CpuNodeAttention*>(context);
        fillBlocks(self.m_k, self.m_v, 0, self.m_blocks, self.m_shape.blockFloats());
        self.m_stamps.assign(self.m_blocks, BlockStamp{});
    }
    // On the worker, as its K and V rows were filled: each write's rows, the landed ones copied and the rest
    // computed, then its block's stamp, sealed as sealSource says (kv_rows.h) over what the rows hold.
    static void writeRows(void* context)
    {
        const auto& job = *static_cast<const Writes*>(context);
        CpuNodeAttention& self = *job.self;
        const PagedKvShape& shape = self.m_shape;
        const std::size_t rowBytes = std::size_t{shape.headDim} * sizeof(T);
        for (const KvRowWrite& w : job.writes) {
            if (w.sequence != kFreeBlock)
                for (std::uint32_t head = 0; head < shape.kvHeads; ++head)
                    for (std::uint32_t row = w.fromRow; row < w.toRow; ++row) {
                        const std::size_t at =
                            ((std::size_t{w.block} * shape.kvHeads + head) * shape.blockTokens + row) * shape.headDim;
                        if (row - w.fromRow < w.landedRows) {
                            const std::byte* k = job.landed.data() + w.landedAt +
                                                 (std::size_t{head} * w.landedRows + (row - w.fromRow)) * rowBytes;
                            const std::size_t half = std::size_t{shape.kvHeads} * w.landedRows * rowBytes;
                            std::memcpy(self.m_k.data() + at, k, rowBytes);
                            std::memcpy(self.m_v.data() + at, k + half, rowBytes);
                            continue;
                        }
                        for (std::uint32_t dim = 0; dim < shape.headDim; ++dim) {
                            self.m_k[at + dim] =
                                fromFloat<T>(kvRowValue(w.sequence, w.firstToken + row, head, dim, false));
                            self.m_v[at + dim] =
                                fromFloat<T>(kvRowValue(w.sequence, w.firstToken + row, head, dim, true));
                        }
                    }
            BlockStamp& stamp = self.m_stamps[w.block];
            const std::uint32_t version = stamp.version + 1;
            if (w.sequence == kFreeBlock) {
                stamp = BlockStamp{kFreeBlock, 0, version, 0};
                continue;
            }
            const SealSource seal = sealSource(stamp, w);
            stamp = BlockStamp{w.sequence, w.toRow, version,
                               seal.kept - self.rowsChecksum(w.block, seal.cutFrom, seal.cutTo) +
                                   self.rowsChecksum(w.block, seal.addFrom, seal.addTo)};
        }
    }
    // On the worker, so the new pages are its own (first touch): the rows kept where they are in each block, the new
    // blocks' K and V from grownBlockValue, their stamps freed.
    static void growPool(void* context)
    {
        auto& job = *static_cast<Growth*>(context);
        CpuNodeAttention& self = *job.self;
        const std::size_t blockFloats = self.m_shape.blockFloats();
        try {
            // Exactly as large (resize alone may take twice what it appends): K, then V, so the worker holds at most
            // half the old pool more than the grown one (what real::largestPoolBytes leaves room for).
            fillBlocks(self.m_k, self.m_v, self.m_blocks, job.blocks, blockFloats);
            self.m_stamps.reserve(job.blocks);
            self.m_stamps.resize(job.blocks, BlockStamp{});
        } catch (const std::bad_alloc&) {
            // The pool keeps its blocks (NodeAttention::grow): K grown before V ran out is cut back (no allocation).
            self.m_k.resize(std::size_t{self.m_blocks} * blockFloats);
            self.m_v.resize(std::size_t{self.m_blocks} * blockFloats);
            self.m_stamps.resize(self.m_blocks);
            job.failed = true;
            return;
        }
        self.m_blocks = job.blocks;
    }
    // On the worker: each block's rows as its stamp counts them, summed as they are now.
    static void sumRows(void* context)
    {
        const auto& job = *static_cast<const Sums*>(context);
        CpuNodeAttention& self = *job.self;
        self.m_sums.clear();
        for (const std::uint32_t block : job.blocks)
            self.m_sums.push_back(self.rowsChecksum(block, 0, self.m_stamps[block].tokens));
    }
    static void runStep(void* context)
    {
        const auto& s = *static_cast<const Step*>(context);
        for (std::uint32_t l = 0; l < s.layers; ++l)
            pagedDecodeAttention(s.self->m_shape, std::span<const T>(s.self->m_k), std::span<const T>(s.self->m_v), s.q,
                                 s.sequences, s.scale, s.out);
    }

    NodeWorker& m_worker;
    PagedKvShape m_shape;
    std::uint32_t m_blocks;
    std::vector<T> m_k, m_v;
    std::vector<BlockStamp> m_stamps;  // per block, beside the rows in the worker's memory
    std::vector<std::uint32_t> m_sums; // checksums()'s
};

} // namespace

std::uint32_t poolBlocks(const PagedKvShape& shape, std::size_t poolBytes, std::size_t elementBytes)
{
    const std::size_t blockBytes = 2 * shape.blockFloats() * elementBytes;
    return static_cast<std::uint32_t>(std::max<std::size_t>(1, poolBytes / blockBytes));
}

template <class T>
void fillBlocks(std::vector<T>& k, std::vector<T>& v, std::uint32_t fromBlock, std::uint32_t toBlock,
                std::size_t blockFloats)
{
    const std::size_t kept = std::size_t{fromBlock} * blockFloats, size = std::size_t{toBlock} * blockFloats;
    if (fromBlock > toBlock || kept > k.size() || kept > v.size())
        throw std::invalid_argument("fillBlocks: the blocks to fill must follow blocks the pools hold");
    // Each pool into a buffer of its own, advised before anything touches it (the kept blocks copied in, the rest
    // filled), so every page of it is a huge one where the kernel gives them. K, then V: at most one old pool is held
    // beside its new one.
    for (std::vector<T>* pool : {&k, &v}) {
        std::vector<T> made;
        made.reserve(size);
        adviseHugePages(made.data(), size * sizeof(T));
        made.insert(made.end(), pool->begin(), pool->begin() + static_cast<std::ptrdiff_t>(kept));
        made.resize(size);
        pool->swap(made);
    }
    for (std::uint32_t block = fromBlock; block < toBlock; ++block) {
        T* kBlock = k.data() + std::size_t{block} * blockFloats;
        T* vBlock = v.data() + std::size_t{block} * blockFloats;
        for (std::size_t e = 0; e < blockFloats; ++e) {
            kBlock[e] = fromFloat<T>(grownBlockValue(block, static_cast<std::uint32_t>(e), false));
            vBlock[e] = fromFloat<T>(grownBlockValue(block, static_cast<std::uint32_t>(e), true));
        }
    }
}
template void fillBlocks(std::vector<float>&, std::vector<float>&, std::uint32_t, std::uint32_t, std::size_t);
template void fillBlocks(std::vector<Half>&, std::vector<Half>&, std::uint32_t, std::uint32_t, std::size_t);

NodeWorkers::NodeWorkers(const Topology& topology, const RealCpuOptions& options, std::uint64_t seed)
    : m_topology(topology)
    , m_options(options)
    , m_seed(seed)
    , m_workers(topology.nodes.size())
    , m_attention(topology.nodes.size())
{
}

NodeWorkers::~NodeWorkers()
{
    m_attention.clear(); // before the workers they run on
}

NodeWorker& NodeWorkers::operator[](std::uint32_t node)
{
    auto& w = m_workers[node];
    // Each node's arena gets its own content, so a copy from the wrong sender differs from its source.
    if (!w)
        w = std::make_unique<NodeWorker>(m_options.arenaBytes, m_seed * 1000003 + node);
    return *w;
}

void NodeWorkers::writeMemory(std::uint32_t node, std::size_t offset, std::span<const std::byte> bytes)
{
    NodeArena& arena = (*this)[node].arena();
    if (offset > arena.size() || bytes.size() > arena.size() - offset)
        throw std::out_of_range("real-cpu: a write past a node's arena");
    std::memcpy(arena.data() + offset, bytes.data(), bytes.size());
}

void NodeWorkers::readBytes(std::uint32_t node, std::size_t offset, std::span<std::byte> out)
{
    const NodeArena& arena = (*this)[node].arena();
    if (offset > arena.size() || out.size() > arena.size() - offset)
        throw std::out_of_range("real-cpu: a read past a node's arena");
    std::memcpy(out.data(), arena.data() + offset, out.size());
}

NodeAttention& NodeWorkers::attention(std::uint32_t node, const PagedKvShape& shape, std::size_t modelElementBytes)
{
    auto& a = m_attention[node];
    const std::size_t element = kvElementBytes(name(), modelElementBytes);
    // A node that serves instances of another tensor-parallel width gets the pool of the shape it runs now.
    if (!a || !sameShape(a->shape(), shape) || a->elementBytes() != element) {
        a.reset();
        // K and V together fill the node's arena size: past the last-level cache, so a step streams from memory.
        if (element == sizeof(Half))
            a = std::make_unique<CpuNodeAttention<Half>>((*this)[node], shape, m_options.arenaBytes);
        else
            a = std::make_unique<CpuNodeAttention<float>>((*this)[node], shape, m_options.arenaBytes);
    }
    return *a;
}

std::vector<BackendNodeMapping> NodeWorkers::mapping() const
{
    std::vector<BackendNodeMapping> out;
    std::size_t order = 0;
    for (std::uint32_t node = 0; node < m_workers.size(); ++node) {
        if (!m_workers[node])
            continue;
        const std::string arena = memorySize(m_workers[node]->arena().size());
        const std::string attention =
            m_attention[node] ? fmt::format("; runs its decode attention ({}) over a {} K/V pool",
                                            kvDtypeName(static_cast<double>(m_attention[node]->elementBytes())),
                                            memorySize(m_attention[node]->poolBytes()))
                              : std::string();
        out.push_back({m_topology.nodes[node].id,
                       fmt::format("cpu worker thread {}, {} arena it touched first{}", order++, arena, attention)});
    }
    return out;
}

} // namespace coh::core::real
