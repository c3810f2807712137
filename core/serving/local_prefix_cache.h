#pragma once
// Each prefill instance's own prefix cache (serving.local_prefix_cache, and what router cache_aware routes by):
// the trace's prefix blocks (hash ids) it computed, kept in its HBM, least recently used out first. A prompt
// whose leading blocks the instance holds computes only the rest, with no transfer: the blocks are already there.
// The LRU is the prefix pool's (PrefixPool), one per prefill instance.
#include "core/engine/run_result.h"
#include "core/scenario/scenario.h"
#include "core/serving/instance_state.h"
#include "core/serving/prefix_pool.h"
#include "core/workload/request.h"

#include <cstdint>
#include <span>
#include <vector>

namespace coh::core {

class LocalPrefixCache {
  public:
    // One cache per prefill instance, of serving.local_prefix_cache's capacity or, without one, the instance's
    // HBM x kv_memory_fraction less the weights; decode instances keep none.
    LocalPrefixCache(const Scenario& scenario, const Workload& workload, std::span<const InstanceState> instances);

    // The prompt tokens of `request` a prefill on `instance` would not compute: its leading blocks held there, at
    // most all but the prompt's last token (computed for its logits). Changes nothing (routing asks this).
    std::uint32_t heldTokens(std::uint32_t instance, std::uint32_t request) const;
    // A prefill of `request` starts on `instance`: the held tokens, whose blocks become the most recently used.
    std::uint32_t hit(std::uint32_t request, std::uint32_t instance);
    // The prefill of `request` on `instance` is done: its blocks are held there now (the oldest make room).
    void store(std::uint32_t request, std::uint32_t instance);

    // The instance's node failed: what its HBM held is gone.
    void clear(std::uint32_t instance) { m_caches[instance].clear(); }

    LocalPrefixSummary summary() const;

  private:
    std::span<const std::uint32_t> hashesOf(std::uint32_t request) const;
    std::uint32_t tokensOf(std::uint32_t blocks, std::uint32_t request) const;

    const Workload& m_workload;
    std::uint32_t m_blockTokens;
    std::vector<PrefixPool> m_caches; // per instance index; capacity 0 for decode instances
    LocalPrefixSummary m_summary;
};

} // namespace coh::core
