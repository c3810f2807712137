#pragma once
// A controller table laid out for the interpreter. The declared table (states and events with names, actions
// naming message types) is what people, docs and exporters read; a protocol step needs only indices and bits.
// TableBuilder::build() derives this form, like SLICC generating a controller from its table. Its arrays have
// fixed capacity and live inside the protocol, so from the protocol's address a step reaches the entry for
// (state, trigger) with one load, and that entry holds the next state and the range of the declared actions to
// run: the step's chain of dependent loads is as short as the table allows.
#include <array>
#include <cstdint>

namespace coh::core::coherence {

struct ControllerTable;
struct Protocol;

// Capacities of the compiled form; TableBuilder::build() rejects a table that exceeds them.
inline constexpr int kMaxStates = 32;
inline constexpr int kMaxSlots = 32; // processor ops + message types
inline constexpr int kMaxEvents = 64;

// State flags the checks and the interpreter read per step.
inline constexpr std::uint8_t kStateStable = 1;
inline constexpr std::uint8_t kStateHoldsData = 2;
inline constexpr std::uint8_t kStateReader = 4;  // Permission::Read
inline constexpr std::uint8_t kStateWriter = 8;  // Permission::ReadWrite
inline constexpr std::uint8_t kStateLeased = 16; // StateInfo::leased: the copy's lease expires

// What the table says for (state, trigger) before any guard is looked at.
enum class DispatchKind : std::uint8_t {
    // The first four have StepStatus's values (Done, Stalled, Undefined, Unclassified).
    Fire,         // the first event has no guard: the entry's transition fires
    Stall,        // the first event has no guard: the table says wait
    Undefined,    // the first event has no guard: no entry (a protocol error)
    Unclassified, // no event has this trigger
    Guarded,      // the first event has a guard: try the slot's events in declaration order
};

// One (state, trigger) cell: what it resolves to and, when it fires, what the step does.
struct Dispatch {
    DispatchKind kind = DispatchKind::Unclassified;
    std::uint8_t event = 0;
    std::uint8_t next = 0;
    std::uint8_t actionCount = 0;
    std::uint16_t firstAction = 0; // into ControllerTable::actions
    std::uint16_t transition = 0;  // index into ControllerTable::transitions
};

// A guarded event of a trigger. It is taken when every guard it names holds: (truths & need) == need, with
// truths the bit set of guards holding for this arrival (bit i: Guard i; Guard::None always holds).
struct GuardedEvent {
    std::uint32_t need = 0;
    std::uint8_t event = 0;
};

struct GuardedRange {
    std::uint8_t first = 0; // into CompiledTable::guarded
    std::uint8_t count = 0;
};

struct CompiledTable {
    std::array<Dispatch, kMaxStates * kMaxSlots> byTrigger{}; // [state * kMaxSlots + slot]
    std::array<GuardedRange, kMaxSlots> guardedBySlot{};
    std::array<GuardedEvent, kMaxEvents> guarded{};
    std::array<std::uint8_t, kMaxStates> stateFlags{}; // kState* bits
    // Per state, bit op (a ProcessorOp): the op is a hit there. Its transition fires in a stable state, stays in
    // it and does nothing but perform the op (PerformLoad / PerformStore): no message, no other change. The
    // table says so once here, so no driver re-reads a protocol's meaning beside it (BlockSystem::tryHit).
    std::array<std::uint8_t, kMaxStates> hitOps{};
    std::uint32_t guardsUsed = 0; // bit i: some event guards on Guard i, so the interpreter evaluates only those

    const Dispatch& onTrigger(int state, int slot) const { return byTrigger[state * kMaxSlots + slot]; }
    bool hits(int state, int op) const { return (hitOps[state] >> op) & 1u; }
};

// The cell for (state, event) of `table`, read from its declared transitions (the guarded path).
Dispatch dispatchFor(const ControllerTable& table, int state, int event);

// Derives the compiled form of `table`; `protocol` names it in errors. Throws
// std::logic_error when the table exceeds the capacities above.
CompiledTable compileTable(const ControllerTable& table, const Protocol& protocol);

} // namespace coh::core::coherence
