#pragma once
// The study's multi-objective evolutionary search: pagmo2's NSGA-II over the unit cube of the study's parameters
// (each coordinate mapped by Parameter::valueAt), one generation at a time, every population evaluated as one
// batch on every core by the PointEvaluator.
#include "core/tune/point_evaluator.h"
#include "core/tune/study_spec.h"

#include <functional>
#include <string>
#include <vector>

namespace coh::core {

// Runs strategy.population × (strategy.generations + 1) evaluations (fewer runs where points repeat: the
// evaluator runs each once). Points that violate a constraint, fail or are excluded rank behind every feasible
// one, by how far they are outside the constraints. Deterministic for a given strategy.seed, so a resumed search
// asks for the same points and finds the finished ones stored.
// `measure` evaluates a batch of full-workload points (measurePoints: with the study's capacity search, if any).
using MeasureBatch = std::function<std::vector<PointOutcome>(const std::vector<Point>&, const std::string& stage)>;
void runNsga2(const StudySpec& study, PointEvaluator& evaluator, const MeasureBatch& measure);

} // namespace coh::core
