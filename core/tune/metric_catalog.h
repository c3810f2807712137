#pragma once
// The run metrics a study can optimise or constrain, by name: each with its unit, its natural direction and how
// it is read off a RunSummary, in one table (metric_catalog.cpp), so the parser, the tuner, the CLI and the
// GUI agree on what "tpot_p99_ms" means.
#include "core/engine/run_result.h"
#include "core/tune/study_spec.h"

#include <string>
#include <string_view>
#include <vector>

namespace coh::core {

struct MetricInfo {
    const char* name;
    const char* unit;
    Direction better; // the direction an objective on it takes unless the study says otherwise
    const char* meaning;
    double (*read)(const RunSummary&); // null: not a run's figure (capacity_at_slo, found by a search of runs)
};

const std::vector<MetricInfo>& metricCatalog();
const MetricInfo* findMetric(std::string_view name);
// The position of `name` in the catalog (and in a point's metrics); throws std::out_of_range for an unknown name.
std::size_t metricIndex(std::string_view name);
std::vector<std::string> metricNames();
// Every catalog metric of a run, in the catalog's order.
std::vector<double> readMetrics(const RunSummary& summary);

} // namespace coh::core
