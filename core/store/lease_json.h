#pragma once
// The run summary's "lease" block (coherence.lease): decode's reads of copies held under a lease, against the
// lease's time to live. Only runs whose leases expire carry it.
#include "core/engine/run_result.h"

#include <nlohmann/json.hpp>

namespace coh::core {

nlohmann::ordered_json toJson(const LeaseSummary& s);
// Missing or mistyped members read as 0 (ttl as -1, on_expiry as refetch), as the other summary blocks do.
LeaseSummary leaseFromJson(const nlohmann::ordered_json& j);

} // namespace coh::core
