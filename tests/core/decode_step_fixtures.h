#pragma once
// A decode step built by hand, for the compute seam's tests (measured and calibrated alike).
#include "core/real/node_workers.h"
#include "core/real/sequence_blocks.h"
#include "core/serving/instance_state.h"
#include "core/serving/measured_compute.h"
#include "engine_fixtures.h"

#include <numeric>
#include <vector>

namespace coh::test {

// twoGpuScenario with a model whose attention is small: 8 query heads, 2 KV heads of 32 (fp32 K and V: 512 bytes a
// token), so a real step takes microseconds and predicted ones are easy sums.
inline Scenario smallAttentionScenario(std::uint32_t layers)
{
    Scenario s = twoGpuScenario();
    s.model.layers = layers;
    s.model.heads = 8;
    s.model.kvHeads = 2;
    s.model.headDim = 32;
    return s;
}

// An instance on `nodes` decoding `sequences` active sequences holding `contextTokens` cached tokens in all.
inline InstanceState decodeInstance(const CostModel& cost, const Scenario& s, std::vector<std::uint32_t> nodes,
                                    std::uint32_t sequences, std::uint64_t contextTokens = 0)
{
    InstanceState inst;
    inst.nodes = std::move(nodes);
    inst.hw = cost.hardware(s.topology, inst.nodes);
    inst.active.resize(sequences);
    std::iota(inst.active.begin(), inst.active.end(), 0u);
    inst.contextTokens = contextTokens;
    return inst;
}

// A step of a hand-made batch over a pool's block bookkeeping: each sequence holds the blocks its context needs.
inline std::vector<core::real::PagedSequence> holdStep(core::real::SequenceBlocks& blocks,
                                                       const std::vector<std::uint32_t>& batch,
                                                       const std::vector<std::uint32_t>& contexts)
{
    blocks.beginStep("d0", batch);
    std::vector<core::real::PagedSequence> sequences;
    for (std::size_t i = 0; i < batch.size(); ++i)
        sequences.push_back({blocks.hold(batch[i], contexts[i]), contexts[i]});
    return sequences;
}

// real-cpu's measured compute of smallAttentionScenario(layers) on worker threads with 1 MiB arenas, running
// `layersRun` of the layers per step, its decode pool growing to `poolMaxBytes` (unresolved by default: it stays at
// 1 MiB). Its scenario's model may be changed after: the compute reads it at each step.
struct SmallMeasuredCompute {
    explicit SmallMeasuredCompute(std::uint32_t layers, std::uint32_t layersRun = 1,
                                  std::size_t poolMaxBytes = core::real::RealCpuOptions::kPoolAsMemoryAllows)
        : s(smallAttentionScenario(layers))
        , workers(s.topology, options(layersRun, poolMaxBytes), 1)
        , cost(s.model, s.serving)
        , compute(cost, s.model, 16, workers)
    {
    }
    static core::real::RealCpuOptions
    options(std::uint32_t layersRun, std::size_t poolMaxBytes = core::real::RealCpuOptions::kPoolAsMemoryAllows)
    {
        core::real::RealCpuOptions o;
        o.arenaBytes = 1 << 20;
        o.layers = layersRun;
        o.poolMaxBytes = poolMaxBytes;
        return o;
    }
    Scenario s;
    core::real::NodeWorkers workers;
    const CostModel cost;
    core::MeasuredCompute compute;
};

} // namespace coh::test
