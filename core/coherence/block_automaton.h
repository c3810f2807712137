#pragma once
// A protocol at a fixed cache count, compiled lazily into an automaton over exact block states. The interpreter
// (BlockSystem) walks a table row per step; this asks it once per distinct (state, move) and remembers the
// answer, so every later step from that state with that move is one table lookup.
//
// States are exact, not abstracted: every field of a BlockSystem with its values made relative to the latest
// write (modulo the protocol's version space). Steps are invariant under shifting every value by a constant
// (stores write latest + 1, loads compare with latest, bounded staleness counts distances), so a state and a
// move always produce the same successor, the same step result and the same invariant verdict. The check
// (checkAfterStep) therefore runs when a transition is first taken; only transitions that passed it are kept,
// and a step that breaks an invariant is reported every time it is taken.
//
// Values a controller never reads are cleared: a line's value without valid data, a message's without data.
#include "core/coherence/block_system.h"
#include "core/coherence/invariants.h"
#include "core/coherence/state_store.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace coh::core::coherence {

// One block's place in the automaton: its state and the value its relative values count from.
struct AutomatonBlock {
    std::uint32_t state = 0;
    Value base = 0; // the block's latest written value
};

// A step and the invariant verdict after it.
struct CheckedStep {
    StepResult result;                     // as BlockSystem would return it (value absolute)
    Violation violation = Violation::None; // when not None the automaton's block did not move
};

class BlockAutomaton {
  public:
    // Stores write nextVersion(), as the serving engine's stores do. `maxStates` bounds memory (each state costs
    // its BlockSystem and a row of transitions); going beyond it throws std::length_error naming the protocol.
    BlockAutomaton(const Protocol& protocol, int caches, std::size_t maxStates = std::size_t{1} << 20);

    const Protocol& protocol() const { return *m_protocol; }
    int caches() const { return m_caches; }
    AutomatonBlock initial() const { return {}; }

    // BlockSystem::deliverableMask() of the block's state, kept per state: the one field a step reads first.
    std::uint64_t deliverable(AutomatonBlock b) const { return m_deliverable[b.state]; }
    int messageCount(AutomatonBlock b) const { return shape(b).messageCount(); }

    CheckedStep issue(AutomatonBlock& b, int cache, ProcessorOp op)
    {
        return step(b, static_cast<unsigned>(cache) * kProcessorOps + static_cast<unsigned>(op));
    }
    CheckedStep deliver(AutomatonBlock& b, int index)
    {
        return step(b, static_cast<unsigned>(m_caches * kProcessorOps + index));
    }

    // The block's controllers and messages; its values count from its latest write (latest() is 0). The
    // reference lasts until the next step of any block.
    const BlockSystem& shape(AutomatonBlock b) const { return m_systems[b.state]; }
    // The block as the interpreter would hold it (values absolute), e.g. to show or compare it.
    BlockSystem materialize(AutomatonBlock b) const;
    // The message a failed step's violation reads, written from the materialized block after the step.
    std::string describeFailure(AutomatonBlock b, bool deliver, int index, ProcessorOp op) const;

    std::size_t states() const { return m_systems.size(); }
    std::size_t transitions() const { return m_transitions.size(); }
    std::size_t interpretedSteps() const { return m_interpreted; }

  private:
    // Deliveries of messages at index kRowDeliveries or later are interpreted every time (rare: the queue is
    // that deep only under extreme contention).
    static constexpr int kRowDeliveries = 24;

    struct Transition {
        std::uint32_t next = 0;
        Value shift = 0;   // how far the latest write moved
        StepResult result; // value relative to the state's latest
    };

    CheckedStep step(AutomatonBlock& b, unsigned input)
    {
        const std::uint32_t t = input < m_inputs ? m_rows[std::size_t{b.state} * m_inputs + input] : 0;
        if (t == 0) [[unlikely]]
            return interpret(b, input);
        const Transition& tr = m_transitions[t - 1];
        CheckedStep out{tr.result, Violation::None};
        out.result.value = add(tr.result.value, static_cast<Value>(b.base * tr.result.hasValue));
        b.state = tr.next;
        b.base = add(b.base, tr.shift);
        return out;
    }
    Value add(Value a, Value b) const
    {
        const unsigned sum = static_cast<unsigned>(a) + b;
        return static_cast<Value>(m_modulus == 0 ? sum : sum % m_modulus);
    }
    CheckedStep interpret(AutomatonBlock& b, unsigned input);
    // Makes `s` relative to its latest write and returns that write (the shift).
    Value normalize(BlockSystem& s) const;
    // Adds `delta` (in the version space) to every value a controller can read, and to the latest write.
    void shiftValues(BlockSystem& s, Value delta) const;
    std::uint32_t intern(const BlockSystem& relative);

    const Protocol* m_protocol;
    int m_caches;
    unsigned m_inputs;  // processor ops, then deliveries below kRowDeliveries
    unsigned m_modulus; // the version space: 0 = all of Value (strong), else modelValues() (bounded staleness)
    std::size_t m_maxStates;
    std::vector<std::uint32_t> m_rows; // [state * m_inputs + input]: transition index + 1, 0 = not yet taken
    std::vector<Transition> m_transitions;
    std::vector<std::uint64_t> m_deliverable; // per state
    std::vector<BlockSystem> m_systems;       // each state, relative (latest 0)
    StateStore m_index;                       // exact encoding -> state
    std::string m_key;                        // scratch for encodings
    std::size_t m_interpreted = 0;
};

} // namespace coh::core::coherence
