#include "core/coherence/compiled_table.h"

#include "core/coherence/protocol_table.h"

#include <stdexcept>
#include <string>

namespace coh::core::coherence {

namespace {

std::uint32_t guardBit(Guard g)
{
    return std::uint32_t{1} << static_cast<unsigned>(g);
}

std::uint8_t stateFlags(const StateInfo& s)
{
    return static_cast<std::uint8_t>((s.stable ? kStateStable : 0) | (s.holdsData ? kStateHoldsData : 0) |
                                     (s.permission == Permission::Read ? kStateReader : 0) |
                                     (s.permission == Permission::ReadWrite ? kStateWriter : 0) |
                                     (s.leased ? kStateLeased : 0));
}

// The op's transition in `state` is a hit: see CompiledTable::hitOps. Only loads and stores can hit.
bool isHit(const ControllerTable& table, const Dispatch& d, int state, ProcessorOp op)
{
    if (op == ProcessorOp::Evict || d.kind != DispatchKind::Fire || d.next != state || !table.states[state].stable)
        return false;
    // It must perform the op: a self-loop with no action refuses it (sealed-lease's store to a sealed block).
    const ActionKind perform = op == ProcessorOp::Load ? ActionKind::PerformLoad : ActionKind::PerformStore;
    if (d.actionCount == 0)
        return false;
    for (int k = 0; k < d.actionCount; ++k)
        if (table.actions[d.firstAction + k].kind != perform)
            return false;
    return true;
}

DispatchKind dispatchKind(EntryKind kind)
{
    return kind == EntryKind::Fire    ? DispatchKind::Fire
           : kind == EntryKind::Stall ? DispatchKind::Stall
                                      : DispatchKind::Undefined;
}

} // namespace

Dispatch dispatchFor(const ControllerTable& table, int state, int event)
{
    const int index = table.index(state, event);
    const Transition& t = table.transitions[index];
    return {dispatchKind(t.kind), static_cast<std::uint8_t>(event), t.next, t.actionCount,
            t.firstAction,        static_cast<std::uint16_t>(index)};
}

static_assert(static_cast<int>(Guard::RequestorNoCopy) < 32, "guard truths are a 32-bit set");

CompiledTable compileTable(const ControllerTable& table, const Protocol& protocol)
{
    const int states = static_cast<int>(table.states.size());
    const int events = static_cast<int>(table.events.size());
    const int slots = static_cast<int>(table.byTrigger.size());
    if (states > kMaxStates || events > kMaxEvents || slots > kMaxSlots)
        throw std::logic_error(protocol.name + " " + table.name + ": more than " + std::to_string(kMaxStates) +
                               " states, " + std::to_string(kMaxEvents) + " events or " +
                               std::to_string(kMaxSlots - kProcessorOps) + " message types");
    CompiledTable c;
    for (int s = 0; s < states; ++s)
        c.stateFlags[s] = stateFlags(table.states[s]);

    int guarded = 0;
    for (int slot = 0; slot < slots; ++slot) {
        const TriggerEvents range = table.byTrigger[slot];
        c.guardedBySlot[slot] = {static_cast<std::uint8_t>(guarded), range.count};
        for (int k = 0; k < range.count; ++k) {
            const std::uint8_t event = table.eventOrder[range.first + k];
            const EventInfo& info = table.events[event];
            c.guarded[guarded++] = {guardBit(info.guards[0]) | guardBit(info.guards[1]), event};
            c.guardsUsed |= guardBit(info.guards[0]) | guardBit(info.guards[1]);
        }
    }

    for (int s = 0; s < states; ++s)
        for (int slot = 0; slot < slots; ++slot) {
            Dispatch& d = c.byTrigger[s * kMaxSlots + slot];
            const GuardedRange range = c.guardedBySlot[slot];
            if (range.count == 0)
                continue; // Unclassified
            const GuardedEvent& first = c.guarded[range.first];
            // The first event in declaration order wins; when it has no guard, it is the answer for every arrival.
            if (first.need != guardBit(Guard::None)) {
                d.kind = DispatchKind::Guarded;
                continue;
            }
            d = dispatchFor(table, s, first.event);
            if (slot < kProcessorOps && isHit(table, d, s, static_cast<ProcessorOp>(slot)))
                c.hitOps[s] |= static_cast<std::uint8_t>(1u << slot);
        }
    return c;
}

} // namespace coh::core::coherence
