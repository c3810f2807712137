#include "core/coherence/invariants.h"
#include "core/coherence/text_list.h"

#include <fmt/format.h>

namespace coh::core::coherence {

namespace {

std::string cacheName(int c)
{
    return fmt::format("P{}", c);
}

std::string nodeName(std::uint8_t node)
{
    return node == kDirNode ? "Dir" : cacheName(node);
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

Violation checkState(const BlockSystem& system)
{
    // Runs after every protocol step of every run, so it counts without data-dependent branches.
    const Protocol& p = system.protocol();
    const Value latest = system.latest();
    int writers = 0;
    int readers = 0;
    bool ackLeft = false;
    bool latestHeld = system.directory().memory == latest;
    for (int c = 0; c < system.caches(); ++c) {
        const CacheLine& line = system.line(c);
        const StateInfo& state = p.cache.states[line.state];
        writers += state.permission == Permission::ReadWrite;
        readers += state.permission == Permission::Read;
        ackLeft |= state.stable & (line.acks != 0);
        latestHeld |= line.dataValid & (line.value == latest);
    }
    if (ackLeft)
        return Violation::AckCounter;
    // Bounded staleness lets replicas read while the one writer writes; only a second writer is a violation.
    const bool readersExcluded = p.consistency == Consistency::Strong;
    if ((writers > 1) | ((writers == 1) & (readers > 0) & readersExcluded))
        return Violation::Swmr;
    for (int i = 0; i < system.messageCount() && !latestHeld; ++i)
        latestHeld = system.message(i).hasData && system.message(i).value == latest;
    return latestHeld ? Violation::None : Violation::LostWrite;
}

bool isDeadlocked(const BlockSystem& system)
{
    if (system.quiescent())
        return false;
    for (int i = 0; i < system.messageCount(); ++i)
        if (system.deliverable(i) && system.resolveMessage(i).status != StepStatus::Stalled)
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
        const std::string who = step ? nodeName(step->actor) : "?";
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
                           step ? nodeName(step->actor) : "?", step ? step->value : 0, after.latest());
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
