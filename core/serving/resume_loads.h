#pragma once
// Recompute from the last valid prefix (recovery "recompute", and "replica" when no copy holds the whole prompt): a
// request whose KV a node failure took is prefilled again, but the prefix a surviving copy still holds is loaded
// from that copy's node instead of computed. This class sends those loads over the network (one flow per request,
// kind "Resume-Load") and tells the prefill instance when each has arrived; a load for an instance that has failed
// since it started (a new generation) is dropped on arrival.
#include "core/engine/event_recorder.h"
#include "core/engine/run_result.h"
#include "core/net/transport.h"
#include "core/serving/instance_state.h"
#include "core/serving/prefix_cache.h"

#include <cstdint>
#include <span>

namespace coh::core {

class ResumeLoads final : public FlowEndpoint {
  public:
    // `kind` is where "Resume-Load" goes in the run's messages by kind (after the KV path's, the pool's and the
    // tiers').
    ResumeLoads(Transport& network, EventRecorder& recorder, std::span<const InstanceState> instances,
                PrefixLoadListener& listener, double bytesPerToken, std::uint32_t blockTokens, std::uint8_t kind);

    // Loads the first `tokens` tokens of the request's KV from `node` to prefill `instance`; onPrefixLoaded(instance)
    // follows (through the queue, even from the instance's own node).
    void start(std::uint32_t request, std::uint32_t node, std::uint32_t instance, std::uint32_t tokens);
    void onFlowDelivered(const FlowInfo& flow) override;
    const MessageKindStats& kind() const { return m_kind; }

  private:
    Transport& m_network;
    EventRecorder& m_recorder;
    std::span<const InstanceState> m_instances;
    PrefixLoadListener& m_listener;
    double m_bytesPerToken;
    std::uint32_t m_blockTokens;
    std::uint8_t m_kindIndex;
    MessageKindStats m_kind;
};

} // namespace coh::core
