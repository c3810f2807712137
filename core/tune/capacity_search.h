#pragma once
// Capacity at an SLO, per point (StudySpec::capacity): the highest load at which the study's share of requests
// meets both SLOs. Vidur binary-searches the rate of each configuration between fixed bounds; this search starts
// where the capacities already found lie (their median, a step of 25%; the first wave of points, as many as run at
// once, starts in the middle of the range), steps out until it holds a bracket, then interpolates on the attainment
// (regula falsi, Illinois variant, in log load) to the same relative tolerance. The points of a wave advance
// together, one probe each per round, so every round is one parallel batch.
#include "core/tune/point_evaluator.h"
#include "core/tune/study_result.h"
#include "core/tune/study_spec.h"

#include <cstdint>
#include <string>
#include <vector>

namespace coh::core {

struct CapacityCounts {
    std::uint64_t probes = 0;          // runs the searches asked for (some may have come from the store)
    std::uint64_t bisectionProbes = 0; // what bisections to the same tolerance would have asked for
    std::vector<double> found;         // the capacities found so far: later searches start at their median
};

// Runs a point is expected to cost: 1, or with a capacity search what a bisection would run (an upper bound of
// the search's own, for the progress's estimate of the time left).
std::uint64_t expectedRunsPerPoint(const StudySpec& study);

// The points' outcomes as the study's strategies see them: each point's run at its capacity, with
// capacity_at_slo set (0 when even the lightest load misses the attainment: then its run at that load), or the
// evaluator's outcomes directly when the study has no capacity search. Every probe stays in the evaluator's
// outcomes; the chosen ones are added to `finals`.
std::vector<PointOutcome> measurePoints(const StudySpec& study, PointEvaluator& evaluator,
                                        const std::vector<Point>& points, std::uint32_t requestLimit,
                                        const std::string& stage, std::vector<PointOutcome>& finals,
                                        CapacityCounts& counts);

} // namespace coh::core
