#include "core/coherence/block_system.h"

#include <bit>
#include <stdexcept>

namespace coh::core::coherence {

namespace {

std::uint16_t bit(std::uint8_t node)
{
    return node < kMaxCaches ? static_cast<std::uint16_t>(1u << node) : 0;
}

} // namespace

BlockSystem::BlockSystem(const Protocol& protocol, int caches)
    : m_protocol(&protocol)
    , m_caches(static_cast<std::uint8_t>(caches))
{
    if (caches < 1 || caches > kMaxCaches)
        throw std::invalid_argument("BlockSystem: caches must be 1.." + std::to_string(kMaxCaches));
    for (int c = 0; c < caches; ++c)
        m_lines[c].state = protocol.cache.initial;
    m_dir.state = protocol.directory.initial;
}

void BlockSystem::setMessages(const Message* messages, int count)
{
    m_messageCount = static_cast<std::uint8_t>(count);
    for (int i = 0; i < count; ++i)
        m_messages[i] = messages[i];
}

bool BlockSystem::deliverable(int i) const
{
    const Message& m = m_messages[i];
    const VirtualNetwork net = m_protocol->messages[m.type].network;
    if (!m_protocol->ordered[static_cast<int>(net)])
        return true;
    for (int j = 0; j < i; ++j) {
        const Message& earlier = m_messages[j];
        if (earlier.src == m.src && earlier.dst == m.dst && m_protocol->messages[earlier.type].network == net)
            return false;
    }
    return true;
}

Value BlockSystem::nextVersion() const
{
    if (m_protocol->consistency == Consistency::Strong)
        return static_cast<Value>(m_latest + 1);
    return static_cast<Value>((m_latest + 1) % m_protocol->modelValues());
}

bool BlockSystem::tooStale(Value v) const
{
    if (m_protocol->consistency == Consistency::Strong)
        return v != m_latest;
    // Versions are counted mod bound + 2, so the distance back to the latest is (latest - v) mod that.
    const int mod = m_protocol->modelValues();
    return (m_latest - v + mod) % mod > m_protocol->stalenessBound;
}

bool BlockSystem::anyTransient() const
{
    if (!m_protocol->directory.states[m_dir.state].stable)
        return true;
    for (int c = 0; c < m_caches; ++c)
        if (!m_protocol->cache.states[m_lines[c].state].stable)
            return true;
    return false;
}

bool BlockSystem::guardHolds(Guard g, const Message& m, const CacheLine* line) const
{
    const std::uint16_t others = m_dir.sharers & static_cast<std::uint16_t>(~bit(m.requestor));
    switch (g) {
    case Guard::None:
        return true;
    case Guard::AckCountZero:
        return m.ackCount + line->acks == 0;
    case Guard::AckCountPositive:
        return m.ackCount + line->acks > 0;
    case Guard::LastAck:
        return line->acks == 1;
    case Guard::NotLastAck:
        return line->acks != 1;
    case Guard::FromOwner:
        return m_dir.owner == m.requestor;
    case Guard::NotFromOwner:
        return m_dir.owner != m.requestor;
    case Guard::LastSharer:
        return others == 0;
    case Guard::NotLastSharer:
        return others != 0;
    case Guard::NoSharers:
        return m_dir.sharers == 0;
    case Guard::HasSharers:
        return m_dir.sharers != 0;
    case Guard::RequestorIsSharer:
        return (m_dir.sharers & bit(m.requestor)) != 0;
    case Guard::RequestorNotSharer:
        return (m_dir.sharers & bit(m.requestor)) == 0;
    }
    return false;
}

Resolution BlockSystem::classify(bool atDirectory, std::uint8_t state, const Message& m, const CacheLine* line) const
{
    const ControllerTable& table = atDirectory ? m_protocol->directory : m_protocol->cache;
    const TriggerEvents range = table.byTrigger[kProcessorOps + m.type];
    for (int k = 0; k < range.count; ++k) {
        const std::uint8_t event = table.eventOrder[range.first + k];
        const EventInfo& info = table.events[event];
        if (!guardHolds(info.guards[0], m, line) || !guardHolds(info.guards[1], m, line))
            continue;
        const int index = table.index(state, event);
        const EntryKind kind = table.transitions[index].kind;
        return {kind == EntryKind::Fire    ? StepStatus::Done
                : kind == EntryKind::Stall ? StepStatus::Stalled
                                           : StepStatus::Undefined,
                event, static_cast<std::uint16_t>(index)};
    }
    return {StepStatus::Unclassified, 0, 0};
}

Resolution BlockSystem::resolveOp(int cache, ProcessorOp op) const
{
    const ControllerTable& table = m_protocol->cache;
    const std::uint8_t event = table.eventOrder[table.byTrigger[static_cast<int>(op)].first];
    const int index = table.index(m_lines[cache].state, event);
    const EntryKind kind = table.transitions[index].kind;
    return {kind == EntryKind::Fire    ? StepStatus::Done
            : kind == EntryKind::Stall ? StepStatus::Stalled
                                       : StepStatus::Undefined,
            event, static_cast<std::uint16_t>(index)};
}

Resolution BlockSystem::resolveMessage(int i) const
{
    const Message& m = m_messages[i];
    if (m.dst == kDirNode)
        return classify(true, m_dir.state, m, nullptr);
    return classify(false, m_lines[m.dst].state, m, &m_lines[m.dst]);
}

StepResult BlockSystem::issue(int cache, ProcessorOp op, Value storeValue)
{
    const Resolution r = resolveOp(cache, op);
    if (r.status != StepStatus::Done) {
        StepResult result;
        result.status = r.status;
        result.actor = static_cast<std::uint8_t>(cache);
        result.event = r.event;
        result.from = result.to = m_lines[cache].state;
        return result;
    }
    return fire(false, static_cast<std::uint8_t>(cache), r, nullptr, storeValue);
}

StepResult BlockSystem::deliver(int i, Value storeValue)
{
    const Message m = m_messages[i];
    const bool atDirectory = m.dst == kDirNode;
    const Resolution r = resolveMessage(i);
    if (r.status != StepStatus::Done) {
        StepResult result;
        result.status = r.status;
        result.atDirectory = atDirectory;
        result.actor = m.dst;
        result.event = r.event;
        result.from = result.to = atDirectory ? m_dir.state : m_lines[m.dst].state;
        return result;
    }
    for (int j = i + 1; j < m_messageCount; ++j)
        m_messages[j - 1] = m_messages[j];
    --m_messageCount;
    return fire(atDirectory, m.dst, r, &m, storeValue);
}

Fault BlockSystem::push(const Message& m)
{
    if (m_messageCount == kMaxMessages)
        return Fault::TooManyMessages;
    m_messages[m_messageCount++] = m;
    return Fault::None;
}

Fault BlockSystem::send(const Action& a, std::uint8_t actor, std::uint8_t requestor, const Message* m,
                         Value storeValue)
{
    const MessageType& type = m_protocol->messages[a.message];
    Message out;
    out.type = a.message;
    out.src = actor;
    // A request names its sender; everything else names the request it serves.
    out.requestor = type.network == VirtualNetwork::Request ? actor : requestor;
    switch (a.acks) {
    case AckSource::None:
        break;
    case AckSource::SharersExceptRequestor:
        out.ackCount = static_cast<std::int8_t>(std::popcount(static_cast<unsigned>(m_dir.sharers & ~bit(requestor))));
        break;
    case AckSource::FromMessage:
        out.ackCount = m->ackCount;
        break;
    case AckSource::AllExceptRequestor:
        out.ackCount = static_cast<std::int8_t>(m_caches - 1);
        break;
    }
    switch (a.data) {
    case DataSource::None:
        break;
    case DataSource::Cache:
        if (!m_lines[actor].dataValid)
            return Fault::NoDataToSend;
        out.hasData = true;
        out.value = m_lines[actor].value;
        break;
    case DataSource::Memory:
        out.hasData = true;
        out.value = m_dir.memory;
        break;
    case DataSource::StoreValue:
        out.hasData = true;
        out.value = storeValue;
        break;
    }
    switch (a.to) {
    case Target::Dir:
        out.dst = kDirNode;
        return push(out);
    case Target::Requestor:
        out.dst = requestor;
        return push(out);
    case Target::Owner:
        if (m_dir.owner == kNoNode)
            return Fault::NoOwner;
        out.dst = m_dir.owner;
        return push(out);
    case Target::SharersExceptRequestor:
        for (std::uint8_t c = 0; c < m_caches; ++c)
            if ((m_dir.sharers & bit(c)) && c != requestor) {
                out.dst = c;
                if (const Fault f = push(out); f != Fault::None)
                    return f;
            }
        return Fault::None;
    case Target::AllExceptRequestor:
        for (std::uint8_t c = 0; c < m_caches; ++c)
            if (c != requestor) {
                out.dst = c;
                if (const Fault f = push(out); f != Fault::None)
                    return f;
            }
        return Fault::None;
    }
    return Fault::None;
}

StepResult BlockSystem::fire(bool atDirectory, std::uint8_t actor, const Resolution& r, const Message* m,
                             Value storeValue)
{
    const ControllerTable& table = atDirectory ? m_protocol->directory : m_protocol->cache;
    const Transition& t = table.transitions[r.transition];
    std::uint8_t& state = atDirectory ? m_dir.state : m_lines[actor].state;
    CacheLine* line = atDirectory ? nullptr : &m_lines[actor];
    const std::uint8_t requestor = m ? m->requestor : actor;

    StepResult result;
    result.atDirectory = atDirectory;
    result.actor = actor;
    result.event = r.event;
    result.transition = r.transition;
    result.from = state;
    result.to = t.next;
    result.firstSent = m_messageCount;

    for (int k = 0; k < t.actionCount && result.fault == Fault::None; ++k) {
        const Action& a = table.actions[t.firstAction + k];
        switch (a.kind) {
        case ActionKind::Send:
            result.fault = send(a, actor, requestor, m, storeValue);
            result.takesValue = result.takesValue || a.data == DataSource::StoreValue;
            break;
        case ActionKind::AddRequestorToSharers:
            m_dir.sharers |= bit(requestor);
            break;
        case ActionKind::AddOwnerToSharers:
            if (m_dir.owner == kNoNode)
                result.fault = Fault::NoOwner;
            m_dir.sharers |= bit(m_dir.owner);
            break;
        case ActionKind::RemoveRequestorFromSharers:
            m_dir.sharers &= static_cast<std::uint16_t>(~bit(requestor));
            break;
        case ActionKind::ClearSharers:
            m_dir.sharers = 0;
            break;
        case ActionKind::SetOwnerToRequestor:
            m_dir.owner = requestor;
            break;
        case ActionKind::ClearOwner:
            m_dir.owner = kNoNode;
            break;
        case ActionKind::WriteMemoryFromMessage:
            if (!m->hasData)
                result.fault = Fault::NoMessageData;
            m_dir.memory = m->value;
            break;
        case ActionKind::CopyDataFromMessage:
            if (!m->hasData)
                result.fault = Fault::NoMessageData;
            line->value = m->value;
            line->dataValid = true;
            break;
        case ActionKind::AddAcksFromMessage:
            line->acks = static_cast<std::int8_t>(line->acks + m->ackCount);
            break;
        case ActionKind::DecrementAcks:
            line->acks = static_cast<std::int8_t>(line->acks - 1);
            break;
        case ActionKind::PerformLoad:
            if (!line->dataValid)
                result.fault = Fault::LoadWithoutData;
            result.loaded = true;
            result.value = line->value;
            result.loadMismatch = tooStale(line->value);
            break;
        case ActionKind::PerformStore:
            // Bounded staleness numbers versions itself, so a stale copy's distance from the latest is known.
            if (m_protocol->consistency != Consistency::Strong)
                storeValue = nextVersion();
            line->value = storeValue;
            line->dataValid = true;
            m_latest = storeValue;
            result.stored = true;
            result.takesValue = true;
            result.value = storeValue;
            break;
        case ActionKind::PerformLoadAtHome:
            // The load's linearization point: it reads memory now, so memory must hold the latest write.
            result.value = m_dir.memory;
            result.loadMismatch = m_dir.memory != m_latest;
            break;
        case ActionKind::PerformStoreAtHome:
            if (!m->hasData)
                result.fault = Fault::NoMessageData;
            m_dir.memory = m->value;
            m_latest = m->value;
            result.stored = true;
            result.value = m->value;
            break;
        case ActionKind::CompleteLoad:
            if (!m->hasData)
                result.fault = Fault::NoMessageData;
            result.loaded = true;
            result.value = m->value;
            break;
        case ActionKind::CompleteStore:
            // The home performed the store when it took the request; report the value it now holds.
            result.stored = true;
            result.value = m_latest;
            break;
        }
    }
    state = t.next;
    // A state that keeps no data drops it, so a later Send or load from it is caught as a fault.
    if (line && !table.states[t.next].holdsData) {
        line->dataValid = false;
        line->value = 0;
    }
    result.sentCount = static_cast<std::uint8_t>(m_messageCount - result.firstSent);
    if (result.fault != Fault::None)
        result.status = StepStatus::Fault;
    return result;
}

} // namespace coh::core::coherence
