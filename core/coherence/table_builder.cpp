#include "core/coherence/table_builder.h"

#include <algorithm>
#include <stdexcept>

namespace coh::core::coherence {

namespace {

bool isCacheGuard(Guard g)
{
    return g == Guard::AckCountZero || g == Guard::AckCountPositive || g == Guard::LastAck || g == Guard::NotLastAck;
}

bool isSharerGuard(Guard g)
{
    return g == Guard::LastSharer || g == Guard::NotLastSharer || g == Guard::NoSharers || g == Guard::HasSharers ||
           g == Guard::RequestorIsSharer || g == Guard::RequestorNotSharer;
}

bool isCopyGuard(Guard g)
{
    return g == Guard::OtherCopy || g == Guard::NoOtherCopy || g == Guard::RequestorHasCopy ||
           g == Guard::RequestorNoCopy;
}

bool usesSharers(const Action& a)
{
    return a.kind == ActionKind::AddRequestorToSharers || a.kind == ActionKind::AddOwnerToSharers ||
           a.kind == ActionKind::RemoveRequestorFromSharers || a.kind == ActionKind::ClearSharers ||
           (a.kind == ActionKind::Send &&
            (a.to == Target::SharersExceptRequestor || a.acks == AckSource::SharersExceptRequestor));
}

bool isMessageAction(ActionKind k)
{
    return k == ActionKind::CopyDataFromMessage || k == ActionKind::AddAcksFromMessage ||
           k == ActionKind::WriteMemoryFromMessage || k == ActionKind::PerformStoreAtHome ||
           k == ActionKind::CompleteLoad;
}

bool isCacheAction(ActionKind k)
{
    return k == ActionKind::Send || k == ActionKind::CopyDataFromMessage || k == ActionKind::AddAcksFromMessage ||
           k == ActionKind::DecrementAcks || k == ActionKind::PerformLoad || k == ActionKind::PerformStore ||
           k == ActionKind::CompleteLoad || k == ActionKind::CompleteStore;
}

bool isDirectoryAction(ActionKind k)
{
    return k == ActionKind::Send || !isCacheAction(k);
}

} // namespace

TableBuilder::TableBuilder(const Protocol& protocol, bool isDirectory)
    : m_protocol(protocol)
    , m_isDirectory(isDirectory)
{
}

TableBuilder::TableBuilder(const Protocol& protocol, const ControllerTable& existing)
    : m_protocol(protocol)
    , m_isDirectory(existing.isDirectory)
    , m_states(existing.states)
    , m_events(existing.events)
{
    m_entries.assign(m_states.size(), std::vector<Entry>(m_events.size()));
    for (std::size_t s = 0; s < m_states.size(); ++s)
        for (std::size_t e = 0; e < m_events.size(); ++e) {
            const int i = existing.index(static_cast<int>(s), static_cast<int>(e));
            const Transition& t = existing.transitions[i];
            Entry& entry = m_entries[s][e];
            entry.kind = t.kind;
            entry.next = t.next;
            entry.actions.assign(existing.actions.begin() + t.firstAction,
                                 existing.actions.begin() + t.firstAction + t.actionCount);
            entry.explanation = existing.explanations[i];
        }
}

void TableBuilder::fail(const std::string& what) const
{
    throw std::logic_error("protocol " + m_protocol.name + ", " + (m_isDirectory ? "directory" : "cache") +
                           " table: " + what);
}

void TableBuilder::state(std::string name, bool stable, Permission permission, bool holdsData, std::string meaning)
{
    if (stateIndex(name) >= 0)
        fail("state " + name + " declared twice");
    m_states.push_back({std::move(name), stable, permission, holdsData, std::move(meaning)});
    m_entries.emplace_back(m_events.size());
}

void TableBuilder::leased(const std::string& state)
{
    const int s = stateIndex(state);
    if (s < 0 || !m_states[s].stable || m_states[s].permission != Permission::Read || !m_states[s].holdsData)
        fail("leased state " + state + " must be a declared stable state that holds readable data");
    m_states[s].leased = true;
}

void TableBuilder::checkLeases() const
{
    // A lease expires without a word to the home (CoherentKv drops an expired copy by its Evict entry), so that
    // entry must send nothing and leave no readable copy.
    int evict = -1;
    for (std::size_t e = 0; e < m_events.size(); ++e)
        if (!m_events[e].trigger.isMessage && m_events[e].trigger.index == static_cast<int>(ProcessorOp::Evict))
            evict = static_cast<int>(e);
    for (std::size_t s = 0; s < m_states.size(); ++s) {
        if (!m_states[s].leased)
            continue;
        const Entry* e = evict >= 0 ? &m_entries[s][evict] : nullptr;
        const bool silent = e && e->kind == EntryKind::Fire && e->next >= 0 &&
                            m_states[e->next].permission == Permission::None && m_states[e->next].stable &&
                            std::none_of(e->actions.begin(), e->actions.end(),
                                         [](const Action& a) { return a.kind == ActionKind::Send; });
        if (!silent)
            fail("leased state " + m_states[s].name +
                 ": its Evict must send nothing and go to a stable state without a copy (a lease expires silently)");
    }
}

void TableBuilder::event(std::string name, ProcessorOp op)
{
    if (m_isDirectory)
        fail("event " + name + ": the directory has no processor");
    if (eventIndex(name) >= 0)
        fail("event " + name + " declared twice");
    m_events.push_back({std::move(name), Trigger{false, static_cast<std::uint8_t>(op)}, {}});
    for (auto& row : m_entries)
        row.emplace_back();
}

void TableBuilder::event(std::string name, const std::string& message, Guard g1, Guard g2)
{
    const int type = m_protocol.findMessage(message);
    if (type < 0)
        fail("event " + name + ": unknown message " + message);
    if (eventIndex(name) >= 0)
        fail("event " + name + " declared twice");
    const bool bus = m_protocol.home == Home::Bus;
    for (Guard g : {g1, g2}) {
        if (g != Guard::None && isCacheGuard(g) == m_isDirectory)
            fail("event " + name + ": guard " + guardName(g) + " does not apply to this controller");
        if (isSharerGuard(g) && bus)
            fail("event " + name + ": guard " + guardName(g) + " reads a sharer set, which a bus does not keep");
        if (isCopyGuard(g) && !bus)
            fail("event " + name + ": guard " + guardName(g) + " samples the caches' copies, which only a bus sees");
    }
    m_events.push_back({std::move(name), Trigger{true, static_cast<std::uint8_t>(type)}, {g1, g2}});
    for (auto& row : m_entries)
        row.emplace_back();
}

Action TableBuilder::send(const std::string& message, Target to, DataSource data, AckSource acks) const
{
    const int type = m_protocol.findMessage(message);
    if (type < 0)
        fail("send of unknown message " + message);
    return Action{ActionKind::Send, static_cast<std::uint8_t>(type), to, data, acks};
}

int TableBuilder::stateIndex(const std::string& name) const
{
    for (std::size_t i = 0; i < m_states.size(); ++i)
        if (m_states[i].name == name)
            return static_cast<int>(i);
    return -1;
}

int TableBuilder::eventIndex(const std::string& name) const
{
    for (std::size_t i = 0; i < m_events.size(); ++i)
        if (m_events[i].name == name)
            return static_cast<int>(i);
    return -1;
}

TableBuilder::Entry& TableBuilder::entry(const std::string& state, const std::string& event, bool mayExist)
{
    const int s = stateIndex(state);
    const int e = eventIndex(event);
    if (s < 0)
        fail("unknown state " + state);
    if (e < 0)
        fail("unknown event " + event);
    Entry& result = m_entries[s][e];
    if (!mayExist && result.kind != EntryKind::Undefined)
        fail("entry (" + state + ", " + event + ") defined twice");
    if (mayExist && result.kind == EntryKind::Undefined)
        fail("entry (" + state + ", " + event + ") replaced but never defined");
    return result;
}

void TableBuilder::check(const std::string& state, const std::string& event, const Entry& e) const
{
    const EventInfo& info = m_events[eventIndex(event)];
    const std::string where = "entry (" + state + ", " + event + "): ";
    for (const Action& a : e.actions) {
        if (m_isDirectory ? !isDirectoryAction(a.kind) : !isCacheAction(a.kind))
            fail(where + "action not available to this controller");
        if (m_protocol.home == Home::Bus && usesSharers(a))
            fail(where + "a bus keeps no sharer set (sample the shared line with Guard::OtherCopy instead)");
        if (!info.trigger.isMessage && isMessageAction(a.kind))
            fail(where + "a processor op carries no message to take data or acks from");
        if (a.kind != ActionKind::Send)
            continue;
        const MessageType& type = m_protocol.messages[a.message];
        if (type.carriesData != (a.data != DataSource::None))
            fail(where + type.name + (type.carriesData ? " needs a data source" : " carries no data"));
        if (!info.trigger.isMessage && a.to != Target::Dir)
            fail(where + "a processor op can only send to the directory");
        if (m_isDirectory && (a.to == Target::Dir || a.data == DataSource::Cache))
            fail(where + "the directory sends to caches, with memory data");
        if (!m_isDirectory && (a.to == Target::Owner || a.to == Target::SharersExceptRequestor ||
                               a.to == Target::AllExceptRequestor || a.data == DataSource::Memory ||
                               a.acks == AckSource::SharersExceptRequestor || a.acks == AckSource::AllExceptRequestor))
            fail(where + "a cache knows neither the owner, the sharers nor memory");
        if (a.data == DataSource::StoreValue &&
            (m_isDirectory || info.trigger.isMessage || info.trigger.index != static_cast<int>(ProcessorOp::Store)))
            fail(where + "only a cache's Store op has a store value to send");
        if (a.acks == AckSource::FromMessage && !info.trigger.isMessage)
            fail(where + "no message to copy an ack count from");
    }
}

void TableBuilder::on(const std::string& state, const std::string& event, std::vector<Action> actions,
                      const std::string& next, std::string explanation)
{
    Entry& slot = entry(state, event, false);
    // Checked before it is stored, so a rejected row leaves the table as it was.
    Entry e;
    e.kind = EntryKind::Fire;
    e.next = next.empty() ? stateIndex(state) : stateIndex(next);
    if (e.next < 0)
        fail("entry (" + state + ", " + event + "): unknown next state " + next);
    e.actions = std::move(actions);
    e.explanation = std::move(explanation);
    check(state, event, e);
    slot = std::move(e);
}

void TableBuilder::on(std::initializer_list<const char*> states, const std::string& event,
                      const std::vector<Action>& actions, const std::string& next, const std::string& explanation)
{
    for (const char* s : states)
        on(s, event, actions, next, explanation);
}

void TableBuilder::stall(std::initializer_list<const char*> states, std::initializer_list<const char*> events,
                         const std::string& why)
{
    for (const char* s : states)
        for (const char* ev : events) {
            Entry& e = entry(s, ev, false);
            e.kind = EntryKind::Stall;
            e.next = stateIndex(s);
            e.explanation = why;
        }
}

void TableBuilder::replace(const std::string& state, const std::string& event, std::vector<Action> actions,
                           const std::string& next, std::string explanation)
{
    entry(state, event, true).kind = EntryKind::Undefined;
    on(state, event, std::move(actions), next, std::move(explanation));
}

ControllerTable TableBuilder::build(const std::string& initialState)
{
    ControllerTable t;
    t.name = m_isDirectory ? "directory" : "cache";
    t.isDirectory = m_isDirectory;
    t.states = m_states;
    t.events = m_events;
    const int initial = stateIndex(initialState);
    if (initial < 0 || !m_states[initial].stable)
        fail("initial state " + initialState + " must be a declared stable state");
    t.initial = static_cast<std::uint8_t>(initial);
    if (m_states.size() > 250 || m_events.size() > 250)
        fail("too many states or events for 8-bit indices");
    checkLeases();

    for (std::size_t s = 0; s < m_states.size(); ++s)
        for (std::size_t e = 0; e < m_events.size(); ++e) {
            const Entry& entry = m_entries[s][e];
            Transition tr;
            tr.kind = entry.kind;
            tr.next = static_cast<std::uint8_t>(entry.next < 0 ? s : entry.next);
            tr.firstAction = static_cast<std::uint16_t>(t.actions.size());
            tr.actionCount = static_cast<std::uint8_t>(entry.actions.size());
            t.actions.insert(t.actions.end(), entry.actions.begin(), entry.actions.end());
            t.transitions.push_back(tr);
            t.explanations.push_back(entry.explanation);
        }

    // Group events by trigger so the interpreter classifies an arrival with a short scan.
    const int slots = kProcessorOps + static_cast<int>(m_protocol.messages.size());
    t.byTrigger.assign(slots, {});
    for (int slot = 0; slot < slots; ++slot) {
        t.byTrigger[slot].first = static_cast<std::uint8_t>(t.eventOrder.size());
        for (std::size_t e = 0; e < m_events.size(); ++e)
            if (m_events[e].trigger.slot() == slot)
                t.eventOrder.push_back(static_cast<std::uint8_t>(e));
        t.byTrigger[slot].count = static_cast<std::uint8_t>(t.eventOrder.size() - t.byTrigger[slot].first);
    }
    if (!m_isDirectory)
        for (int op = 0; op < kProcessorOps; ++op)
            if (t.byTrigger[op].count != 1)
                fail(std::string("the cache needs exactly one event for ") +
                     processorOpName(static_cast<ProcessorOp>(op)));
    t.compiled = compileTable(t, m_protocol);
    return t;
}

} // namespace coh::core::coherence
