#include "core/coherence/block_set.h"

#include <algorithm>

namespace coh::core::coherence {

BlockSet::BlockSet(const Protocol& protocol, int caches, ProtocolExecutor executor, std::size_t stateBudget)
    : m_protocol(&protocol)
    , m_caches(caches)
    , m_stateBudget(stateBudget)
{
    // One step adds at most one state, so the budget check after each step comes before the automaton's limit.
    // No budget at all (the initial state is one) means the interpreter from the start.
    if (executor == ProtocolExecutor::Automaton && stateBudget >= 1)
        m_automaton = std::make_unique<BlockAutomaton>(protocol, caches, std::max(stateBudget, stateBudget + 1));
}

std::uint32_t BlockSet::add(std::size_t count)
{
    const auto first = static_cast<std::uint32_t>(size());
    if (m_automaton)
        m_places.resize(m_places.size() + count, m_automaton->initial());
    else
        m_systems.resize(m_systems.size() + count, BlockSystem(*m_protocol, m_caches));
    return first;
}

void BlockSet::reset(std::uint32_t block)
{
    if (m_automaton)
        m_places[block] = m_automaton->initial();
    else
        m_systems[block] = BlockSystem(*m_protocol, m_caches);
}

std::uint64_t BlockSet::deliverable(std::uint32_t block) const
{
    return m_automaton ? m_automaton->deliverable(m_places[block]) : m_systems[block].deliverableMask();
}

BlockSystem BlockSet::block(std::uint32_t block) const
{
    return m_automaton ? m_automaton->materialize(m_places[block]) : m_systems[block];
}

CheckedStep BlockSet::afterInterpreterStep(const BlockSystem& s, const StepResult& r)
{
    CheckedStep out{r, Violation::None};
    if (r.status != StepStatus::Stalled)
        out.violation = checkAfterStep(s, r);
    if (out.violation != Violation::None) [[unlikely]]
        m_failure = describeViolation(out.violation, s, &r);
    return out;
}

void BlockSet::describeAutomatonFailure(std::uint32_t block, bool delivery, int index, ProcessorOp op)
{
    m_failure = m_automaton->describeFailure(m_places[block], delivery, index, op);
}

void BlockSet::handOverToInterpreter()
{
    m_statesAtHandover = m_automaton->states();
    m_transitionsAtHandover = m_automaton->transitions();
    m_abandoned = true;
    m_systems.reserve(m_places.size());
    for (const AutomatonBlock& place : m_places)
        m_systems.push_back(m_automaton->materialize(place));
    m_places = {};
    m_automaton.reset();
}

} // namespace coh::core::coherence
