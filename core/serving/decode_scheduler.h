#pragma once
// Decode admission and continuous batching. Per decode instance: FIFO admission against its KV memory (a
// sequence reserves its whole KV up front, so none is ever preempted), the KV read through KvMemory, and
// iterations that ready sequences join at their boundaries; finished sequences leave and free their blocks.
#include "core/engine/kv_memory.h"
#include "core/engine/latency_histogram.h"
#include "core/engine/run_result.h"
#include "core/serving/cost_model.h"
#include "core/serving/instance_state.h"
#include "core/sim/simulator.h"

#include <cstdint>
#include <span>
#include <vector>

namespace coh::core {

class DecodeScheduler {
  public:
    DecodeScheduler(Simulator& sim, const CostModel& cost, std::span<InstanceState> instances,
                    std::span<RequestMetrics> metrics, std::span<RequestState> state, KvMemory& kv,
                    std::uint32_t blockTokens);

    // A prefilled request routed to decode `instance` joins its admission queue (tryAdmit admits it).
    void enqueue(std::uint32_t request, std::uint32_t instance);
    // Admits from the head of the queue while the KV memory allows; a request that could never fit is rejected.
    void tryAdmit(std::uint32_t instance);
    static bool hasWork(const InstanceState& inst) { return !(inst.active.empty() && inst.ready.empty()); }
    // Starts an iteration with the ready sequences that fit; the instance holds its device.
    void start(std::uint32_t instance);
    // From KvMemory: the request's KV arrived (a DecodeKick follows), or its step may now run.
    void onKvReady(std::uint32_t request);
    void onStepReady(std::uint32_t request);
    // The iteration ended: a token for every sequence; finished ones leave, and admission is retried.
    void onIterationDone(std::uint32_t instance);

    std::uint64_t finished() const { return m_finished; }
    std::uint64_t rejected() const { return m_rejected; }
    const LatencyHistogram& interTokenGaps() const { return m_interTokenGaps; }

  private:
    std::uint32_t blocksFor(std::uint32_t request) const;
    void runCompute(InstanceState& inst, std::uint32_t index);
    void finish(std::uint32_t request, InstanceState& inst);

    Simulator& m_sim;
    const CostModel& m_cost;
    // The run's instances and requests: fixed in number for the whole run, so views of them stay valid.
    std::span<InstanceState> m_instances;
    std::span<RequestMetrics> m_metrics;
    std::span<RequestState> m_state;
    KvMemory& m_kv;
    std::uint32_t m_blockTokens;
    LatencyHistogram m_interTokenGaps;
    std::uint64_t m_finished = 0;
    std::uint64_t m_rejected = 0;
};

} // namespace coh::core
