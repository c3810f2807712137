#pragma once
// Prefix reuse through the shared pool (serving.prefix_pool): when a prefill batch starts, the leading prompt
// blocks the pool holds are loaded from the pool's node instead of computed; after prefill, the blocks the
// pool lacks are stored there, and only count as cached once that store has arrived. Blocks move as plain
// copies, or under the pool tier's protocol (coherence.tiers) through PoolCoherence. The pool's flows share
// the network with the KV path; this class is the endpoint of its plain copies' flows (PoolCoherence of its
// protocol's).
#include "core/engine/event_recorder.h"
#include "core/engine/run_result.h"
#include "core/net/transport.h"
#include "core/scenario/scenario.h"
#include "core/serving/pool_coherence.h"
#include "core/serving/prefix_pool.h"
#include "core/workload/request.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace coh::core {

// The protocol of the prefix pool's blocks: the pool tier's own (coherence.tiers), else prefill's; "direct" for
// plain copies. MessageProtocol::PrefixPool records name this table.
std::string prefixPoolProtocol(const Scenario& scenario);

class PrefixLoadListener {
  public:
    virtual ~PrefixLoadListener() = default;
    // A load started by PrefixCache::startLoad() for this prefill instance has arrived.
    virtual void onPrefixLoaded(std::uint32_t instance) = 0;
};

class PrefixCache final : public FlowEndpoint, public PoolCoherenceListener {
  public:
    // `firstKind` is where the pool's message kinds
    // (Prefix-Load, Prefix-Store, then the tier protocol's) go in the run's messages by kind. `prefillNodes`
    // maps each engine instance index to its node for the prefill instances (the tier protocol's caches).
    PrefixCache(const Scenario& scenario, const Workload& workload, Transport& network, EventRecorder& recorder,
                PrefixLoadListener& listener, std::uint8_t firstKind,
                const std::vector<std::pair<std::uint32_t, std::uint32_t>>& prefillNodes);

    // The prompt tokens of `request` the pool serves (at most all but one: the last token is computed for its
    // logits). When there are any, their load to `node` has started and onPrefixLoaded(instance) follows.
    std::uint32_t startLoad(std::uint32_t request, std::uint32_t instance, std::uint32_t node);
    // Prefill `instance` has computed the request's KV at `node`: store the blocks the pool lacks.
    void store(std::uint32_t request, std::uint32_t instance, std::uint32_t node);

    void onFlowDelivered(const FlowInfo& flow) override;
    void onBlockLoaded(std::uint32_t request) override;
    void onBlockStored(std::uint32_t request, std::uint32_t hash) override;
    void checkFinished() const;

    PrefixPoolSummary summary() const;
    std::vector<MessageKindStats> kinds() const;

  private:
    std::span<const std::uint32_t> hashesOf(std::uint32_t request) const;

    const Workload& m_workload;
    Transport& m_network;
    EventRecorder& m_recorder;
    PrefixLoadListener& m_listener;
    std::uint8_t m_firstKind;
    std::uint32_t m_poolNode = 0;
    std::uint32_t m_blockTokens;
    double m_bytesPerToken;
    PrefixPool m_pool;
    std::vector<std::uint32_t> m_hitBlocks; // per request: leading blocks loaded from the pool
    // Under a tier protocol: the cache of each prefill instance, and per request the blocks still loading and
    // the instance they load to.
    std::unique_ptr<PoolCoherence> m_coherence;
    std::vector<std::int16_t> m_cacheOf;
    std::vector<std::uint32_t> m_blocksLoading;
    std::vector<std::uint32_t> m_loadInstance;
    std::vector<MessageKindStats> m_kinds;
    PrefixPoolSummary m_summary;
};

} // namespace coh::core
