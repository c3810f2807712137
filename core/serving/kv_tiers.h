#pragma once
// Where decode KV goes below HBM (serving.kv_tiers): for each listed tier, the node of that tier nearest (by route
// latency) to each decode instance, its capacity shared evenly by the decode instances that use it, and the tier's
// coherence domain (KvTierDomain) that runs every move. DecodeScheduler decides when a sequence leaves HBM and
// comes back; this class decides where it goes, what each move writes (write-back: every block whose tier copy is
// stale; write-through: blocks are written down as they fill, so an offload writes only the open tail) and keeps
// the per-tier figures of the run summary.
#include "core/engine/event_recorder.h"
#include "core/engine/node_block_states.h"
#include "core/engine/run_result.h"
#include "core/net/transport.h"
#include "core/scenario/scenario.h"
#include "core/serving/instance_state.h"
#include "core/serving/kv_tier_domain.h"
#include "core/sim/simulator.h"

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

namespace coh::core {

class KvTierListener {
  public:
    virtual ~KvTierListener() = default;
    // The request's offload has written what it had to: its HBM blocks are free to reuse.
    virtual void onOffloaded(std::uint32_t request) = 0;
    // The request's fetch has read its blocks back into HBM: it may decode again.
    virtual void onFetched(std::uint32_t request) = 0;
};

class KvTiers final : public KvTierMoveListener {
  public:
    // Message kinds are recorded from `firstKind` on (kinds() lists them in that order).
    KvTiers(const Scenario& scenario, const Simulator& sim, Transport& network, EventRecorder& recorder,
            std::span<const InstanceState> instances, std::uint8_t firstKind, KvTierListener& listener,
            std::size_t requests);
    ~KvTiers() override;

    // Blocks the decode instance may keep below HBM, summed over the tiers (its share of each tier node).
    std::uint64_t blocksBelow(std::uint32_t instance) const;

    // Write-through: the sequence's KV (`fullBlocks` full blocks of the `totalBlocks` it will have) is at the decode
    // instance; its copy is made.
    void onKvReady(std::uint32_t request, std::uint32_t instance, std::uint32_t fullBlocks, std::uint32_t totalBlocks);
    // Write-through: the sequence's block number `fullBlocks` - 1 has just filled.
    void onBlockFilled(std::uint32_t request, std::uint32_t instance, std::uint32_t fullBlocks);
    // Whether offload() would find room for the sequence's `blocks` blocks.
    bool canOffload(std::uint32_t request, std::uint32_t instance, std::uint32_t blocks) const
    {
        return m_copies[request].level >= 0 || levelWithRoom(instance, blocks) >= 0;
    }
    TierEviction eviction() const { return m_eviction; }
    // Takes the sequence's `blocks` blocks, holding its `tokens` tokens, off HBM into the first tier with room. False
    // when none has room (nothing moves); else onOffloaded follows, at once when nothing had to be written.
    bool offload(std::uint32_t request, std::uint32_t instance, std::uint32_t blocks, std::uint32_t tokens);
    // Reads the offloaded sequence back into HBM; onFetched follows.
    void fetch(std::uint32_t request, std::uint32_t instance);
    // The sequence finished: its tier copy goes.
    void release(std::uint32_t request);
    // Node failures: sequences are named as KvMemory names them (a new id when a request starts its KV over). A new
    // one, and one given up: its copy and its room go, and no move of it on its way calls the listener.
    void addSequence() { m_copies.emplace_back(); }
    void abandon(std::uint32_t sequence);

    void onMoveDone(std::uint32_t request, std::uint8_t job, std::uint32_t blocks) override;
    void checkFinished() const;

    std::vector<MessageKindStats> kinds() const;
    KvTiersSummary summary(SimTime end) const;
    // Blocks each tier node holds over the run, one series per (node, tier) with the tier's name as its state, on
    // the grid of the KV path's node series: the replay draws them beside the protocol states' counts.
    std::vector<NodeBlocksSeries> nodeBlocks(SimTime end) const { return m_nodeOccupancy.series(end); }
    void countPreemption() { ++m_preemptions; }
    void addOffHbm(SimTime t) { m_offHbm += t; }

  private:
    struct Level {
        Tier tier = Tier::Dram;
        std::string protocol;
        std::unique_ptr<KvTierDomain> domain;
        std::vector<std::uint32_t> nodeOf;  // per engine instance: its tier node (decode instances only)
        std::vector<std::uint64_t> shareOf; // per engine instance: blocks it may use here
        std::vector<std::uint64_t> usedOf;  // per engine instance: blocks reserved here
        std::vector<std::string> nodes;     // the distinct tier nodes' ids, in topology order
        std::uint64_t capacityBlocks = 0;
        std::uint64_t offloads = 0, fetches = 0, blocksDown = 0, blocksUp = 0;
    };
    struct Copy {
        std::int8_t level = -1;     // where the sequence's tier copy is (or is being made); -1: none
        std::uint32_t reserved = 0; // blocks of room it holds in that level
        std::uint32_t blocks = 0;   // blocks the copy holds (written and arrived)
        std::uint32_t clean = 0;    // leading full blocks whose copy is current
        std::uint32_t instance = 0;
        std::uint32_t offloadBlocks = 0;   // the sequence's blocks when it was last offloaded (what a fetch reads)
        std::uint32_t offloadTokens = 0;   // the tokens they held
        std::uint32_t highest = 0;         // blocks of the sequence a write has been issued for: what the copy can hold
        std::uint32_t throughInFlight = 0; // write-through moves not arrived yet: an offload waits for them too
        bool offloadWritten = false;       // the offload's own write has arrived
        bool offloading = false;
        bool throughWrite = false; // a write-through copy, kept for the sequence's whole life
        bool abandoned = false;    // a node failure took the sequence: its moves still on their way are ignored
    };

    int levelWithRoom(std::uint32_t instance, std::uint32_t blocks) const;
    // Writes the sequence's `blocks` blocks from `firstBlock` on down, of the `tokens` it holds.
    void down(std::uint32_t request, KvTierDomain::Job job, std::uint32_t firstBlock, std::uint32_t blocks,
              std::uint32_t tokens);
    // The tokens that blocks [firstBlock, + blocks) hold of a sequence's `tokens`.
    TierMoveRows rowsOf(std::uint32_t firstBlock, std::uint32_t blocks, std::uint32_t tokens) const;
    void setBlocks(Copy& copy, std::uint32_t blocks);
    void drop(Copy& copy);
    // The offload is complete once its write and every earlier write-through of the sequence have arrived.
    void finishOffloadIfWritten(std::uint32_t request);

    const Simulator& m_sim;
    std::span<const InstanceState> m_instances;
    KvTierListener& m_listener;
    std::uint32_t m_blockTokens;
    TierWrite m_write;
    TierEviction m_eviction;
    std::vector<Level> m_levels;
    std::vector<Copy> m_copies;      // per sequence
    NodeBlockStates m_occupancy;     // states: none, then one per level; one "node": the tier as a whole
    NodeBlockStates m_nodeOccupancy; // the same per topology node
    std::uint64_t m_preemptions = 0;
    SimTime m_offHbm = 0;
};

} // namespace coh::core
