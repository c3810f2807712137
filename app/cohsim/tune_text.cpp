// What `cohsim tune` (and cohsim-tune-mpi) print of a study's result: the counts, the Pareto front as a table,
// the best point under the constraints and the sensitivity summary.
#include "app/cohsim/tune_text.h"

#include "core/tune/metric_catalog.h"
#include "core/tune/study_analysis.h"

#include <fmt/format.h>

#include <algorithm>

namespace coh::cli {

namespace {

std::string valueText(const nlohmann::json& v)
{
    if (v.is_string())
        return v.get<std::string>();
    if (v.is_number_float())
        return fmt::format("{:.4g}", v.get<double>());
    return v.dump();
}

std::string lastToken(const std::string& pointer)
{
    return pointer.substr(pointer.rfind('/') + 1);
}

void printFront(const core::StudySpec& study, const core::StudyResult& result)
{
    std::vector<std::string> header = {"run"};
    for (const auto& p : study.parameters)
        header.push_back(lastToken(p.pointer));
    for (const auto& o : study.objectives)
        header.push_back(fmt::format("{} {}", o.metric, o.direction == core::Direction::Minimize ? "↓" : "↑"));
    std::vector<std::vector<std::string>> rows;
    for (const std::size_t i : result.front) {
        const auto& p = result.points[i];
        std::vector<std::string> row = {p.runId ? std::to_string(*p.runId) : "-"};
        for (const auto& v : p.point.values)
            row.push_back(valueText(v));
        for (const auto& o : study.objectives)
            row.push_back(fmt::format("{:.4g}", core::metricValue(p, o.metric)));
        rows.push_back(std::move(row));
    }
    std::vector<std::size_t> width(header.size());
    for (std::size_t c = 0; c < header.size(); ++c) {
        width[c] = header[c].size();
        for (const auto& row : rows)
            width[c] = std::max(width[c], row[c].size());
    }
    const auto line = [&](const std::vector<std::string>& cells) {
        std::string text = " ";
        for (std::size_t c = 0; c < cells.size(); ++c)
            text += fmt::format(" {:<{}}", cells[c], width[c]);
        fmt::print("{}\n", text);
    };
    line(header);
    for (const auto& row : rows)
        line(row);
}

} // namespace

void printStudyResult(const core::StudySpec& study, const core::StudyResult& result, unsigned threads)
{
    fmt::print("Study {}: {} ({}, {} threads)\n", result.studyId ? std::to_string(result.studyId) : "(not stored)",
               study.name, core::toString(study.strategy.kind), threads);
    fmt::print("  points {}: ran {}, from the store {}, invalid {}, excluded {}; {:.1f} s, {:.2f} runs/s\n",
               result.points.size(), result.ran, result.cached, result.invalid, result.excluded, result.wallSeconds,
               result.wallSeconds > 0 ? result.ran / result.wallSeconds : 0.0);
    if (study.capacity.enabled())
        fmt::print("  capacity at {:.0f}% SLO attainment over {}: {} runs searched it (a bisection to the same "
                   "{:.1f}% would have run {})\n",
                   100 * study.capacity.attainment, study.capacity.field, result.capacityProbes,
                   100 * study.capacity.tolerance, result.bisectionProbes);
    if (result.feasible.empty()) {
        fmt::print("No full-workload point met every constraint.\n");
    } else {
        fmt::print("Pareto front: {} of {} feasible points\n", result.front.size(), result.feasible.size());
        printFront(study, result);
    }
    if (result.best) {
        const auto& best = result.points[*result.best];
        std::string params;
        for (std::size_t i = 0; i < study.parameters.size(); ++i)
            params += fmt::format("{}{}={}", i ? ", " : "", lastToken(study.parameters[i].pointer),
                                  valueText(best.point.values[i]));
        fmt::print("Best under the constraints (by {}): run {}: {}\n", study.objectives.front().metric,
                   best.runId ? std::to_string(*best.runId) : "-", params);
    }
    if (!result.sensitivity.empty()) {
        fmt::print(
            "What each parameter does (spread of the objective's mean over its values, relative to the mean):\n");
        for (const auto& row : result.sensitivity) {
            std::string means;
            for (const auto& [value, mean] : row.means)
                means += fmt::format("{}{} {:.4g}", means.empty() ? "" : ", ", value, mean);
            fmt::print("  {} → {}: {:.0f}%, best {} ({})\n", row.parameter, row.objective, 100 * row.relativeSpread,
                       row.bestValue, means);
        }
    }
}

} // namespace coh::cli
