#pragma once
// Decode admission and continuous batching. Per decode instance: FIFO admission against its KV memory (a
// sequence reserves its whole KV up front, so none is ever preempted), the KV read through KvMemory, and
// iterations that ready sequences join at their boundaries; finished sequences leave and free their blocks.
// With KV tiers (serving.kv_tiers, decode_offload.cpp) a sequence reserves its prompt's blocks and one more
// whenever its tail fills; when HBM has none left, victims go below HBM (KvTiers) and come back first.
#include "core/engine/kv_memory.h"
#include "core/engine/latency_histogram.h"
#include "core/engine/reservoir.h"
#include "core/engine/run_result.h"
#include "core/serving/compute_cost.h"
#include "core/serving/instance_state.h"
#include "core/serving/kv_tiers.h"
#include "core/sim/simulator.h"

#include <cstdint>
#include <span>
#include <vector>

namespace coh::core {

class DecodeScheduler {
  public:
    DecodeScheduler(Simulator& sim, ComputeCost& compute, std::span<InstanceState> instances,
                    std::span<RequestMetrics> metrics, std::span<RequestState> state, KvMemory& kv,
                    Reservoir<DecodeIterationRecord>& iterations, std::uint32_t blockTokens, KvTiers* tiers = nullptr);

    // A prefilled request routed to decode `instance` joins its admission queue (tryAdmit admits it).
    void enqueue(std::uint32_t request, std::uint32_t instance);
    // Admits from the head of the queue while the KV memory allows; a request that could never fit is rejected.
    void tryAdmit(std::uint32_t instance);
    static bool hasWork(const InstanceState& inst) { return !(inst.active.empty() && inst.ready.empty()); }
    // Starts an iteration with the ready sequences that fit; the instance holds its device. False when nothing
    // can run (with tiers: every sequence waits for HBM blocks that a fetch under way holds).
    bool start(std::uint32_t instance);
    // Called once the event queue is empty: throws when a sequence is still held (it could never continue).
    void checkFinished() const;
    // From KvMemory: the request's KV arrived (a DecodeKick follows), or its step may now run.
    void onKvReady(std::uint32_t request);
    void onStepReady(std::uint32_t request);
    // The iteration ended: a token for every sequence; finished ones leave, and admission is retried.
    void onIterationDone(std::uint32_t instance);
    // From KvTiers: the request's offload is written (its step may run), or its fetch is back in HBM.
    void onOffloaded(std::uint32_t request);
    void onFetched(std::uint32_t request);

    // The instance's node failed: every request it holds (admitted or waiting for admission); the instance is left
    // empty. The requests' KV sequences are the caller's to abandon.
    std::vector<std::uint32_t> takeAll(std::uint32_t instance);
    // The request's KV source failed before its KV arrived here: it leaves the admission queue, or gives back the
    // blocks it reserved for the read under way.
    void withdraw(std::uint32_t request);

    std::uint64_t finished() const { return m_finished; }
    std::uint64_t rejected() const { return m_rejected; }
    const LatencyHistogram& interTokenGaps() const { return m_interTokenGaps; }

  private:
    std::uint32_t blocksFor(std::uint32_t request) const;
    // Tokens whose KV the sequence has: its prompt and what it generated.
    std::uint32_t kvTokens(std::uint32_t request) const
    {
        return m_metrics[request].promptTokens + m_state[request].generated;
    }
    // Gives back what an admitted sequence holds at its instance (blocks, its place in `held`).
    void unhold(std::uint32_t request, InstanceState& inst);
    std::uint32_t blocksAt(std::uint64_t tokens) const
    {
        return static_cast<std::uint32_t>((tokens + m_blockTokens - 1) / m_blockTokens);
    }
    // decode_offload.cpp: blocks the sequence's next token needs beyond those it holds.
    std::uint32_t growth(std::uint32_t request) const;
    // Gives each active sequence the block its next token needs, offloading victims when HBM has none.
    void makeRoom(InstanceState& inst, std::uint32_t instance);
    // The sequence the eviction policy takes off HBM next (active or ready, in HBM, with room below); -1: none.
    // `needed`: the blocks the active sequences' next tokens need in all.
    std::int64_t pickVictim(const InstanceState& inst, std::uint32_t instance, std::uint64_t needed) const;
    void offload(InstanceState& inst, std::uint32_t instance, std::uint32_t request);
    // Reads offloaded sequences back, in the order they left, while HBM has room for them; true when it started one.
    bool fetchOffloaded(std::uint32_t instance);
    void joinBatch(InstanceState& inst, std::uint32_t request); // a ready sequence joins the running batch
    void runCompute(InstanceState& inst, std::uint32_t index);
    void finish(std::uint32_t request, InstanceState& inst);

    Simulator& m_sim;
    ComputeCost& m_compute;
    // The run's instances and requests: fixed in number for the whole run, so views of them stay valid.
    std::span<InstanceState> m_instances;
    std::span<RequestMetrics> m_metrics;
    std::span<RequestState> m_state;
    KvMemory& m_kv;
    Reservoir<DecodeIterationRecord>& m_iterations; // the iterations' record: each one as it ends
    std::uint32_t m_blockTokens;
    KvTiers* m_tiers; // null: no tiers, every sequence reserves its whole KV at admission
    std::uint32_t m_admissions = 0;
    LatencyHistogram m_interTokenGaps;
    std::uint64_t m_finished = 0;
    std::uint64_t m_rejected = 0;
    std::vector<std::uint32_t> m_contexts;    // scratch: the step's contexts, when the compute wants them
    std::vector<std::uint32_t> m_staleBlocks; // scratch: how many blocks of each the step read stale
    std::vector<std::uint32_t> m_kvSequences; // scratch: each one's KV sequence
};

} // namespace coh::core
