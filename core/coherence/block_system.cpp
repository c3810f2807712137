#include "core/coherence/block_system.h"

#include <bit>
#include <stdexcept>

namespace coh::core::coherence {

static_assert(static_cast<int>(DispatchKind::Fire) == static_cast<int>(StepStatus::Done) &&
                  static_cast<int>(DispatchKind::Stall) == static_cast<int>(StepStatus::Stalled) &&
                  static_cast<int>(DispatchKind::Undefined) == static_cast<int>(StepStatus::Undefined) &&
                  static_cast<int>(DispatchKind::Unclassified) == static_cast<int>(StepStatus::Unclassified),
              "a dispatch kind other than Guarded is the step's status");

// Per-type masks are 32 bits; TableBuilder::build() keeps a protocol's message types within the compiled slots.
static_assert(kMaxSlots - kProcessorOps <= 32, "message types fit the per-type masks");

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
    for (std::size_t t = 0; t < protocol.messages.size(); ++t) {
        const auto net = static_cast<unsigned>(protocol.messages[t].network);
        m_orderedTypes |= (protocol.ordered[net] ? 1u : 0u) << t;
        m_networkBit0 |= (net & 1u) << t;
        m_networkBit1 |= ((net >> 1) & 1u) << t;
    }
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
    if (((m_orderedTypes >> m.type) & 1u) == 0)
        return true;
    const unsigned net = networkOf(m.type);
    for (int j = 0; j < i; ++j) {
        const Message& earlier = m_messages[j];
        if (earlier.src == m.src && earlier.dst == m.dst && networkOf(earlier.type) == net)
            return false;
    }
    return true;
}

std::uint64_t BlockSystem::deliverableMask() const
{
    static_assert(kMaxMessages <= 64, "one bit per message in flight");
    std::uint64_t ready = 0;
    for (int i = 0; i < m_messageCount; ++i)
        ready |= deliverable(i) ? std::uint64_t{1} << i : 0;
    return ready;
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
    if (!(m_protocol->directory.compiled.stateFlags[m_dir.state] & kStateStable))
        return true;
    const std::uint8_t* flags = m_protocol->cache.compiled.stateFlags.data();
    for (int c = 0; c < m_caches; ++c)
        if (!(flags[m_lines[c].state] & kStateStable))
            return true;
    return false;
}

std::uint32_t BlockSystem::guardTruths(const Message& m, const CacheLine* line) const
{
    auto holds = [](Guard g, bool b) { return static_cast<std::uint32_t>(b) << static_cast<unsigned>(g); };
    std::uint32_t truths = holds(Guard::None, true);
    if (line) {
        const int acks = m.ackCount + line->acks;
        truths |= holds(Guard::AckCountZero, acks == 0) | holds(Guard::AckCountPositive, acks > 0) |
                  holds(Guard::LastAck, line->acks == 1) | holds(Guard::NotLastAck, line->acks != 1);
    } else {
        const std::uint16_t requestor = bit(m.requestor);
        const bool fromOwner = m_dir.owner == m.requestor;
        const bool others = (m_dir.sharers & static_cast<std::uint16_t>(~requestor)) != 0;
        const bool any = m_dir.sharers != 0;
        const bool isSharer = (m_dir.sharers & requestor) != 0;
        truths |= holds(Guard::FromOwner, fromOwner) | holds(Guard::NotFromOwner, !fromOwner) |
                  holds(Guard::LastSharer, !others) | holds(Guard::NotLastSharer, others) |
                  holds(Guard::NoSharers, !any) | holds(Guard::HasSharers, any) |
                  holds(Guard::RequestorIsSharer, isSharer) | holds(Guard::RequestorNotSharer, !isSharer);
        constexpr std::uint32_t copyGuards = (1u << static_cast<unsigned>(Guard::OtherCopy)) |
                                             (1u << static_cast<unsigned>(Guard::NoOtherCopy)) |
                                             (1u << static_cast<unsigned>(Guard::RequestorHasCopy)) |
                                             (1u << static_cast<unsigned>(Guard::RequestorNoCopy));
        // The bus's shared line: every cache drives it from its own state at the moment the bus orders this
        // request. Only a bus asks, so a directory's arrivals skip the scan.
        if (m_protocol->directory.compiled.guardsUsed & copyGuards) {
            const std::uint8_t* flags = m_protocol->cache.compiled.stateFlags.data();
            unsigned copies = 0;
            for (int c = 0; c < m_caches; ++c)
                copies |= static_cast<unsigned>((flags[m_lines[c].state] & kStateHoldsData) != 0) << c;
            const bool other = (copies & ~static_cast<unsigned>(requestor)) != 0;
            const bool own = (copies & requestor) != 0;
            truths |= holds(Guard::OtherCopy, other) | holds(Guard::NoOtherCopy, !other) |
                      holds(Guard::RequestorHasCopy, own) | holds(Guard::RequestorNoCopy, !own);
        }
    }
    return truths;
}

