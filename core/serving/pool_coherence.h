#pragma once
// The prefix pool's blocks under a tier protocol (coherence.tiers): a BlockSet with one block per pool block,
// its caches the prefill instances, its directory and memory at the pool's node. A load is a Load op and then an Evict
// (the instance drops its replica once its prefill has the KV), a store a Store op and then an Evict (the block
// goes home to the pool). Every message the table sends is a flow between the nodes; the invariants are
// checked after every step and a violation fails the run.
#include "core/coherence/block_set.h"
#include "core/engine/event_recorder.h"
#include "core/engine/message_arrivals.h"
#include "core/engine/message_kinds.h"
#include "core/engine/run_result.h"
#include "core/net/flow_network.h"

#include <array>
#include <cstdint>
#include <deque>
#include <unordered_map>
#include <vector>

namespace coh::core {

class PoolCoherenceListener {
  public:
    virtual ~PoolCoherenceListener() = default;
    virtual void onBlockLoaded(std::uint32_t request) = 0;
    virtual void onBlockStored(std::uint32_t request, std::uint32_t hash) = 0;
};

class PoolCoherence final : public FlowEndpoint {
  public:
    // `cacheNodes[c]` is the node of cache c (a prefill instance); message kinds are recorded from `firstKind`.
    PoolCoherence(const coherence::Protocol& protocol, FlowNetwork& network, EventRecorder& recorder,
                  std::vector<std::uint32_t> cacheNodes, std::uint32_t poolNode, double blockBytes, double controlBytes,
                  std::uint8_t firstKind, PoolCoherenceListener& listener);

    void load(std::uint32_t hash, std::uint8_t cache, std::uint32_t request);
    // Blocks are named by their content's hash, so a block already stored (or being stored by another
    // instance) is not written again: the later store completes when the first one has.
    void store(std::uint32_t hash, std::uint8_t cache, std::uint32_t request);
    // The pool evicted the block: its protocol state starts over (at once, or once its last job is done).
    void drop(std::uint32_t hash);

    void onFlowDelivered(const FlowInfo& flow) override;
    // Throws when a load or store still waits on the protocol once the event queue is empty (a deadlock).
    void checkFinished() const;

    const std::vector<MessageKindStats>& kinds() const { return m_kinds.kinds(); }

  private:
    enum class Job : std::uint8_t { Load, Store };
    struct Pending {
        Job job = Job::Load;
        std::uint32_t request = 0;
    };
    struct Block { // the protocol state is m_protocolBlocks' block of the same index
        std::uint32_t hash = 0;
        MessageArrivals arrivals;
        // Per cache: jobs in order (the front is running), and whether the running one is at its Evict.
        std::vector<std::deque<Pending>> jobs; // one queue per cache
        std::array<bool, coherence::kMaxCaches> evicting{};
        std::array<bool, coherence::kMaxCaches> issued{};
        bool storing = false;      // a cache's store of this block is under way
        bool stored = false;       // the block is home (since the last drop)
        bool dropWhenIdle = false; // drop() came while jobs were running
    };

    std::uint32_t slotOf(std::uint32_t hash);
    void enqueue(std::uint32_t hash, std::uint8_t cache, Pending job);
    void pump(std::uint32_t slot);
    bool tryIssue(std::uint32_t slot, std::uint8_t cache);
    void afterStep(std::uint32_t slot, const coherence::CheckedStep& step);
    void finishJob(std::uint32_t slot, std::uint8_t cache);
    bool idle(std::uint32_t slot) const;
    void reset(std::uint32_t slot);
    [[noreturn]] void fail(std::uint32_t slot, const std::string& what) const;

    const coherence::Protocol& m_protocol;
    FlowNetwork& m_network;
    EventRecorder& m_recorder;
    std::vector<std::uint32_t> m_cacheNodes;
    std::uint32_t m_poolNode;
    double m_blockBytes;
    double m_controlBytes;
    std::uint8_t m_firstKind;
    PoolCoherenceListener& m_listener;
    std::deque<Block> m_blocks; // a deque: blocks never move, and a job queue is costly to move
    coherence::BlockSet m_protocolBlocks;
    std::unordered_map<std::uint32_t, std::uint32_t> m_slots; // hash -> index into m_blocks
    ProtocolKinds m_kinds;
};

} // namespace coh::core
