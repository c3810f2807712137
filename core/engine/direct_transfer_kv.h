#pragma once
// The simplest KvMemory: prefill writes KV into its own HBM; a decode instance's first read copies every
// block over the network (one message per tensor-parallel shard pair), after which all reads and appends
// are local. No copy is ever shared, so nothing needs coherence messages.
#include "core/engine/event_recorder.h"
#include "core/engine/kv_memory.h"
#include "core/net/transport.h"

#include <cstdint>
#include <vector>

namespace coh::core {

class DirectTransferKv final : public KvMemory, public FlowEndpoint {
  public:
    // instanceNodes[i] are the nodes of instance i (a TP group shards every block across them).
    DirectTransferKv(Transport& network, EventRecorder& recorder, std::vector<std::vector<std::uint32_t>> instanceNodes,
                     std::uint64_t kvBytesPerToken, std::uint32_t blockTokens, std::size_t requests);

    void prefillWrite(std::uint32_t request, std::uint32_t instance, std::uint32_t tokens) override;
    void acquireForDecode(std::uint32_t request, std::uint32_t instance, std::uint32_t tokens) override;
    // After the copy every block is local to the decode instance: steps never wait.
    bool beginDecodeStep(std::uint32_t, std::uint32_t, std::uint32_t) override { return true; }
    void release(std::uint32_t request) override;
    std::uint32_t addSequence() override;
    void abandon(std::uint32_t sequence) override { m_pending[sequence] = 0; }
    // No copy outlives its move (survivingCopy finds none), so there is nothing to restore from.
    void restoreAt(std::uint32_t, std::uint32_t, std::uint32_t) override;

    void onFlowDelivered(const FlowInfo& flow) override;
    // A shard message carries the request's prompt K/V: every token, the shard's KV heads.
    std::optional<KvPayload> payloadOf(std::uint64_t tag) const override;

    KvStats stats() const override;

  private:
    Transport& m_network;
    EventRecorder& m_recorder;
    std::vector<std::vector<std::uint32_t>> m_instanceNodes;
    std::uint64_t m_kvBytesPerToken;
    std::uint32_t m_blockTokens;
    std::vector<std::uint32_t> m_writer;            // per request: prefill instance holding the blocks
    std::vector<std::uint16_t> m_pending;           // per request: shard messages still in flight (0 once abandoned)
    std::uint32_t m_sendingShard = 0, m_shards = 1; // the shard message send() is starting (payloadOf)
    std::uint64_t m_transfers = 0;
    std::uint64_t m_messages = 0;
    double m_bytes = 0;
};

} // namespace coh::core
