#pragma once
// Runs for core::compareRuns as a store would hand them over (core/compare/run_comparison.h), for the comparison's
// tests in core and in the app.
#include "core/compare/run_comparison.h"

#include <stdexcept>
#include <string>
#include <vector>

namespace coh::test {

// A stored run of the default scenario on `backend`, modelling run `models` (0: none), as compare-real stores them,
// with what compare-real kept beside it (none: nothing).
inline core::ComparedRun comparedRun(std::int64_t id, const core::RunSummary& summary, const char* backend,
                                     std::int64_t models, const std::vector<core::CostVariant>* variants = nullptr)
{
    core::ComparedRun r;
    r.info.id = id;
    r.info.name = "default";
    r.info.scenarioName = "default";
    r.info.seed = 1;
    r.info.backend = backend;
    r.info.modelsRun = models;
    r.summary = &summary;
    r.costVariants = variants;
    return r;
}

// The comparison's row of the metric labelled `label`; throws when there is none.
inline const core::MetricRow& comparedRow(const core::RunComparison& c, const std::string& label)
{
    for (const auto& r : c.metrics)
        if (r.spec->label == label)
            return r;
    throw std::runtime_error("no row " + label);
}

} // namespace coh::test
