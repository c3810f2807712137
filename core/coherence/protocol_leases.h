#pragma once
// Whether a protocol grants leases: its cache table holds some copy under a lease that expires (a state
// TableBuilder::leased marked, as sealed-lease's R). Only then does coherence.lease have something to expire; the
// scenario's validation and the editor's lease fields both ask here.
#include "core/coherence/compiled_table.h"
#include "core/coherence/protocol_table.h"

#include <algorithm>

namespace coh::core::coherence {

inline bool grantsLeases(const Protocol& protocol)
{
    return std::any_of(protocol.cache.states.begin(), protocol.cache.states.end(),
                       [](const StateInfo& s) { return s.leased; });
}

// What a cache's step from state `from` to `to` did to its lease: put the copy under one, took it out of one, or
// neither. The KV path and the shared prefix blocks time their leases from here.
enum class LeaseChange : std::uint8_t { None, Granted, Ended };

inline LeaseChange leaseChange(const Protocol& protocol, std::uint8_t from, std::uint8_t to)
{
    const auto& flags = protocol.cache.compiled.stateFlags;
    const bool was = (flags[from] & kStateLeased) != 0;
    const bool is = (flags[to] & kStateLeased) != 0;
    return is == was ? LeaseChange::None : is ? LeaseChange::Granted : LeaseChange::Ended;
}

} // namespace coh::core::coherence
