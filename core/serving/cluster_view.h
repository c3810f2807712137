#pragma once
// What a routing policy may see of the cluster: per instance its role, whether it is up, its load, its queued
// prompt tokens, its KV memory and which prompt prefix blocks it holds; per request the prefix blocks its prompt
// names. Read-only, so a policy can only choose, never change what it sees.
#include "core/engine/run_result.h"
#include "core/serving/instance_state.h"
#include "core/workload/request.h"

#include <cstdint>
#include <limits>
#include <span>
#include <vector>

namespace coh::core {

// A policy's answer when no instance of the role is up.
inline constexpr std::uint32_t kNoInstance = std::numeric_limits<std::uint32_t>::max();

class KvMemory;
class LocalPrefixCache;

class ClusterView {
  public:
    // `metrics` says where each request was prefilled; it may be filled after the view is made.
    ClusterView(const std::vector<InstanceState>& instances, const Workload& workload,
                const std::vector<RequestMetrics>& metrics);
    // The prefill instances' own prefix caches, when the run keeps them (serving.local_prefix_cache).
    void setLocalPrefixCache(const LocalPrefixCache* cache) { m_local = cache; }
    void setKvMemory(const KvMemory* kv) { m_kv = kv; }

    // Instance indexes by role, in the scenario's order.
    const std::vector<std::uint32_t>& prefillInstances() const { return m_prefill; }
    const std::vector<std::uint32_t>& decodeInstances() const { return m_decode; }

    bool isUp(std::uint32_t instance) const { return m_instances[instance].isUp(); }
    // Requests routed to the instance and not yet finished there (a decode instance's are the sequences it holds).
    std::uint32_t load(std::uint32_t instance) const { return m_instances[instance].assigned; }
    // Prompt tokens waiting in a prefill instance's queue or computing in its batch: what sets a new one's wait.
    std::uint64_t promptTokensQueued(std::uint32_t instance) const
    {
        return m_instances[instance].queuedTokens + m_instances[instance].batchTokens;
    }
    // A decode instance's KV memory in blocks, and what admitted sequences have not reserved.
    std::uint64_t kvBlocksTotal(std::uint32_t instance) const { return m_instances[instance].kvBlocksTotal; }
    std::uint64_t kvBlocksFree(std::uint32_t instance) const { return m_instances[instance].kvBlocksFree; }
    // The prompt's leading blocks by hash id, for traces that name them (Mooncake); empty otherwise.
    std::span<const std::uint32_t> prefixBlocks(std::uint32_t request) const;
    // How many of those, from the first, a decode instance holds the KV of: the blocks of the sequences it
    // admitted until they finish. A trace's block hash stands for the whole prefix up to it (Mooncake chains
    // them), so this is the longest prefix shared with one held sequence. Computed when asked, so runs whose
    // policy never asks pay nothing.
    std::uint32_t heldPrefixBlocks(std::uint32_t instance, std::uint32_t request) const;
    // serving.shared_prefix: whether prompts' prefix blocks are shared blocks, and how many of the request's a decode
    // instance holds readable now (read there without a transfer). Asked once the request's prefill is done.
    bool sharesPrefixBlocks() const;
    std::uint32_t sharedPrefixBlocksHeld(std::uint32_t instance, std::uint32_t request) const;
    std::uint32_t promptTokens(std::uint32_t request) const { return m_workload.requests[request].promptTokens; }
    // The prompt tokens a prefill of `request` on prefill `instance` would compute: all but those whose blocks
    // its local prefix cache holds (all of them when it keeps none).
    std::uint32_t promptTokensToCompute(std::uint32_t instance, std::uint32_t request) const;
    // The prefill instance `request` was routed to (valid once it was).
    std::uint32_t prefilledOn(std::uint32_t request) const { return m_metrics[request].prefillInstance; }
    // The decode instance on exactly the nodes of prefill `instance` (role "both"), or kNoInstance.
    std::uint32_t colocatedDecode(std::uint32_t instance) const { return m_colocated[instance]; }

  private:
    const std::vector<InstanceState>& m_instances;
    const Workload& m_workload;
    const std::vector<RequestMetrics>& m_metrics;
    const LocalPrefixCache* m_local = nullptr;
    const KvMemory* m_kv = nullptr;
    std::vector<std::uint32_t> m_prefill, m_decode;
    std::vector<std::uint32_t> m_colocated; // per instance
};

} // namespace coh::core
