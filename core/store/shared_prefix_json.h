#pragma once
// The run summary's "shared_prefix" block (serving.shared_prefix): the prefix blocks many instances held, what
// decode found already held where it ran, and their traffic. Only runs that shared prefix blocks carry it.
#include "core/engine/run_result.h"

#include <nlohmann/json.hpp>

namespace coh::core {

nlohmann::ordered_json toJson(const SharedPrefixSummary& s);
// Missing or mistyped members read as 0, as the other summary blocks do; the block's presence means enabled.
SharedPrefixSummary sharedPrefixFromJson(const nlohmann::ordered_json& j);

} // namespace coh::core
