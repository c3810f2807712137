#pragma once
// The run summary's "kv_tiers" block (serving.kv_tiers): what each tier below HBM held and moved, and its
// occupancy as a step function. Only runs with tiers carry it; a summary without one had none.
#include "core/engine/run_result.h"

#include <nlohmann/json.hpp>

namespace coh::core {

nlohmann::ordered_json toJson(const KvTiersSummary& s);
// Missing or mistyped members read as 0 / empty, as the other summary blocks do.
KvTiersSummary kvTiersFromJson(const nlohmann::ordered_json& j);

} // namespace coh::core
