#include "core/serving/measured_compute.h"

#include "core/gpu/cuda_attention.h" // GpuOutOfMemory
#include "core/real/core_cache.h"
#include "core/real/stale_read.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <new>
#include <random>
#include <stdexcept>
#include <string>
#include <unordered_map>

namespace coh::core {

struct MeasuredCompute::NodePool {
    NodePool(const real::PagedKvShape& s, real::NodeAttention& a, std::uint32_t node)
        : shape(s)
        , attention(&a)
        , blockBytes(static_cast<double>(a.poolBytes()) / a.blocks())
        , startBytes(a.poolBytes())
        , largestBytes(startBytes)
        , blocks(a.blocks(), s.blockTokens, node)
    {
    }
    real::PagedKvShape shape;
    // The node's, made by the resource: gone once the resource makes another for another shape or element.
    real::NodeAttention* attention = nullptr;
    double blockBytes;        // K and V of one block, kept for the summary after the attention is gone
    std::size_t startBytes;   // as made
    std::size_t largestBytes; // as grown (growIfShort)
    // The most it can grow to under `poolMax` (RealCpuOptions::poolMaxBytes): whole blocks, never below its start.
    std::size_t reachableBytes(std::size_t poolMax) const
    {
        if (poolMax == real::RealCpuOptions::kPoolAsMemoryAllows)
            return startBytes;
        const auto block = static_cast<std::size_t>(blockBytes);
        return std::max(startBytes, block == 0 ? 0 : poolMax / block * block);
    }
    std::string refused;         // why it could not grow further (its memory had no room); empty: it can
    real::SequenceBlocks blocks; // each sequence's own blocks in it
    std::vector<float> q, out;
    std::vector<real::PagedSequence> sequences;
    std::vector<KvRowWrite> writes;                                // the step's, with the rows that landed
    std::vector<std::byte> landed;                                 // those rows, as read out of the node's memory
    std::unordered_map<std::uint32_t, std::uint32_t> kvSequenceOf; // the step's requests' KV sequences
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
    // A pool made again (another tensor-parallel width or element) gets its free list again. Its address alone cannot
    // tell: a pool made again may well land where the one it replaced was.
    if (!p || p->attention != &attention || !real::sameShape(p->shape, shape) ||
        p->blocks.poolBlocks() != attention.blocks()) {
        if (p) {
            m_replaced.add(*p, m_nodes.options().poolMaxBytes);
        }
        p = std::make_unique<NodePool>(shape, attention, node);
        m_elementBytes = attention.elementBytes();
    }
    return *p;
}

void MeasuredCompute::PoolTotals::add(const NodePool& p, std::size_t poolMax)
{
    shared += p.blocks.sharedBlocks();
    rowsWritten += p.blocks.rowsWritten();
    rowsAppended += p.blocks.rowsAppended();
    bytesNeeded = std::max(bytesNeeded, static_cast<double>(p.blocks.peakHeldBlocks()) * p.blockBytes);
    startBytes = pools == 0 ? p.startBytes : std::min(startBytes, p.startBytes);
    largestStart = std::max(largestStart, p.startBytes);
    largestBytes = std::max(largestBytes, p.largestBytes);
    grown += p.largestBytes > p.startBytes ? 1 : 0;
    if (const std::size_t reachable = p.reachableBytes(poolMax); reachable > p.startBytes)
        limitBytes = std::max(limitBytes, reachable);
    if (refused.empty())
        refused = p.refused;
    ++pools;
}

MeasuredCompute::PoolTotals MeasuredCompute::poolTotals() const
{
    PoolTotals totals = m_replaced;
    for (const auto& p : m_pools)
        if (p)
            totals.add(*p, m_nodes.options().poolMaxBytes);
    return totals;
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

    // Each sequence's own block table, as many blocks as its context needs: the ones it read last step, and new ones
    // from the free list (SequenceBlocks). The batch's sequences are the instance's active ones, in its order; the
    // ones that left the batch give their blocks back first. Then the rows they have not written yet land, and once
    // the attention has read them every read is checked against its block's stamp and seal.
    if (contexts.size() != inst.active.size())
        throw std::invalid_argument(
            fmt::format("a decode step of {} contexts for {} active sequences", contexts.size(), inst.active.size()));
    p.blocks.beginStep(inst.id, inst.active);
    growIfShort(p, inst.active, contexts);
    p.sequences.clear();
    std::uint64_t tokens = 0;
    for (std::size_t i = 0; i < contexts.size(); ++i) {
        const std::uint32_t context = contexts[i];
        tokens += context;
        p.sequences.push_back({p.blocks.hold(inst.active[i], context), context});
    }
    landWrites(p, node, inst, batch);
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
    checkReads(p, inst);
    if (!batch.staleBlocks.empty())
        measureStaleReads(p, batch, scale);
    ++m_steps;
    m_attentionNs += static_cast<double>(m_lastNs);
    m_attentionBytes += p.attention->kvBytes(tokens) * layers;
    // A step that read from its core's cache what the step before left there is fitted apart.
    const double layerBytes = p.attention->kvBytes(tokens);
    const std::size_t warm = m_nodes.options().warmBytes.value_or(p.attention->warmBytes());
    m_warmBytes = std::max(m_warmBytes, warm);
    const bool inCache = real::readsFromCoreCache(layerBytes, warm);
    (inCache ? m_attentionWarmFit : m_attentionFit).add(layerBytes, static_cast<double>(m_lastNs) / layers);
    addStep(m_attentionBySize, layerBytes, static_cast<double>(m_lastNs) / layers, inCache,
            p.attention->kvBytes(*std::max_element(contexts.begin(), contexts.end())));
    // What passed through the machine's memories since this node's step before (none before its first).
    if (const auto copied = m_traffic.step(node); copied && !inCache)
        addTrafficStep(m_attentionByTraffic, *copied, layerBytes, static_cast<double>(m_lastNs) / layers);
    // The layers run stand for all of the model's.
    const double scaled = static_cast<double>(m_lastNs) * static_cast<double>(std::max(1u, m_model.layers)) / layers;
    return addTime(linear, roundToSimTime(scaled, "a decode step's attention"), "a decode step");
}

void MeasuredCompute::growIfShort(NodePool& p, std::span<const std::uint32_t> batch,
                                  std::span<const std::uint32_t> contexts)
{
    const std::uint32_t shortfall = p.blocks.shortfall(batch, contexts);
    const std::size_t poolMax = m_nodes.options().poolMaxBytes;
    if (shortfall == 0 || poolMax == real::RealCpuOptions::kPoolAsMemoryAllows || !p.refused.empty())
        return;
    const std::uint32_t have = p.attention->blocks();
    const std::size_t blockBytes = p.attention->poolBytes() / have;
    const std::uint64_t most = std::min<std::uint64_t>(p.reachableBytes(poolMax) / blockBytes, ~std::uint32_t{0});
    if (most <= have)
        return;
    // Doubling keeps the growths (each a copy of the pool) few over a run whose batches grow step by step.
    const auto blocks = static_cast<std::uint32_t>(
        std::min<std::uint64_t>(most, std::max<std::uint64_t>(2ull * have, std::uint64_t{have} + shortfall)));
    // Its memory may have less room than it said (other processes took some): then the pool stays as it is and
    // lends blocks, as a full one does, and the run says why. Any other failure is the run's.
    const auto refuse = [&](const char* why) {
        p.refused = fmt::format("a pool could not grow past {}: {}", real::memorySize(p.attention->poolBytes()), why);
    };
    try {
        p.attention->grow(blocks);
    } catch (const std::bad_alloc& e) {
        refuse(e.what());
        return;
    } catch (const GpuOutOfMemory& e) {
        refuse(e.what());
        return;
    }
    p.blocks.grow(blocks);
    p.largestBytes = std::max(p.largestBytes, p.attention->poolBytes());
}

void MeasuredCompute::landWrites(NodePool& p, std::uint32_t node, const InstanceState& inst, const DecodeBatch& batch)
{
    if (m_nextFault != real::ReadFault::None && m_steps + 1 >= m_faultStep && p.blocks.injectFault(m_nextFault))
        m_nextFault = real::ReadFault::None;
    const std::span<const KvRowWrite> writes = p.blocks.writes();
    p.writes.assign(writes.begin(), writes.end());
    // A table names its sequence by request; its transfers named it by KV sequence (the batch says which).
    p.kvSequenceOf.clear();
    for (std::size_t i = 0; i < batch.kvSequences.size() && i < inst.active.size(); ++i)
        p.kvSequenceOf[inst.active[i]] = batch.kvSequences[i];
    real::LandedKvRows& landed = m_nodes.landedRows();
    const real::PagedKvShape& shape = p.attention->shape();
    const std::size_t element = p.attention->elementBytes();
    p.landed.clear();
    std::size_t first = 0; // the first write not landed yet
    for (std::size_t i = 0; i < p.writes.size(); ++i) {
        KvRowWrite& w = p.writes[i];
        // The pool computes a sequence's values from its request; a sequence a failure recovery moved to another KV
        // sequence landed that sequence's values, so its rows are computed (as are those of a request no batch names).
        const auto kv = p.kvSequenceOf.find(w.sequence);
        // Rows decode appends are its own, made at this step: whatever a fill carried ahead of them is not taken.
        if (w.sequence == kFreeBlock || w.fromRow == w.toRow || w.appended || kv == p.kvSequenceOf.end() ||
            kv->second != w.sequence)
            continue;
        // The rows its transfer landed in this node's memory and that are still there, from the write's first on.
        const real::LandedKvRows::RowsWanted wanted{.sequence = kv->second,
                                                    .firstToken = w.firstToken + w.fromRow,
                                                    .tokens = w.toRow - w.fromRow,
                                                    .kvHeads = shape.kvHeads,
                                                    .headDim = shape.headDim,
                                                    .elementBytes = element};
        w.landedRows = landed.rowsHeld(node, wanted);
        if (w.landedRows == 0)
            continue;
        // They are read out of the memory they landed in a bounded piece at a time: a step's first steps may take
        // many.
        if (!p.landed.empty() &&
            p.landed.size() + landedRowsBytes(w, shape.kvHeads, shape.headDim, element) > kLandedBytesPerWrite) {
            p.attention->write(std::span(p.writes).subspan(first, i - first), p.landed);
            first = i;
            p.landed.clear();
        }
        w.landedAt = p.landed.size();
        landed.read(m_nodes, node, wanted, w.landedRows, p.landed);
        if (m_nodes.options().checkLandedRows)
            if (const auto bad = real::notTheSequences(
                    wanted, w.landedRows, std::span(p.landed).subspan(static_cast<std::size_t>(w.landedAt))))
                throw std::logic_error(fmt::format("{}: decode pool of node {} read landed K/V rows that are not "
                                                   "its sequence's: {}",
                                                   m_nodes.name(), node, *bad));
        m_rowsLanded += w.landedRows;
    }
    p.attention->write(std::span(p.writes).subspan(first), p.landed);
    // What landed for the batch's sequences is in their blocks now (or computed there): the node's memory may take
    // those bytes back.
    for (const std::uint32_t kv : batch.kvSequences)
        landed.taken(node, kv);
    if (const auto block = p.blocks.corruptedBlock())
        p.attention->flipByte(*block);
}

void MeasuredCompute::checkReads(NodePool& p, const InstanceState& inst)
{
    const std::span<const BlockStamp> stamps = p.attention->stamps();
    // Without the sums (RealCpuOptions::sumSeals off), the stamps alone.
    const std::span<const std::uint32_t> sums = m_nodes.options().sumSeals
                                                    ? p.attention->checksums(p.blocks.blocksToCheck(inst.active))
                                                    : std::span<const std::uint32_t>();
    const real::BlockReadCheck check = p.blocks.checkReads(inst.active, stamps, sums);
    m_checkedReads += check.checked;
    m_borrowedReads += check.borrowed;
    m_summedSeals += check.summed;
    if (check.bad)
        throw real::BlockReadError(fmt::format("{}: decode step {} of {}: {}: attention read bytes that are not the "
                                               "sequence's, so the run stops here",
                                               m_nodes.name(), m_steps + 1, inst.id,
                                               real::describeBadRead(*check.bad)));
}

void MeasuredCompute::measureStaleReads(NodePool& p, const DecodeBatch& batch, float scale)
{
    const real::PagedKvShape& shape = p.attention->shape();
    const std::size_t headFloats = std::size_t{shape.queryHeads} * shape.headDim;
    std::vector<float> staleOut(headFloats);
    for (std::size_t s = 0; s < p.sequences.size() && s < batch.staleBlocks.size(); ++s) {
        if (batch.staleBlocks[s] == 0)
            continue;
        // Read stale, a block holds the bytes it had before its latest version reached it: here blocks no sequence
        // holds, the next the free list would hand out, whose bytes are a freed block's earlier contents.
        const real::PagedSequence& fresh = p.sequences[s];
        std::vector<std::uint32_t> staleTable(fresh.blocks.begin(), fresh.blocks.end());
        const std::size_t n = std::min<std::size_t>(batch.staleBlocks[s], staleTable.size());
        for (std::size_t b = 0; b < n; ++b)
            staleTable[b] = p.blocks.unheld(b);
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
    summary.attentionFit = m_attentionFit.totalFit();
    summary.attentionWarmFit = m_attentionWarmFit.totalFit();
    summary.attentionBySize = m_attentionBySize;
    summary.attentionByTraffic = m_attentionByTraffic;
    summary.attentionWarmBytes = m_warmBytes;
    summary.blockReadsChecked = m_checkedReads;
    summary.blockReadsBorrowed = m_borrowedReads;
    summary.blockSealsSummed = m_summedSeals;
    const PoolTotals pools = poolTotals();
    summary.kvRowsWritten = pools.rowsWritten;
    summary.kvRowsAppended = pools.rowsAppended;
    summary.kvRowsLanded = m_rowsLanded;
    if (pools.pools > 0) {
        summary.kvPools = pools.pools;
        summary.kvPoolsGrown = pools.grown;
        summary.kvPoolStartBytes = pools.startBytes;
        summary.kvPoolLargestStartBytes = pools.largestStart;
        summary.kvPoolLargestBytes = pools.largestBytes;
        summary.kvPoolLimitBytes = pools.limitBytes;
        summary.kvPoolNeededBytes = static_cast<std::uint64_t>(std::ceil(pools.bytesNeeded));
        summary.kvPoolBlocksLent = pools.shared;
        summary.kvPoolGrowthRefused = pools.refused;
    }
    if (m_steps == 0)
        return;
    // An element other than the model's (fp8 held as fp16, say) reads other bytes than the model would: say so.
    const std::string held = real::kvDtypeName(static_cast<double>(m_elementBytes));
    const std::string element =
        m_elementBytes == m_model.dtypeBytes
            ? held
            : fmt::format("{}, the model's {}-byte K/V held as {}", held, m_model.dtypeBytes, held);
    // Every layer run: its time is as measured, not scaled, though the layers' rows are still the first layer's.
    const bool allLayers = layersRun() >= m_model.layers;
    summary.scaledDown = fmt::format(
        "decode attention runs {} layers per step ({}, over each sequence's own blocks in its decode "
        "node's K/V pool, held from its first step to its last; a sequence writes its context's K/V rows when it takes "
        "its blocks, those its transfer landed in the node's memory taken from there and the rest computed from the "
        "sequence and token, and appends a row per step; every layer's rows are the first layer's), {}; the linear "
        "layers of a decode step and prefill keep the roofline's time",
        allLayers ? fmt::format("all of the model's {}", m_model.layers)
                  : fmt::format("{} of the model's {}", layersRun(), m_model.layers),
        element,
        allLayers ? std::string("its time as measured") : fmt::format("its time scaled to {}", m_model.layers));
}

} // namespace coh::core
