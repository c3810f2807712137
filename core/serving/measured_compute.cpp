#include "core/serving/measured_compute.h"

#include "core/real/stale_read.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <string>

namespace coh::core {

struct MeasuredCompute::NodePool {
    real::PagedKvShape shape;
    real::NodeAttention* attention = nullptr; // the node's, made by the resource
    std::vector<std::uint32_t> order;         // the pool's blocks in a shuffled order: block tables are scattered
    std::uint32_t cursor = 0;                 // where the next sequence's table starts in `order`
    std::vector<float> q, out;
    std::vector<std::uint32_t> tables;
    std::vector<real::PagedSequence> sequences;
};

real::PagedKvShape decodeAttentionShape(const ModelSpec& model, std::uint32_t blockTokens, std::size_t tensorParallel)
{
    const auto tp = static_cast<std::uint32_t>(std::max<std::size_t>(1, tensorParallel));
    real::PagedKvShape shape;
    shape.kvHeads = std::max(1u, model.kvHeads / tp);
    const std::uint32_t heads = std::max(shape.kvHeads, model.heads / tp);
    shape.queryHeads = heads / shape.kvHeads * shape.kvHeads;
    shape.headDim = std::max(1u, model.headDim);
    shape.blockTokens = std::max(1u, blockTokens);
    return shape;
}

MeasuredCompute::MeasuredCompute(const CostModel& cost, const ModelSpec& model, std::uint32_t blockTokens,
                                 real::NodeResources& nodes)
    : m_cost(cost)
    , m_model(model)
    , m_blockTokens(std::max(1u, blockTokens))
    , m_nodes(nodes)
{
}

MeasuredCompute::~MeasuredCompute() = default;

MeasuredCompute::NodePool& MeasuredCompute::pool(std::uint32_t node, const real::PagedKvShape& shape)
{
    if (m_pools.size() <= node)
        m_pools.resize(node + 1);
    auto& p = m_pools[node];
    real::NodeAttention& attention = m_nodes.attention(node, shape, m_model.dtypeBytes);
    // A pool made again (another tensor-parallel width or element) gets its order again. Its address alone cannot
    // tell: a pool made again may well land where the one it replaced was.
    if (!p || p->attention != &attention || !real::sameShape(p->shape, shape) ||
        p->order.size() != attention.blocks()) {
        p = std::make_unique<NodePool>();
        p->shape = shape;
        p->attention = &attention;
        p->order.resize(attention.blocks());
        std::iota(p->order.begin(), p->order.end(), 0u);
        std::shuffle(p->order.begin(), p->order.end(), std::mt19937(node));
        m_poolBytes = attention.poolBytes();
        m_elementBytes = attention.elementBytes();
    }
    return *p;
}

std::uint32_t MeasuredCompute::layersRun() const
{
    return std::min(m_nodes.options().layers, std::max(1u, m_model.layers));
}

SimTime MeasuredCompute::decode(const InstanceState& inst, const DecodeBatch& batch)
{
    const std::span<const std::uint32_t> contexts = batch.contexts;
    const SimTime linear = m_cost.decodeLinear(static_cast<std::uint32_t>(inst.active.size()), inst.hw);
    if (contexts.empty() || inst.nodes.empty())
        return linear;
    const std::uint32_t node = inst.nodes.front();
    const real::PagedKvShape shape = shapeFor(inst.nodes.size());
    NodePool& p = pool(node, shape);

    // Each sequence's block table: as many blocks as its context needs, taken from the shuffled pool in turn (a
    // batch larger than the pool reads some blocks more than once: the bytes are the batch's, the rows reused).
    // The tables go in first, whole, so the spans taken of them below stay valid.
    p.tables.clear();
    std::uint64_t tokens = 0;
    for (const std::uint32_t context : contexts) {
        tokens += context;
        for (std::uint32_t b = 0; b < (context + m_blockTokens - 1) / m_blockTokens; ++b) {
            p.tables.push_back(p.order[p.cursor]);
            p.cursor = (p.cursor + 1) % static_cast<std::uint32_t>(p.order.size());
        }
    }
    p.sequences.clear();
    std::size_t offset = 0;
    for (const std::uint32_t context : contexts) {
        const std::size_t n = (context + m_blockTokens - 1) / m_blockTokens;
        p.sequences.push_back({std::span<const std::uint32_t>(p.tables).subspan(offset, n), context});
        offset += n;
    }
    const std::size_t headFloats = std::size_t{contexts.size()} * shape.queryHeads * shape.headDim;
    if (p.q.size() < headFloats) {
        std::mt19937 rng(static_cast<std::uint32_t>(p.q.size()));
        std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
        while (p.q.size() < headFloats)
            p.q.push_back(uniform(rng));
    }
    p.out.resize(p.q.size());

    const std::uint32_t layers = layersRun();
    const float scale = 1.0f / std::sqrt(static_cast<float>(shape.headDim));
    m_lastNs = std::max<std::int64_t>(1, p.attention->run(p.q, p.sequences, scale, layers, p.out));
    if (!batch.staleBlocks.empty())
        measureStaleReads(p, batch, scale);
    ++m_steps;
    m_attentionNs += static_cast<double>(m_lastNs);
    m_attentionBytes += p.attention->kvBytes(tokens) * layers;
    // The layers run stand for all of the model's.
    const double scaled = static_cast<double>(m_lastNs) * static_cast<double>(std::max(1u, m_model.layers)) / layers;
    return addTime(linear, roundToSimTime(scaled, "a decode step's attention"), "a decode step");
}

void MeasuredCompute::measureStaleReads(NodePool& p, const DecodeBatch& batch, float scale)
{
    const real::PagedKvShape& shape = p.attention->shape();
    const std::size_t headFloats = std::size_t{shape.queryHeads} * shape.headDim;
    std::vector<float> staleOut(headFloats);
    for (std::size_t s = 0; s < p.sequences.size() && s < batch.staleBlocks.size(); ++s) {
        if (batch.staleBlocks[s] == 0)
            continue;
        // Read stale, a block holds the bytes it had before its latest version: here the pool blocks after this step's
        // tables, whose rows belong to no sequence of the batch (a freed block's earlier contents, in a real pool).
        const real::PagedSequence& fresh = p.sequences[s];
        std::vector<std::uint32_t> staleTable(fresh.blocks.begin(), fresh.blocks.end());
        const std::size_t n = std::min<std::size_t>(batch.staleBlocks[s], staleTable.size());
        for (std::size_t b = 0; b < n; ++b)
            staleTable[b] = p.order[(p.cursor + b) % p.order.size()];
        // The step's own output is the fresh side: only the stale one is computed again.
        const auto q = std::span<const float>(p.q).subspan(s * headFloats, headFloats);
        const auto out = std::span<const float>(p.out).subspan(s * headFloats, headFloats);
        const real::PagedSequence stale{staleTable, fresh.contextTokens};
        p.attention->run(q, std::span(&stale, 1), scale, 1, staleOut);
        m_staleReads.push_back(real::compareStaleRead(shape, fresh, out, staleTable, staleOut));
    }
}

void MeasuredCompute::describe(BackendSummary& summary) const
{
    summary.staleReads = m_staleReads;
    summary.decodeSteps = m_steps;
    summary.attentionMs = m_attentionNs * 1e-6;
    summary.attentionBytes = m_attentionBytes;
    if (m_steps == 0)
        return;
    // An element other than the model's (fp8 held as fp16, say) reads other bytes than the model would: say so.
    const std::string held = real::kvDtypeName(static_cast<double>(m_elementBytes));
    const std::string element =
        m_elementBytes == m_model.dtypeBytes
            ? held
            : fmt::format("{}, the model's {}-byte K/V held as {}", held, m_model.dtypeBytes, held);
    summary.scaledDown = fmt::format(
        "decode attention runs {} of the model's {} layers per step ({}, over a {} MiB K/V pool per node whose "
        "blocks the batch's tables wrap), its time scaled to {}; the linear layers of a decode step and prefill keep "
        "the roofline's time",
        layersRun(), m_model.layers, element, m_poolBytes >> 20, m_model.layers);
}

} // namespace coh::core
