#pragma once
// A real run and its model on other costs than the model's profile (compare-real's ON OWN COSTS and AT COSTS ±5%
// columns, kept with the runs: core/store/cost_variant.h): each metric's error on the real runs' own costs, and its
// range with the models' costs moved, judged as compare-real judges them (SimVsRealRow).
#include "core/compare/run_comparison.h"

#include <vector>

namespace coh::core {

// Fills MetricRow's own-cost and moved-cost figures and RunComparison::ownCosts and costSensitivity of `c`, a
// simulator-error comparison of `runs` (c.columns: the real runs, then their models, pair by pair), from what
// `runs` kept: own costs where every real run has them, moved costs where every model has the same factors.
void addCostVariantErrors(RunComparison& c, const std::vector<ComparedRun>& runs);

} // namespace coh::core
