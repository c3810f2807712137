#pragma once
// Prefill scheduling: each prefill instance's FCFS queue, the batches it forms, the prompt blocks a batch loads
// from the prefix pool or holds in its own prefix cache instead of computing (and, after a failure, the prefix a
// surviving copy holds), and the batch's compute (PrefillDone follows). The engine routes requests in and hands a
// finished batch's requests on to decode.
#include "core/engine/kv_memory.h"
#include "core/engine/run_result.h"
#include "core/serving/compute_cost.h"
#include "core/serving/instance_state.h"
#include "core/serving/local_prefix_cache.h"
#include "core/serving/prefix_cache.h"
#include "core/serving/resume_loads.h"
#include "core/sim/simulator.h"

#include <cstdint>
#include <span>
#include <vector>

namespace coh::core {

class PrefillScheduler {
  public:
    // `prefix` is the shared prefix pool, `local` the prefill instances' own prefix caches; each null when the
    // scenario has none (it never has both). `resume` loads the surviving prefixes of requests a failure took (null
    // without failures).
    PrefillScheduler(Simulator& sim, ComputeCost& compute, std::span<InstanceState> instances,
                     std::span<RequestMetrics> metrics, std::span<RequestState> state, KvMemory& kv,
                     PrefixCache* prefix, LocalPrefixCache* local, ResumeLoads* resume);

    void enqueue(std::uint32_t request, std::uint32_t instance);
    static bool hasWork(const InstanceState& inst) { return !inst.queue.empty(); }
    // Forms the next batch from the queue's head and starts it; the instance holds its device.
    void start(std::uint32_t instance);
    void onPrefixLoaded(std::uint32_t instance);
    // A request of the batch that just finished: its prompt's KV is written (and the pool's missing blocks stored).
    void complete(std::uint32_t request, std::uint32_t instance);
    // After every request of the batch was completed and handed on.
    void endBatch(std::uint32_t instance);
    // The instance's node failed: every request queued or in its batch, in that order; the instance is left empty
    // (its local prefix cache too: the HBM holding it is gone).
    std::vector<std::uint32_t> takeAll(std::uint32_t instance);

  private:
    // The tokens a prefill of the request computes or loads: its prompt, and after a failure that took its KV (recovery
    // "recompute") the tokens it had generated too.
    std::uint32_t tokensOf(std::uint32_t request) const
    {
        return m_metrics[request].promptTokens + m_state[request].generated;
    }

    Simulator& m_sim;
    ComputeCost& m_compute;
    // The run's instances and requests: fixed in number for the whole run, so views of them stay valid.
    std::span<InstanceState> m_instances;
    std::span<RequestMetrics> m_metrics;
    std::span<RequestState> m_state;
    KvMemory& m_kv;
    PrefixCache* m_prefix;
    LocalPrefixCache* m_local;
    ResumeLoads* m_resume;
};

} // namespace coh::core
