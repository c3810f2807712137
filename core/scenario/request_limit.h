#pragma once
// A request limit written into a scenario's JSON, as the scenario loader reads it: a trace's "max_requests", a
// synthetic workload's "requests" (docs/scenario-format.md). The tuner's points and the screenshot tour's short runs
// both limit a scenario this way, before it is parsed.
#include <algorithm>
#include <cstdint>

namespace coh::core {

// Lowers the scenario's request count to at most `limit` (0: no limit). A trace's 0 (or none) replays all of it; a
// synthetic workload without a count has 100 requests. A count that is not a whole number is left as it is, for the
// scenario loader to name; so is a scenario without a workload object.
template <class Json> void limitScenarioRequests(Json& scenario, std::uint64_t limit)
{
    if (limit == 0 || !scenario.is_object() || !scenario.contains("workload") || !scenario["workload"].is_object())
        return;
    auto& workload = scenario["workload"];
    const bool trace = workload.contains("type") && workload["type"] == "trace";
    const char* key = trace ? "max_requests" : "requests";
    const auto it = workload.find(key);
    if (it != workload.end() && !it->is_number_unsigned())
        return;
    const std::uint64_t current = it == workload.end() ? 0 : it->template get<std::uint64_t>();
    const std::uint64_t n = current != 0 ? current : (trace ? UINT64_MAX : 100);
    workload[key] = std::min<std::uint64_t>(n, limit);
}

} // namespace coh::core
