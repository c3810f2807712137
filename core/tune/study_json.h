#pragma once
// A study's result as JSON: `cohsim tune --json`, reports and tests read it.
#include "core/tune/study_result.h"
#include "core/tune/study_spec.h"

#include <nlohmann/json.hpp>

namespace coh::core {

nlohmann::ordered_json studyResultJson(const StudySpec& study, const StudyResult& result, unsigned threads);

// One point's metrics by name (every catalog metric).
nlohmann::ordered_json pointMetricsJson(const PointOutcome& point);

} // namespace coh::core
