#pragma once
// What the simulator gave for a real run and its model on costs other than the model's profile (compare-real's ON OWN
// COSTS and AT COSTS ±5% columns, docs/real-backend.md#sim-against-real): not runs of the scenario, but figures of
// the comparison, kept with the run they belong to (RunStore::storeCostVariants) so that Compare and reports of the
// stored pair show them too.
#include "core/engine/run_result.h"

#include <optional>
#include <string>
#include <vector>

namespace coh::core {

struct CostVariant {
    enum class Kind {
        OwnCosts,   // the simulator on a real run's own costs (real::ownCostProfile); kept with the real run
        MovedCosts, // the simulator on its model's profile with every cost `factor` times as long; kept with the model
    };
    Kind kind = Kind::OwnCosts;
    double factor = 1; // MovedCosts: every cost times this (real::withCostsScaled); 1 for OwnCosts
    RunSummary summary;
};

// The run's own-cost variant, or nullptr where none was kept.
const CostVariant* ownCostsOf(const std::vector<CostVariant>& variants);
// How far its moved costs went: the largest |factor - 1| of its moved variants; 0 where none were kept.
double movedCostSensitivity(const std::vector<CostVariant>& variants);

// "own_costs", "moved_costs": the store's words for them.
const char* toString(CostVariant::Kind kind);
std::optional<CostVariant::Kind> parseCostVariantKind(const std::string& text);

} // namespace coh::core
