#pragma once
// Whether a protocol grants leases: its cache table holds some copy under a lease that expires (a state
// TableBuilder::leased marked, as sealed-lease's R). Only then does coherence.lease have something to expire; the
// scenario's validation and the editor's lease fields both ask here.
#include "core/coherence/protocol_table.h"

#include <algorithm>

namespace coh::core::coherence {

inline bool grantsLeases(const Protocol& protocol)
{
    return std::any_of(protocol.cache.states.begin(), protocol.cache.states.end(),
                       [](const StateInfo& s) { return s.leased; });
}

} // namespace coh::core::coherence
