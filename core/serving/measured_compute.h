#pragma once
// A real backend's compute (docs/real-backend.md#decode-steps): each decode step runs the paged attention for real
// on the instance's first node (real-cpu: the CPU kernel on its worker; real-cuda: the CUDA kernel on its GPU), over
// each sequence's own blocks in the node's pool (the same blocks at every step, real/sequence_blocks.h), and takes its
// measured time, scaled from the layers it ran to the model's. What it cannot run here (prefill, and the
// linear layers of a decode step) keeps the roofline's time, and the run says so (BackendSummary::scaledDown).
#include "core/net/cost_fit.h"
#include "core/net/traffic_since_step.h"
#include "core/real/node_resources.h"
#include "core/real/paged_attention.h"
#include "core/real/sequence_blocks.h"
#include "core/serving/compute_cost.h"

#include <memory>
#include <span>
#include <string>
#include <vector>

namespace coh::core {

// The attention shape a decode step runs with on an instance of `tensorParallel` nodes: its share of the heads
// (tensor parallelism splits them; the nodes attend side by side).
real::PagedKvShape decodeAttentionShape(const ModelSpec& model, std::uint32_t blockTokens, std::size_t tensorParallel);

class MeasuredCompute final : public ComputeCost {
  public:
    MeasuredCompute(const CostModel& cost, const ModelSpec& model, std::uint32_t blockTokens,
                    real::NodeResources& nodes);
    ~MeasuredCompute() override;

    SimTime prefill(std::uint64_t tokens, double sumSquaredLengths, const InstanceHardware& hw) override
    {
        return m_cost.prefill(tokens, sumSquaredLengths, hw);
    }
    SimTime decode(const InstanceState& inst, const DecodeBatch& batch) override;
    bool wantsContexts() const override { return true; }
    void watchTraffic(const Transport& transport) override { m_traffic.watch(transport); }
    void describe(BackendSummary& summary) const override;

    // Fault injection: the next decode step's block bookkeeping goes wrong this way (real::ReadFault); the stamp
    // checks must stop the run naming the sequence and block. Waits for a step it can be played on.
    void injectIntoNextStep(real::ReadFault fault) { injectIntoStep(fault, m_steps + 1); }
    // The same on decode step `step` (the run's first is 1), or the first after it that it can be played on.
    void injectIntoStep(real::ReadFault fault, std::uint64_t step)
    {
        m_nextFault = fault;
        m_faultStep = step;
    }

    // The last step's measured attention, for the layers it ran (before scaling).
    std::int64_t lastAttentionNs() const { return m_lastNs; }
    real::PagedKvShape shapeFor(std::size_t tensorParallel) const
    {
        return decodeAttentionShape(m_model, m_blockTokens, tensorParallel);
    }

  private:
    // A node's pool (the resource's), the order its blocks are handed out in, and its scratch for a step.
    struct NodePool;
    NodePool& pool(std::uint32_t node, const real::PagedKvShape& shape);
    // Off the step's clock: each sequence that read stale blocks, attended over their older bytes and compared with
    // the step's own output.
    void measureStaleReads(NodePool& p, const DecodeBatch& batch, float scale);
    std::uint32_t layersRun() const;
    // Lands the step's writes in the pool (and the step's injected fault, if any), before its attention: the rows
    // their sequences' transfers landed in the node's memory (real::LandedKvRows) as they landed, the rest computed.
    void landWrites(NodePool& p, std::uint32_t node, const InstanceState& inst, const DecodeBatch& batch);
    // The most landed bytes one write() of the pool is handed: a step's landings go in pieces this large.
    static constexpr std::size_t kLandedBytesPerWrite = std::size_t{32} << 20;
    // Before the step's sequences take their blocks: when they need more than the free list holds, the pool grows (at
    // least doubling, off the step's clock) up to RealCpuOptions::poolMaxBytes, so that none borrows a block. A pool
    // whose memory refuses to grow (std::bad_alloc, GpuOutOfMemory) stays as it is from then on and lends blocks, as
    // a full one does; the summary says why.
    void growIfShort(NodePool& p, std::span<const std::uint32_t> batch, std::span<const std::uint32_t> contexts);
    // After the step's attention, checks every read against its block's stamp and seal: a failure stops the run. After,
    // so that the step is not timed over blocks its own sums just brought into the caches (the next steps still are:
    // RealCpuOptions::sumSeals).
    void checkReads(NodePool& p, const InstanceState& inst);

    const CostModel& m_cost;
    const ModelSpec& m_model;
    std::uint32_t m_blockTokens;
    real::NodeResources& m_nodes;
    std::vector<std::unique_ptr<NodePool>> m_pools; // per node
    std::uint64_t m_steps = 0;
    double m_attentionNs = 0;    // measured, summed over steps, for the layers run
    double m_attentionBytes = 0; // K and V bytes those layers read
    CostFitSums m_attentionFit;  // one layer's time against its K and V bytes, per step (BackendSummary::attentionFit)
    // The same over the steps whose layer read at most their pool's warmBytes (BackendSummary::attentionWarmFit), and
    // the largest such limit.
    CostFitSums m_attentionWarmFit;
    std::vector<StepSizeBucket> m_attentionBySize; // every step, by its layer's bytes (BackendSummary::attentionBySize)
    // Steps out of the core's cache by the bytes sent since their node's step before (BackendSummary::
    // attentionByTraffic).
    TrafficSinceStep m_traffic;
    std::vector<TrafficBucket> m_attentionByTraffic;
    std::size_t m_warmBytes = 0;
    std::int64_t m_lastNs = 0;
    // What a pool's block bookkeeping counted over its life, for the summary: summed over pools, the largest need.
    struct PoolTotals {
        std::uint64_t shared = 0; // SequenceBlocks::sharedBlocks
        std::uint64_t rowsWritten = 0, rowsAppended = 0;
        double bytesNeeded = 0; // what would have held every block alone (SequenceBlocks::peakHeldBlocks)
        std::size_t pools = 0;
        std::size_t startBytes = 0, largestBytes = 0; // the smallest pool as made, the largest as grown
        std::size_t largestStart = 0;                 // the largest pool as made
        std::uint64_t grown = 0;                      // pools that grew
        std::size_t limitBytes = 0; // the most a pool could grow to, in whole blocks; 0: none could grow
        std::string refused;        // why a pool could not grow, the first; empty: none did
        void add(const NodePool& p, std::size_t poolMax); // poolMax: RealCpuOptions::poolMaxBytes
    };
    // The pools made again since (their totals) and the live ones.
    PoolTotals poolTotals() const;
    PoolTotals m_replaced;
    std::size_t m_elementBytes = 4; // of its K and V
    std::vector<StaleReadError> m_staleReads;
    std::uint64_t m_checkedReads = 0, m_borrowedReads = 0, m_summedSeals = 0;
    std::uint64_t m_rowsLanded = 0; // rows the pools took as a transfer landed them
    real::ReadFault m_nextFault = real::ReadFault::None;
    std::uint64_t m_faultStep = 0;
};

} // namespace coh::core
