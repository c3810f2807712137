#include "core/tune/study_json.h"

#include "core/tune/metric_catalog.h"
#include "core/tune/study_analysis.h"

#include <algorithm>

namespace coh::core {

using ojson = nlohmann::ordered_json;

ojson pointMetricsJson(const PointOutcome& point)
{
    ojson metrics = ojson::object();
    const auto& catalog = metricCatalog();
    for (std::size_t i = 0; i < catalog.size() && i < point.metrics.size(); ++i)
        metrics[catalog[i].name] = point.metrics[i];
    return metrics;
}

ojson studyResultJson(const StudySpec& study, const StudyResult& result, unsigned threads)
{
    const auto contains = [](const std::vector<std::size_t>& list, std::size_t i) {
        return std::find(list.begin(), list.end(), i) != list.end();
    };
    ojson points = ojson::array();
    for (std::size_t i = 0; i < result.points.size(); ++i) {
        const PointOutcome& p = result.points[i];
        ojson point = {{"params", pointParams(study, p.point)},
                       {"requests", p.requests},
                       {"run_id", p.runId ? ojson(*p.runId) : ojson()},
                       {"cached", p.cached},
                       {"probe", p.probe},
                       {"feasible", contains(result.feasible, i)},
                       {"front", contains(result.front, i)}};
        if (!p.error.empty())
            point["error"] = p.error;
        if (p.measured()) {
            point["violation"] = constraintViolation(study, p);
            point["metrics"] = pointMetricsJson(p);
        }
        points.push_back(std::move(point));
    }
    ojson objectives = ojson::array();
    for (const Objective& o : study.objectives)
        objectives.push_back({{"metric", o.metric}, {"direction", toString(o.direction)}});
    ojson sensitivity = ojson::array();
    for (const SensitivityRow& row : result.sensitivity) {
        ojson means = ojson::array();
        for (const auto& [value, mean] : row.means)
            means.push_back({{"value", value}, {"mean", mean}});
        sensitivity.push_back({{"parameter", row.parameter},
                               {"objective", row.objective},
                               {"relative_spread", row.relativeSpread},
                               {"best_value", row.bestValue},
                               {"means", std::move(means)}});
    }
    const double measured = static_cast<double>(result.ran);
    return ojson{{"study_id", result.studyId ? ojson(result.studyId) : ojson()},
                 {"name", study.name},
                 {"scenario", study.scenarioPath},
                 {"strategy", toString(study.strategy.kind)},
                 {"threads", threads},
                 {"objectives", std::move(objectives)},
                 {"counts",
                  {{"points", result.points.size()},
                   {"ran", result.ran},
                   {"cached", result.cached},
                   {"invalid", result.invalid},
                   {"excluded", result.excluded},
                   {"feasible", result.feasible.size()},
                   {"capacity_probes", result.capacityProbes},
                   {"bisection_probes", result.bisectionProbes}}},
                 {"wall_s", result.wallSeconds},
                 {"runs_per_s", result.wallSeconds > 0 ? measured / result.wallSeconds : 0.0},
                 {"front", result.front},
                 {"best", result.best ? ojson(*result.best) : ojson()},
                 {"sensitivity", std::move(sensitivity)},
                 {"points", std::move(points)}};
}

} // namespace coh::core