namespace {

Resolution resolution(const Dispatch& d)
{
    return {static_cast<StepStatus>(d.kind), d.event, d.next, d.actionCount, d.firstAction, d.transition};
}

} // namespace

Resolution BlockSystem::classify(const ControllerTable& table, std::uint8_t state, const Message& m,
                                 const CacheLine* line) const
{
    const CompiledTable& c = table.compiled;
    const int slot = kProcessorOps + m.type;
    const Dispatch& d = c.onTrigger(state, slot);
    if (d.kind != DispatchKind::Guarded) [[likely]]
        return resolution(d);
    const std::uint32_t truths = guardTruths(m, line);
    const GuardedRange range = c.guardedBySlot[slot];
    for (int k = 0; k < range.count; ++k) {
        const GuardedEvent& candidate = c.guarded[range.first + k];
        if ((truths & candidate.need) == candidate.need)
            return resolution(dispatchFor(table, state, candidate.event));
    }
    return {StepStatus::Unclassified};
}

Resolution BlockSystem::resolveOp(int cache, ProcessorOp op) const
{
    // A processor op has exactly one event and no guard (TableBuilder checks), so dispatch answers it.
    return resolution(m_protocol->cache.compiled.onTrigger(m_lines[cache].state, static_cast<int>(op)));
}

