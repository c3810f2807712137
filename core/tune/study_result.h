#pragma once
// What a study found: every evaluated point with its metrics and run, the Pareto front over the objectives, the
// best point under the constraints and what each parameter does to each objective.
#include "core/tune/study_point.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace coh::core {

struct PointOutcome {
    Point point;
    std::string key;            // scenarioKey of the resolved scenario
    std::uint32_t requests = 0; // the request limit it ran with; 0: the scenario's own (a full run)
    std::optional<std::int64_t> runId;
    std::string error;           // why it has no metrics: an invalid scenario, a failed run, an excluded combination
    bool excluded = false;       // matched an exclusion; never run
    bool cached = false;         // an identical point had run before (this study or another): not run again
    bool probe = false;          // one run of a capacity search; the point itself is the run the search chose
    std::vector<double> metrics; // parallel to metricCatalog(); empty when it has none

    bool measured() const { return !metrics.empty(); }
};

// What one parameter does to one objective, over the full-workload points that have metrics: the objective's
// mean for each value the parameter took (reals and wide integer ranges in up to five bins), and the spread of
// those means relative to the overall mean (0: no effect seen).
struct SensitivityRow {
    std::string parameter;                             // its pointer
    std::string objective;                             // its metric
    std::vector<std::pair<std::string, double>> means; // value (as JSON text, or a bin "[lo, hi]"), mean
    std::string bestValue;                             // the value whose mean is best in the objective's direction
    double relativeSpread = 0;                         // (max mean - min mean) / |overall mean|
};

struct StudyResult {
    std::int64_t studyId = 0; // 0: not stored
    std::vector<PointOutcome> points;
    std::vector<std::size_t> feasible; // full-workload points that have metrics and meet every constraint
    std::vector<std::size_t> front;    // of those, the non-dominated ones over the objectives
    std::optional<std::size_t> best;   // feasible point best in the first objective (ties: the next ones)
    std::vector<SensitivityRow> sensitivity;
    std::uint64_t ran = 0, cached = 0, invalid = 0, excluded = 0;
    // Capacity searches: the probes they ran, and what a bisection to the same tolerance would have run.
    std::uint64_t capacityProbes = 0, bisectionProbes = 0;
    double wallSeconds = 0;
};

} // namespace coh::core
