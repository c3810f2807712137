#pragma once
// One point of a study's space: a value for each varied field, and the scenario it resolves to.
#include "core/scenario/scenario.h"
#include "core/tune/study_spec.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace coh::core {

struct Point {
    std::vector<nlohmann::json> values; // parallel to StudySpec::parameters
    std::optional<double> load;         // a capacity search's probe: the load field's value (StudySpec::capacity)
    bool operator==(const Point&) const = default;
};

// {"/coherence/decode": "lazy-causal", ...}: the point as the varied fields' pointers and values.
nlohmann::ordered_json pointParams(const StudySpec& study, const Point& point);

// Whether an exclusion of the study matches the point.
bool isExcluded(const StudySpec& study, const Point& point);

// The study's base scenario with the point's values, the derived fields, the study's record size and, when
// `requestLimit` > 0, that request limit (a synthetic workload's "requests" at most, a trace's "max_requests").
// Throws InputError naming the study file and the pointer when a value cannot be set.
nlohmann::json resolvePoint(const StudySpec& study, const Point& point, std::uint32_t requestLimit);

// The key the tuner caches a point by: its resolved scenario's (scenarioKey) together with the trace the scenario
// replays (its resolved path, size and modification time: another or an edited trace is another point) and what
// the point's stored run keeps ("keep"). `parsed` is the scenario read from `resolved`; null when it is invalid.
std::string pointKey(const StudySpec& study, const nlohmann::json& resolved, const Scenario* parsed);

// Identifies a resolved scenario: equal keys, equal runs (the simulator is deterministic by seed). A 128-bit
// hash of the canonical JSON text (keys sorted, no spaces), as 32 hex digits.
std::string scenarioKey(const nlohmann::json& resolved);

} // namespace coh::core