Resolution BlockSystem::resolveMessage(int i) const
{
    const Message& m = m_messages[i];
    if (m.dst == kDirNode)
        return classify(m_protocol->directory, m_dir.state, m, nullptr);
    return classify(m_protocol->cache, m_lines[m.dst].state, m, &m_lines[m.dst]);
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

Fault BlockSystem::send(const Action& a, std::uint8_t actor, std::uint8_t requestor, std::int8_t messageAcks,
                        Value storeValue)
{
    Message out;
    out.type = a.message;
    out.src = actor;
    // A request names its sender; everything else names the request it serves.
    out.requestor = networkOf(a.message) == static_cast<unsigned>(VirtualNetwork::Request) ? actor : requestor;
    switch (a.acks) {
    case AckSource::None:
        break;
    case AckSource::SharersExceptRequestor:
        out.ackCount = static_cast<std::int8_t>(std::popcount(static_cast<unsigned>(m_dir.sharers & ~bit(requestor))));
        break;
    case AckSource::FromMessage:
        out.ackCount = messageAcks;
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
    case Target::AllExceptRequestor: {
        const std::uint16_t all = static_cast<std::uint16_t>((1u << m_caches) - 1);
        std::uint16_t targets = a.to == Target::AllExceptRequestor ? all : m_dir.sharers;
        targets &= static_cast<std::uint16_t>(~bit(requestor));
        if (m_messageCount + std::popcount(static_cast<unsigned>(targets)) > kMaxMessages)
            return Fault::TooManyMessages;
        for (; targets != 0; targets &= static_cast<std::uint16_t>(targets - 1)) {
            out.dst = static_cast<std::uint8_t>(std::countr_zero(static_cast<unsigned>(targets)));
            m_messages[m_messageCount++] = out;
        }
        return Fault::None;
    }
    }
    return Fault::None;
}

StepResult BlockSystem::fire(bool atDirectory, std::uint8_t actor, Resolution r, const Message* m, Value storeValue)
{
    const ControllerTable& table = atDirectory ? m_protocol->directory : m_protocol->cache;
    // Values, not references: the byte-sized stores below may alias anything as far as the compiler knows, so
    // anything read through a reference would be read again after each of them.
    const Message msg = m ? *m : Message{};
    const std::uint8_t requestor = m ? msg.requestor : actor;
    CacheLine* line = atDirectory ? nullptr : &m_lines[actor];
    const std::uint8_t from = atDirectory ? m_dir.state : line->state;
    const std::uint8_t firstSent = m_messageCount;
    const bool strong = m_protocol->consistency == Consistency::Strong;

    Fault fault = Fault::None;
    bool loaded = false;
    bool stored = false;
    bool loadMismatch = false;
    bool takesValue = false;
    bool hasValue = false;
    Value value = 0;
    const Action* a = table.actions.data() + r.firstAction;
    const Action* const end = a + r.actionCount;
    for (; a != end && fault == Fault::None; ++a) {
        switch (a->kind) {
        case ActionKind::Send:
            fault = send(*a, actor, requestor, msg.ackCount, storeValue);
            takesValue |= a->data == DataSource::StoreValue;
            break;
        case ActionKind::AddRequestorToSharers:
            m_dir.sharers |= bit(requestor);
            break;
        case ActionKind::AddOwnerToSharers:
            if (m_dir.owner == kNoNode)
                fault = Fault::NoOwner;
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
            if (!msg.hasData)
                fault = Fault::NoMessageData;
            m_dir.memory = msg.value;
            break;
        case ActionKind::CopyDataFromMessage:
            if (!msg.hasData)
                fault = Fault::NoMessageData;
            line->value = msg.value;
            line->dataValid = true;
            break;
        case ActionKind::AddAcksFromMessage:
            line->acks = static_cast<std::int8_t>(line->acks + msg.ackCount);
            break;
        case ActionKind::DecrementAcks:
            line->acks = static_cast<std::int8_t>(line->acks - 1);
            break;
        case ActionKind::PerformLoad:
            if (!line->dataValid)
                fault = Fault::LoadWithoutData;
            loaded = true;
            value = line->value;
            hasValue = true;
            loadMismatch = tooStale(value);
            break;
        case ActionKind::PerformStore:
            // Bounded staleness numbers versions itself, so a stale copy's distance from the latest is known.
            value = strong ? storeValue : nextVersion();
            hasValue = true;
            line->value = value;
            line->dataValid = true;
            m_latest = value;
            stored = true;
            takesValue = true;
            break;
        case ActionKind::PerformLoadAtHome:
            // The load's linearization point: it reads memory now, so memory must hold the latest write.
            value = m_dir.memory;
            hasValue = true;
            loadMismatch = m_dir.memory != m_latest;
            break;
        case ActionKind::PerformStoreAtHome:
            if (!msg.hasData)
                fault = Fault::NoMessageData;
            m_dir.memory = msg.value;
            m_latest = msg.value;
            stored = true;
            value = msg.value;
            hasValue = true;
            break;
        case ActionKind::CompleteLoad:
            if (!msg.hasData)
                fault = Fault::NoMessageData;
            loaded = true;
            value = msg.value;
            hasValue = true;
            break;
        case ActionKind::CompleteStore:
            // The home performed the store when it took the request; report the value it now holds.
            stored = true;
            value = m_latest;
            hasValue = true;
            break;
        }
    }
    if (atDirectory) {
        m_dir.state = r.next;
    } else {
        line->state = r.next;
        // A state that keeps no data drops it, so a later Send or load from it is caught as a fault.
        if (!(table.compiled.stateFlags[r.next] & kStateHoldsData)) {
            line->dataValid = false;
            line->value = 0;
        }
    }

    StepResult result;
    result.status = fault == Fault::None ? StepStatus::Done : StepStatus::Fault;
    result.fault = fault;
    result.atDirectory = atDirectory;
    result.loaded = loaded;
    result.stored = stored;
    result.loadMismatch = loadMismatch;
    result.takesValue = takesValue;
    result.actor = actor;
    result.event = r.event;
    result.from = from;
    result.to = r.next;
    result.firstSent = firstSent;
    result.sentCount = static_cast<std::uint8_t>(m_messageCount - firstSent);
    result.transition = r.transition;
    result.hasValue = hasValue;
    result.value = value;
    return result;
}

} // namespace coh::core::coherence
