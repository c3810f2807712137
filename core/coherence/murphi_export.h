#pragma once
// Exports a protocol's tables as a Murphi model for Rumur: an independent check of the interpreter (BlockSystem)
// and the explorer. The model mirrors them step for step (guards in declaration order, actions in table order,
// Stall leaves the message in flight, point-to-point FIFO on ordered networks) and keeps the network in the
// explorer's canonical order, so for a clean protocol Rumur explores exactly as many states as `cohsim verify`.
// Invariants: SWMR, data-value (asserted at every PerformLoad and PerformLoadAtHome), no lost write, ack counters
// settled in stable states, and no deadlock; undefined entries and impossible actions are Murphi errors (protocol
// errors).
#include "core/coherence/protocol_table.h"

#include <string>

namespace coh::core::coherence {

struct MurphiOptions {
    int caches = 3;
    // Capacity of the modelled network. Rumur reports an error, never a silent cut, when a step would exceed it.
    // 0: 3 per cache, more than any shipped protocol keeps in flight.
    int maxMessages = 0;
};

// The model as Murphi source text. Throws InputError (fields --caches, --max-messages) for options out of range.
std::string exportMurphi(const Protocol& protocol, const MurphiOptions& options = {});

} // namespace coh::core::coherence
