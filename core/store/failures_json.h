#pragma once
// The run summary's "failures" block (the scenario's "failures" section): each node failure, what the failures took
// and how the requests recovered, and the serving instances up over time. Only runs with failures carry it.
#include "core/engine/run_result.h"

#include <nlohmann/json.hpp>

namespace coh::core {

nlohmann::ordered_json toJson(const FailuresSummary& s);
// Missing or mistyped members read as 0 / empty, as the other summary blocks do.
FailuresSummary failuresFromJson(const nlohmann::ordered_json& j);

} // namespace coh::core
