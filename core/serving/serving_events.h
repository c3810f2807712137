#pragma once
// The serving engine's events and their same-instant priority classes: the one place that says in which order
// things that happen in the same nanosecond are handled (core/sim/event.h has the mechanism). Every shipped
// scenario under every protocol runs its events in the same order as when ties went by scheduling order alone:
// the classes name the order the engine relied on, they did not change it.
#include "core/sim/event.h"

#include <cstdint>

namespace coh::core {

// First to last within one instant; within a class, events run in the order they were scheduled.
enum class ServingEventClass : std::uint8_t {
    // Messages and flows. What arrives at t is visible to everything else at t (an iteration that ends at t
    // takes KV that landed at t), and flows that drained by t leave their links before anything at t sends.
    // FlowNetwork also solves a burst of same-instant sends in one wake of this kind; a sender of a later class
    // at that instant then solves again (one more wake). No shipped scenario meets that; giving the burst wake a
    // kind of its own after BatchStart would remove it.
    Network = 0,
    // Iterations ending. A prefill or decode step that ends at t hands on its requests and frees its device,
    // KV blocks and load before the instant places new work.
    Completion = 1,
    // Requests arriving. The policy routes them on the loads the instant's completions left, and a prefill they
    // start on a shared device claims it before a decode kick of the same instant (prefill goes first there).
    Arrival = 2,
    // Starting a decode iteration for KV that became ready: after everything else of the instant, so the KV of
    // several requests landing in one instant joins one batch instead of the first starting it alone.
    BatchStart = 3,
    // Progress reports change nothing; they see the instant once it has settled.
    Observer = 4,
};

constexpr std::uint32_t servingEvent(ServingEventClass priority, std::uint32_t id)
{
    return eventKind(static_cast<std::uint8_t>(priority), id);
}

// The handler switches on the id (eventKindId), which stays dense.
enum ServingEventId : std::uint32_t {
    ArrivalId,
    PrefillDoneId,
    DecodeKickId,
    DecodeDoneId,
    NetWakeId,
    NetDeliverId,
    HeartbeatId,
    FailureId,
    FailureDetectId,
    FailureRepairId
};

namespace serving_event {
inline constexpr std::uint32_t NetDeliver = servingEvent(ServingEventClass::Network, NetDeliverId);
inline constexpr std::uint32_t NetWake = servingEvent(ServingEventClass::Network, NetWakeId);
inline constexpr std::uint32_t PrefillDone = servingEvent(ServingEventClass::Completion, PrefillDoneId);
inline constexpr std::uint32_t DecodeDone = servingEvent(ServingEventClass::Completion, DecodeDoneId);
inline constexpr std::uint32_t Arrival = servingEvent(ServingEventClass::Arrival, ArrivalId);
inline constexpr std::uint32_t DecodeKick = servingEvent(ServingEventClass::BatchStart, DecodeKickId);
inline constexpr std::uint32_t Heartbeat = servingEvent(ServingEventClass::Observer, HeartbeatId);
// A node or link failing, being declared dead, coming back: with the instant's completions (an iteration that ends at
// the instant of the failure is done; the failure takes what is left).
inline constexpr std::uint32_t Failure = servingEvent(ServingEventClass::Completion, FailureId);
inline constexpr std::uint32_t FailureDetect = servingEvent(ServingEventClass::Completion, FailureDetectId);
inline constexpr std::uint32_t FailureRepair = servingEvent(ServingEventClass::Completion, FailureRepairId);
} // namespace serving_event

} // namespace coh::core
