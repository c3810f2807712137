#pragma once
// The foundation's event-loop benchmark (PHOLD, core/sim/phold.h) with the protocol layer in the loop: every
// logical process owns one block under a coherence protocol, and every event, besides sending its PHOLD
// successor, takes one protocol step on that block (deliver the oldest message the block may take, else
// issue a load, store or eviction at a drawn cache) and checks the invariants after it, as the serving engine
// does per protocol event. PHOLD's own draws are untouched (the protocol's choices come from a second
// generator), so the events, their times and the digest are exactly plain PHOLD's: the difference in
// events/s is what the protocol layer costs per event.
//
// The blocks are a BlockSet: the automaton (each distinct step interpreted and checked once, then looked up)
// by default, the interpreter on request or once the automaton outgrows its state budget. Both take exactly
// the same steps; the tests hold them to it.
#include "core/coherence/block_set.h"
#include "core/sim/phold.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace coh::core::coherence {

struct ProtocolPholdStats {
    std::uint64_t delivered = 0;       // messages delivered
    std::uint64_t issued = 0;          // processor ops that fired a transition
    std::uint64_t stalled = 0;         // events whose step the table stalled (nothing changed)
    std::uint64_t sent = 0;            // messages the steps sent
    std::uint32_t deadlocked = 0;      // blocks left where nothing can move but something waits (counted after the run)
    std::uint64_t automatonStates = 0; // the automaton's distinct block states (0 with the interpreter)
    std::uint64_t automatonTransitions = 0; // and the transitions it interpreted and checked once each
    bool automatonAbandoned = false;        // it outgrew its state budget and the interpreter took over
};

class ProtocolPhold {
  public:
    // `caches` per block, 1..kMaxCaches.
    ProtocolPhold(Simulator& sim, const PholdConfig& config, const Protocol& protocol, int caches,
                  ProtocolExecutor executor = ProtocolExecutor::Automaton,
                  std::size_t automatonStateBudget = kDefaultAutomatonStates);

    void start() { m_phold.start(); }
    SimTime end() const { return m_phold.end(); }
    const Phold& phold() const { return m_phold; }
    ProtocolPholdStats stats() const;
    // LP `lp`'s block as the interpreter holds it.
    BlockSystem block(std::uint32_t lp) const { return m_blocks.block(lp); }

    void operator()(const Event& ev)
    {
        step(ev.target);
        m_phold(ev);
    }

  private:
    // Throws std::runtime_error naming the LP and the violation when a step breaks an invariant.
    void step(std::uint32_t lp);
    // The op an LP issues when it has nothing to deliver: a drawn cache, loads twice as often as stores and
    // evictions.
    struct Op {
        int cache;
        ProcessorOp op;
    };
    Op drawOp(std::uint32_t lp);

    Phold m_phold;
    BlockSet m_blocks;                    // one per LP
    std::vector<std::uint64_t> m_choices; // per LP: splitmix64 state for the op choices
    int m_caches;
    ProtocolPholdStats m_stats;
};

struct ProtocolPholdResult {
    PholdResult loop; // committed events, digest and event-loop seconds, as runPhold reports them
    ProtocolPholdStats stats;
};

// Builds a fresh simulator and model, then times Simulator::run alone, like runPhold().
ProtocolPholdResult runProtocolPhold(const PholdConfig& config, const Protocol& protocol, int caches,
                                     ProtocolExecutor executor = ProtocolExecutor::Automaton,
                                     std::size_t automatonStateBudget = kDefaultAutomatonStates);

} // namespace coh::core::coherence
