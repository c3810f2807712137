#pragma once
// The run summary's "backend" block: which real backend executed the run, what each topology node ran on, and
// what the real copies measured. Simulated runs carry no block (a summary without one is simulated).
#include "core/engine/run_result.h"

#include <nlohmann/json.hpp>

namespace coh::core {

nlohmann::ordered_json toJson(const BackendSummary& s);
// Missing or mistyped members read as 0 / empty, as the other summary blocks do.
BackendSummary backendFromJson(const nlohmann::ordered_json& j);

} // namespace coh::core
