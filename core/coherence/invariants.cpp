#include "core/coherence/invariants.h"
#include "core/coherence/text_list.h"

#include <fmt/format.h>

namespace coh::core::coherence {

namespace {

std::string cacheName(int c)
{
    return fmt::format("P{}", c);
}

std::string nodeName(const Protocol& p, std::uint8_t node)
{
    return node == kDirNode ? homeName(p.home) : cacheName(node);
}

const char* faultText(Fault f)
{
    switch (f) {
    case Fault::None:
        return "no fault";
    case Fault::NoDataToSend:
        return "it must send data it does not hold";
    case Fault::NoOwner:
        return "the directory has no owner to forward to";
    case Fault::NoMessageData:
        return "it takes data from a message that carries none";
    case Fault::LoadWithoutData:
        return "it loads without holding valid data";
    case Fault::TooManyMessages:
        return "more messages are in flight than the system can hold";
    }
    return "?";
}

} // namespace

const char* violationName(Violation v)
{
    switch (v) {
    case Violation::None:
        return "none";
    case Violation::ProtocolError:
        return "protocol-error";
    case Violation::Swmr:
        return "swmr";
    case Violation::DataValue:
        return "data-value";
    case Violation::LostWrite:
        return "lost-write";
    case Violation::AckCounter:
        return "ack-counter";
    case Violation::Deadlock:
        return "deadlock";
    }
    return "?";
}

Violation checkStep(const StepResult& step)
{
    if (step.status == StepStatus::Undefined || step.status == StepStatus::Unclassified ||
        step.status == StepStatus::Fault)
        return Violation::ProtocolError;
    if (step.loadMismatch)
        return Violation::DataValue;
    return Violation::None;
}

namespace {

// The latest written value is in memory, a valid copy or an in-flight data message.
bool latestHeld(const BlockSystem& system)
{
    const Value latest = system.latest();
    bool held = system.directory().memory == latest;
    for (int c = 0; c < system.caches(); ++c)
        held |= system.line(c).dataValid & (system.line(c).value == latest);
    for (int i = 0; i < system.messageCount() && !held; ++i)
        held = system.message(i).hasData && system.message(i).value == latest;
    return held;
}

} // namespace

Violation checkState(const BlockSystem& system)
{
    // Counts without data-dependent branches: the explorer runs it on every state it reaches.
    const Protocol& p = system.protocol();
    const std::uint8_t* flags = p.cache.compiled.stateFlags.data();
    unsigned writers = 0;
    unsigned readers = 0;
    bool ackLeft = false;
    for (int c = 0; c < system.caches(); ++c) {
        const CacheLine& line = system.line(c);
        const std::uint8_t f = flags[line.state];
        writers += (f & kStateWriter) != 0;
        readers += (f & kStateReader) != 0;
        ackLeft |= ((f & kStateStable) != 0) & (line.acks != 0);
    }
    if (ackLeft)
        return Violation::AckCounter;
    // Bounded staleness lets replicas read while the one writer writes; only a second writer is a violation.
    const bool readersExcluded = p.consistency == Consistency::Strong;
    if ((writers > 1) | ((writers == 1) & (readers > 0) & readersExcluded))
        return Violation::Swmr;
    return latestHeld(system) ? Violation::None : Violation::LostWrite;
}

Violation checkAfterStep(const BlockSystem& system, const StepResult& step)
{
    if (const Violation v = checkStep(step); v != Violation::None)
        return v;
    if (step.status == StepStatus::Stalled)
        return Violation::None; // nothing changed
    const Protocol& p = system.protocol();
    if (!step.atDirectory) {
        const std::uint8_t* flags = p.cache.compiled.stateFlags.data();
        const CacheLine& line = system.line(step.actor);
        const std::uint8_t f = flags[line.state];
        if ((f & kStateStable) && line.acks != 0)
            return Violation::AckCounter;
        // Only the actor's permission changed, so SWMR can break only where the actor gained one.
        if (f & static_cast<std::uint8_t>(~flags[step.from]) & (kStateReader | kStateWriter)) {
            const bool readersExcluded = p.consistency == Consistency::Strong;
            // A writer excludes every other writer, and under strong consistency every reader; a reader excludes
            // writers under strong consistency.
            const std::uint8_t excluded = (f & kStateWriter)
                                              ? (readersExcluded ? kStateWriter | kStateReader : kStateWriter)
                                              : (readersExcluded ? kStateWriter : 0);
            for (int c = 0; c < system.caches(); ++c)
                if (c != step.actor && (flags[system.line(c).state] & excluded))
                    return Violation::Swmr;
        }
        if (line.dataValid && line.value == system.latest())
            return Violation::None;
    }
    if (system.directory().memory == system.latest())
        return Violation::None;
    return latestHeld(system) ? Violation::None : Violation::LostWrite;
}

bool isDeadlocked(const BlockSystem& system)
{
    if (system.quiescent())
        return false;
    for (int i = 0; i < system.messageCount(); ++i)
        if (system.canDeliver(i))
            return false;
    return true;
}

std::string describeViolation(Violation v, const BlockSystem& after, const StepResult* step)
{
    const Protocol& p = after.protocol();
    auto cacheState = [&](int c) { return p.cache.states[after.line(c).state].name; };
    switch (v) {
    case Violation::None:
        return "no violation";
    case Violation::ProtocolError: {
        const ControllerTable& table = step && step->atDirectory ? p.directory : p.cache;
        const std::string who = step ? nodeName(p, step->actor) : "?";
        const std::string state = step ? table.states[step->from].name : "?";
        if (!step)
            return "protocol error";
        if (step->status == StepStatus::Unclassified)
            return fmt::format("protocol error: {} in {} received a message that matches none of its events", who,
                               state);
        if (step->status == StepStatus::Fault)
            return fmt::format("protocol error: {} in {} on {}: {}", who, state, table.events[step->event].name,
                               faultText(step->fault));
        return fmt::format("protocol error: {} in state {} has no transition for {}", who, state,
                           table.events[step->event].name);
    }
    case Violation::Swmr: {
        std::string writers, readers;
        for (int c = 0; c < after.caches(); ++c) {
            const Permission perm = p.cache.states[after.line(c).state].permission;
            std::string& list = perm == Permission::ReadWrite ? writers : readers;
            if (perm != Permission::None)
                appendItem(list, fmt::format("{} ({})", cacheName(c), cacheState(c)));
        }
        return fmt::format("SWMR violated: {} may write while {} may also access the block", writers,
                           readers.empty() ? "another writer" : readers);
    }
    case Violation::DataValue:
        return fmt::format("data-value violated: {} loaded {} but the latest write stored {}",
                           step ? nodeName(p, step->actor) : "?", step ? step->value : 0, after.latest());
    case Violation::LostWrite:
        return fmt::format("lost write: the latest value {} is neither in memory ({}) nor in any valid copy or "
                           "in-flight data",
                           after.latest(), after.directory().memory);
    case Violation::AckCounter:
        for (int c = 0; c < after.caches(); ++c)
            if (p.cache.states[after.line(c).state].stable && after.line(c).acks != 0)
                return fmt::format("ack counter: {} is in stable state {} but still counts {} ack(s)", cacheName(c),
                                   cacheState(c), after.line(c).acks);
        return "ack counter not settled";
    case Violation::Deadlock:
        return fmt::format("deadlock: {} message(s) in flight and none can be delivered; the block never becomes "
                           "quiescent",
                           after.messageCount());
    }
    return "?";
}

} // namespace coh::core::coherence
