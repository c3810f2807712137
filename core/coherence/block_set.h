#pragma once
// Blocks under one protocol at one cache count, every step checked. Steps go through the shared automaton
// (BlockAutomaton: each distinct step interpreted and checked once, then looked up) while it stays within its
// state budget; past it, or from the start when asked, each block gets its own interpreter (BlockSystem), taken
// over from the automaton mid-run. Both take exactly the same steps, so drivers (the protocol PHOLD, the prefix
// pool) step blocks by index and never depend on which executor ran.
#include "core/coherence/block_automaton.h"
#include "core/coherence/block_system.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace coh::core::coherence {

enum class ProtocolExecutor : std::uint8_t { Interpreter, Automaton };

// States the automaton may grow to before the interpreter takes over (a few tens of MiB). Three caches need
// 250 to 7,000 states under a random workload, eight caches about 21,000 for MSI; with many caches a random
// workload keeps finding new states, and a step seen for the first time costs about 35 interpreted steps, so
// past this the interpreter alone is faster.
inline constexpr std::size_t kDefaultAutomatonStates = 32768;

class BlockSet {
  public:
    BlockSet(const Protocol& protocol, int caches, ProtocolExecutor executor = ProtocolExecutor::Automaton,
             std::size_t stateBudget = kDefaultAutomatonStates);

    const Protocol& protocol() const { return *m_protocol; }
    int caches() const { return m_caches; }
    std::size_t size() const { return m_automaton ? m_places.size() : m_systems.size(); }
    // Appends `count` blocks, every controller initial; returns the first one's index.
    std::uint32_t add(std::size_t count = 1);
    void reset(std::uint32_t block); // back to every controller initial, latest 0

    // Stores write BlockSystem::nextVersion(). A stalled step changes nothing and needs no check. After a
    // violation the run must stop: failure() says what broke (the block is left as it was before the step
    // under the automaton, as after it under the interpreter).
    CheckedStep issue(std::uint32_t block, int cache, ProcessorOp op)
    {
        if (m_automaton) [[likely]]
            return afterAutomatonStep(block, m_automaton->issue(m_places[block], cache, op), false, cache, op);
        BlockSystem& s = m_systems[block];
        return afterInterpreterStep(s, s.issue(cache, op, s.nextVersion()));
    }
    CheckedStep deliver(std::uint32_t block, int index)
    {
        if (m_automaton) [[likely]]
            return afterAutomatonStep(block, m_automaton->deliver(m_places[block], index), true, index,
                                      ProcessorOp::Load);
        BlockSystem& s = m_systems[block];
        return afterInterpreterStep(s, s.deliver(index, s.nextVersion()));
    }
    // The last violation in words, naming the controllers' states and values after the step.
    const std::string& failure() const { return m_failure; }

    // The block's controllers and messages, for what is not a value: states, directory, messages in order.
    // Under the automaton its values count from the block's latest write (its latest() is 0), under the
    // interpreter they are absolute: compare a value only with the same shape's latest(), or use block() and
    // latest(). The reference lasts until the next step of any block, add() or reset().
    const BlockSystem& shape(std::uint32_t block) const
    {
        return m_automaton ? m_automaton->shape(m_places[block]) : m_systems[block];
    }
    // Bit i: in-flight message i may be delivered now (BlockSystem::deliverable).
    std::uint64_t deliverable(std::uint32_t block) const;
    // The block with absolute values.
    BlockSystem block(std::uint32_t block) const;
    Value latest(std::uint32_t block) const { return m_automaton ? m_places[block].base : m_systems[block].latest(); }

    bool automatonRunning() const { return m_automaton != nullptr; }
    bool automatonAbandoned() const { return m_abandoned; }
    // The automaton's size now, or when the interpreter took over; 0 when it never ran.
    std::size_t automatonStates() const { return m_automaton ? m_automaton->states() : m_statesAtHandover; }
    std::size_t automatonTransitions() const
    {
        return m_automaton ? m_automaton->transitions() : m_transitionsAtHandover;
    }

  private:
    CheckedStep afterAutomatonStep(std::uint32_t block, const CheckedStep& step, bool delivery, int index,
                                   ProcessorOp op)
    {
        if (step.violation != Violation::None) [[unlikely]]
            describeAutomatonFailure(block, delivery, index, op);
        if (m_automaton->states() > m_stateBudget) [[unlikely]]
            handOverToInterpreter();
        return step;
    }
    CheckedStep afterInterpreterStep(const BlockSystem& s, const StepResult& r);
    void describeAutomatonFailure(std::uint32_t block, bool delivery, int index, ProcessorOp op);
    void handOverToInterpreter();

    const Protocol* m_protocol;
    int m_caches;
    std::size_t m_stateBudget;
    std::unique_ptr<BlockAutomaton> m_automaton; // while it runs: one place in it per block
    std::vector<AutomatonBlock> m_places;
    std::vector<BlockSystem> m_systems; // otherwise: one interpreter per block
    bool m_abandoned = false;
    std::size_t m_statesAtHandover = 0;
    std::size_t m_transitionsAtHandover = 0;
    std::string m_failure;
};

} // namespace coh::core::coherence
