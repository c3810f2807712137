#include "core/real/node_workers.h"

#include <fmt/format.h>

#include <algorithm>
#include <random>

namespace coh::core::real {

namespace {

class CpuNodeAttention final : public NodeAttention {
  public:
    CpuNodeAttention(NodeWorker& worker, const PagedKvShape& shape, std::size_t poolBytes)
        : m_worker(worker)
        , m_shape(shape)
        , m_blocks(poolBlocks(shape, poolBytes, sizeof(float)))
    {
        // Allocated and filled on the node's worker, so the pages are that thread's (first touch).
        m_worker.runTimed(&fill, this);
    }
    const PagedKvShape& shape() const override { return m_shape; }
    std::uint32_t blocks() const override { return m_blocks; }
    std::size_t elementBytes() const override { return sizeof(float); }
    std::int64_t run(std::span<const float> q, std::span<const PagedSequence> sequences, float scale,
                     std::uint32_t layers, std::span<float> out) override
    {
        Step step{this, q, sequences, scale, layers, out};
        return m_worker.runTimed(&runStep, &step);
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
    static void fill(void* context)
    {
        auto& self = *static_cast<CpuNodeAttention*>(context);
        fillPool(self.m_k, self.m_v, std::size_t{self.m_blocks} * self.m_shape.blockFloats());
    }
    static void runStep(void* context)
    {
        const auto& s = *static_cast<const Step*>(context);
        for (std::uint32_t l = 0; l < s.layers; ++l)
            pagedDecodeAttention(s.self->m_shape, s.self->m_k, s.self->m_v, s.q, s.sequences, s.scale, s.out);
    }

    NodeWorker& m_worker;
    PagedKvShape m_shape;
    std::uint32_t m_blocks;
    std::vector<float> m_k, m_v;
};

} // namespace

std::uint32_t poolBlocks(const PagedKvShape& shape, std::size_t poolBytes, std::size_t elementBytes)
{
    const std::size_t blockBytes = 2 * shape.blockFloats() * elementBytes;
    return static_cast<std::uint32_t>(std::max<std::size_t>(1, poolBytes / blockBytes));
}

void fillPool(std::vector<float>& k, std::vector<float>& v, std::size_t floats)
{
    // K and V from streams of their own, so pools of different sizes agree on the blocks they share.
    std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
    std::mt19937 kRng(7), vRng(8);
    k.resize(floats);
    v.resize(floats);
    for (auto& x : k)
        x = uniform(kRng);
    for (auto& x : v)
        x = uniform(vRng);
}

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

NodeAttention& NodeWorkers::attention(std::uint32_t node, const PagedKvShape& shape)
{
    auto& a = m_attention[node];
    // A node that serves instances of another tensor-parallel width gets the pool of the shape it runs now.
    if (!a || !sameShape(a->shape(), shape)) {
        a.reset();
        // K and V together fill the node's arena size: past the last-level cache, so a step streams from memory.
        a = std::make_unique<CpuNodeAttention>((*this)[node], shape, m_options.arenaBytes);
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
        out.push_back(
            {m_topology.nodes[node].id, fmt::format("cpu worker thread {}, {} arena it touched first{}", order++, arena,
                                                    m_attention[node] ? "; runs its decode attention" : "")});
    }
    return out;
}

} // namespace coh::core::real
