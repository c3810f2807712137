#include "core/coherence/block_automaton.h"

#include "core/coherence/state_codec.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <stdexcept>

namespace coh::core::coherence {

BlockAutomaton::BlockAutomaton(const Protocol& protocol, int caches, std::size_t maxStates)
    : m_protocol(&protocol)
    , m_caches(caches)
    , m_inputs(static_cast<unsigned>(caches * kProcessorOps + kRowDeliveries))
    , m_modulus(protocol.consistency == Consistency::Strong ? 0u : static_cast<unsigned>(protocol.modelValues()))
    , m_maxStates(std::max<std::size_t>(maxStates, 1))
{
    intern(BlockSystem(protocol, caches)); // state 0: everything initial, latest 0
}

void BlockAutomaton::shiftValues(BlockSystem& s, Value delta) const
{
    for (int c = 0; c < m_caches; ++c) {
        CacheLine& line = s.mutableLine(c);
        if (line.dataValid)
            line.value = add(line.value, delta);
    }
    s.mutableDirectory().memory = add(s.directory().memory, delta);
    std::array<Message, kMaxMessages> messages{};
    for (int i = 0; i < s.messageCount(); ++i) {
        messages[i] = s.message(i);
        if (messages[i].hasData)
            messages[i].value = add(messages[i].value, delta);
    }
    s.setMessages(messages.data(), s.messageCount());
    s.setLatest(add(s.latest(), delta));
}

Value BlockAutomaton::normalize(BlockSystem& s) const
{
    // Values nobody reads are cleared, so states that differ only there are one state.
    for (int c = 0; c < m_caches; ++c)
        if (!s.line(c).dataValid)
            s.mutableLine(c).value = 0;
    std::array<Message, kMaxMessages> messages{};
    for (int i = 0; i < s.messageCount(); ++i) {
        messages[i] = s.message(i);
        if (!messages[i].hasData)
            messages[i].value = 0;
    }
    s.setMessages(messages.data(), s.messageCount());
    const Value shift = s.latest();
    const unsigned span = m_modulus == 0 ? 0x10000u : m_modulus;
    shiftValues(s, static_cast<Value>((span - shift) % span)); // minus the latest write: it becomes 0
    return shift;
}

std::uint32_t BlockAutomaton::intern(const BlockSystem& relative)
{
    m_key.clear();
    encodeExactState(relative, m_key);
    if (const auto known = m_index.find(m_key))
        return *known;
    // Refused before anything is stored, so the automaton stays whole for a caller that goes on.
    if (m_index.size() >= m_maxStates)
        throw std::length_error(fmt::format(
            "{} at {} caches reached {} distinct block states, the automaton's limit; run it with the interpreter "
            "instead (cohsim bench phold --executor interpreter)",
            m_protocol->name, m_caches, m_maxStates));
    const std::uint32_t id = m_index.insert(m_key).first;
    m_systems.push_back(relative);
    m_deliverable.push_back(relative.deliverableMask());
    m_rows.resize(m_systems.size() * m_inputs, 0);
    return id;
}

CheckedStep BlockAutomaton::interpret(AutomatonBlock& b, unsigned input)
{
    ++m_interpreted;
    BlockSystem s = m_systems[b.state];
    const unsigned ops = static_cast<unsigned>(m_caches * kProcessorOps);
    const StepResult r = input >= ops ? s.deliver(static_cast<int>(input - ops), s.nextVersion())
                                      : s.issue(static_cast<int>(input / kProcessorOps),
                                                static_cast<ProcessorOp>(input % kProcessorOps), s.nextVersion());
    CheckedStep out{r, Violation::None};
    out.result.value = r.hasValue ? add(r.value, b.base) : Value{0};
    // A stalled step changes nothing, so it needs no check (the state was checked when it was reached). A
    // violating step is not kept: it is interpreted, and reported, every time it is taken.
    const bool stalled = r.status == StepStatus::Stalled;
    if (!stalled) {
        out.violation = checkAfterStep(s, r);
        if (out.violation != Violation::None)
            return out;
    }
    const Value shift = stalled ? Value{0} : normalize(s);
    const std::uint32_t next = stalled ? b.state : intern(s);
    if (input < m_inputs) {
        m_transitions.push_back(Transition{next, shift, r});
        m_rows[std::size_t{b.state} * m_inputs + input] = static_cast<std::uint32_t>(m_transitions.size());
    }
    b.state = next;
    b.base = add(b.base, shift);
    return out;
}

BlockSystem BlockAutomaton::materialize(AutomatonBlock b) const
{
    BlockSystem s = m_systems[b.state];
    shiftValues(s, b.base); // its latest write was 0
    return s;
}

std::string BlockAutomaton::describeFailure(AutomatonBlock b, bool deliver, int index, ProcessorOp op) const
{
    BlockSystem s = materialize(b);
    const StepResult r = deliver ? s.deliver(index, s.nextVersion()) : s.issue(index, op, s.nextVersion());
    return describeViolation(checkAfterStep(s, r), s, &r);
}

} // namespace coh::core::coherence
