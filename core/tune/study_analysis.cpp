#include "core/tune/study_analysis.h"

#include "core/tune/metric_catalog.h"

#include <pagmo/utils/multi_objective.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>

namespace coh::core {

namespace {

bool dominates(const std::vector<double>& a, const std::vector<double>& b)
{
    bool better = false;
    for (std::size_t i = 0; i < a.size(); ++i) {
        if (a[i] > b[i])
            return false;
        better = better || a[i] < b[i];
    }
    return better;
}

const Parameter* parameterOf(const StudySpec& study, std::size_t i)
{
    return i < study.parameters.size() ? &study.parameters[i] : nullptr;
}

// A value as a person reads it: a string without its quotes.
std::string valueLabel(const nlohmann::json& value)
{
    return value.is_string() ? value.get<std::string>() : value.dump();
}

// The group a value falls in: itself for categorical parameters and integer ranges of at most five values; else
// one of five equal bins of the range (of its logarithm for log_real).
std::string groupOf(const Parameter& p, const nlohmann::json& value)
{
    const bool few = p.kind == ParameterKind::Categorical ||
                     (p.kind == ParameterKind::Integer && (p.max - p.min) / static_cast<double>(p.step) < 5);
    if (few)
        return valueLabel(value);
    const double v = value.get<double>();
    const bool log = p.kind == ParameterKind::LogReal;
    const double lo = log ? std::log(p.min) : p.min, hi = log ? std::log(p.max) : p.max;
    const double t = ((log ? std::log(v) : v) - lo) / (hi - lo);
    const int bin = std::clamp(static_cast<int>(t * 5), 0, 4);
    const auto edge = [&](int b) {
        const double x = lo + (hi - lo) * b / 5.0;
        return log ? std::exp(x) : x;
    };
    return fmt::format("[{:.4g}, {:.4g}]", edge(bin), edge(bin + 1));
}

void fillSensitivity(const StudySpec& study, StudyResult& result)
{
    std::vector<std::size_t> full;
    for (std::size_t i = 0; i < result.points.size(); ++i)
        if (result.points[i].measured() && result.points[i].requests == 0 && !result.points[i].probe)
            full.push_back(i);
    if (full.size() < 2)
        return;
    for (std::size_t pi = 0; pi < study.parameters.size(); ++pi) {
        const Parameter& p = *parameterOf(study, pi);
        for (const Objective& objective : study.objectives) {
            std::map<std::string, std::pair<double, std::size_t>> sums; // group -> sum, count
            std::vector<std::string> order;
            double total = 0;
            for (const std::size_t i : full) {
                const std::string group = groupOf(p, result.points[i].point.values[pi]);
                auto [it, inserted] = sums.try_emplace(group, 0.0, 0);
                if (inserted)
                    order.push_back(group);
                const double v = metricValue(result.points[i], objective.metric);
                it->second.first += v;
                ++it->second.second;
                total += v;
            }
            SensitivityRow row;
            row.parameter = p.pointer;
            row.objective = objective.metric;
            // Groups in the parameter's own order: its values' order for categorical, ascending for numbers.
            if (p.kind != ParameterKind::Categorical)
                std::sort(order.begin(), order.end(), [&](const std::string& a, const std::string& b) {
                    const auto first = [](const std::string& g) {
                        return std::stod(g.front() == '[' ? g.substr(1) : g);
                    };
                    return first(a) < first(b);
                });
            else
                std::sort(order.begin(), order.end(), [&](const std::string& a, const std::string& b) {
                    const auto rank = [&](const std::string& g) {
                        for (std::size_t k = 0; k < p.values.size(); ++k)
                            if (valueLabel(p.values[k]) == g)
                                return k;
                        return p.values.size();
                    };
                    return rank(a) < rank(b);
                });
            double lo = std::numeric_limits<double>::infinity(), hi = -lo;
            for (const std::string& group : order) {
                const auto& [sum, count] = sums[group];
                const double mean = sum / static_cast<double>(count);
                row.means.emplace_back(group, mean);
                const bool better = objective.direction == Direction::Minimize ? mean < lo : mean > hi;
                if (better)
                    row.bestValue = group;
                lo = std::min(lo, mean);
                hi = std::max(hi, mean);
            }
            const double overall = total / static_cast<double>(full.size());
            row.relativeSpread = overall != 0 ? (hi - lo) / std::abs(overall) : (hi > lo ? 1.0 : 0.0);
            result.sensitivity.push_back(std::move(row));
        }
    }
}

} // namespace

double metricValue(const PointOutcome& point, const std::string& metric)
{
    return point.metrics.at(metricIndex(metric));
}

std::vector<double> minimisedObjectives(const StudySpec& study, const PointOutcome& point)
{
    std::vector<double> out;
    for (const Objective& o : study.objectives) {
        const double v = metricValue(point, o.metric);
        out.push_back(o.direction == Direction::Minimize ? v : -v);
    }
    return out;
}

double constraintViolation(const StudySpec& study, const PointOutcome& point)
{
    double violation = 0;
    for (const Constraint& c : study.constraints) {
        const double v = metricValue(point, c.metric);
        // Relative to the bound (absolute when the bound is 0), so constraints of different units add up.
        if (c.max && v > *c.max)
            violation += (v - *c.max) / std::max(1.0, std::abs(*c.max));
        if (c.min && v < *c.min)
            violation += (*c.min - v) / std::max(1.0, std::abs(*c.min));
    }
    return violation;
}

std::vector<std::size_t> nonDominated(const std::vector<std::vector<double>>& minimised)
{
    std::vector<std::size_t> front;
    if (minimised.empty())
        return front;
    if (minimised.front().size() >= 2 && minimised.size() >= 2) {
        const auto sorted = pagmo::fast_non_dominated_sorting(minimised);
        for (const auto i : std::get<0>(sorted).front())
            front.push_back(static_cast<std::size_t>(i));
        std::sort(front.begin(), front.end());
        return front;
    }
    for (std::size_t i = 0; i < minimised.size(); ++i)
        if (std::none_of(minimised.begin(), minimised.end(),
                         [&](const auto& other) { return dominates(other, minimised[i]); }))
            front.push_back(i);
    return front;
}

std::vector<std::size_t> rankByDominance(const std::vector<std::vector<double>>& minimised)
{
    std::vector<std::size_t> order(minimised.size());
    std::iota(order.begin(), order.end(), 0);
    if (minimised.size() < 2)
        return order;
    if (minimised.front().size() < 2) {
        std::stable_sort(order.begin(), order.end(), [&](auto a, auto b) { return minimised[a][0] < minimised[b][0]; });
        return order;
    }
    // pagmo's sort_population_mo: non-dominated fronts, then crowding distance within a front.
    const auto sorted = pagmo::sort_population_mo(minimised);
    return {sorted.begin(), sorted.end()};
}

void analyseStudy(const StudySpec& study, StudyResult& result)
{
    result.feasible.clear();
    result.front.clear();
    result.best.reset();
    result.sensitivity.clear();
    std::vector<std::vector<double>> objectives;
    for (std::size_t i = 0; i < result.points.size(); ++i) {
        const PointOutcome& p = result.points[i];
        if (p.measured() && p.requests == 0 && !p.probe && constraintViolation(study, p) == 0) {
            result.feasible.push_back(i);
            objectives.push_back(minimisedObjectives(study, p));
        }
    }
    for (const std::size_t k : nonDominated(objectives))
        result.front.push_back(result.feasible[k]);
    if (!result.feasible.empty()) {
        std::size_t best = 0;
        for (std::size_t k = 1; k < objectives.size(); ++k)
            if (objectives[k] < objectives[best]) // lexicographic: the first objective, then the next ones
                best = k;
        result.best = result.feasible[best];
    }
    fillSensitivity(study, result);
}

} // namespace coh::core
