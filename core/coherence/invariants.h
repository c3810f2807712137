#pragma once
// The properties every protocol must keep, checked after every step by the lab and the explorer:
// single-writer/multiple-reader permissions, loads return the latest written value, the latest value is never
// lost, ack counters are settled in stable states, and no step is a protocol error.
#include "core/coherence/block_system.h"

#include <string>

namespace coh::core::coherence {

enum class Violation : std::uint8_t {
    None,
    ProtocolError, // an arrival or op with no transition, no matching event, or an impossible action
    Swmr,          // a writer coexists with another writer or a reader
    DataValue,     // a load returned something other than the latest written value
    LostWrite,     // the latest value is in no memory, valid cache copy or in-flight data message
    AckCounter,    // a cache in a stable state still counts acks
    Deadlock,      // nothing can be delivered, yet messages are in flight or a controller is transient
};

const char* violationName(Violation v);

// What the step itself broke (a protocol error or a stale load). No allocation.
Violation checkStep(const StepResult& step);
// What the state after a step breaks. No allocation.
Violation checkState(const BlockSystem& system);
// The same verdict as checkStep, then checkState, for a system that satisfied checkState before `step`: a step
// changes only its actor's line (or the directory), the messages and the latest value, so only what those can
// break is looked at. For runs, which check every step from a valid initial state; the explorer, the lab and
// anything handed an arbitrary state use the full checks.
Violation checkAfterStep(const BlockSystem& system, const StepResult& step);
// True when no message can be delivered (all stalled or none) but the block is not quiescent.
bool isDeadlocked(const BlockSystem& system);

// One sentence naming the nodes and states involved, for reports.
std::string describeViolation(Violation v, const BlockSystem& after, const StepResult* step);

} // namespace coh::core::coherence
