#include "core/tune/study_runner.h"

#include "core/scenario/scenario_loader.h"
#include "core/serving/run_options.h"
#include "core/tune/capacity_search.h"
#include "core/tune/nsga2_search.h"
#include "core/tune/point_designs.h"
#include "core/tune/study_analysis.h"
#include "core/tune/study_parser.h"
#include "core/workload/workload_builder.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <functional>

namespace coh::core {

namespace {

// How many requests the base scenario runs: its workload built once (a trace replayed whole has as many as rows).
std::uint32_t fullRequests(const StudySpec& study)
{
    const Scenario base = parseScenario(study.baseScenario, study.scenarioPath);
    return static_cast<std::uint32_t>(buildWorkload(base.workload, base.seed).requests.size());
}

// Successive halving: all points on the shortest rung, then the best 1/eta of those measured (by dominance rank,
// infeasible and failed points last) on the next, up to the full workload.
void runHalving(const StudySpec& study, PointEvaluator& evaluator, const std::vector<Point>& design,
                const std::function<std::vector<PointOutcome>(const std::vector<Point>&, std::uint32_t,
                                                              const std::string&)>& measure)
{
    const auto rungs = halvingRungs(study.halving, fullRequests(study));
    std::vector<Point> candidates = design;
    std::uint64_t expected = 0;
    for (std::size_t r = 0, n = candidates.size(); r < rungs.size();
         ++r, n = std::max<std::size_t>(1, n / study.halving.eta))
        expected += n;
    evaluator.setExpectedTotal(expected * expectedRunsPerPoint(study));
    for (std::size_t r = 0; r < rungs.size(); ++r) {
        const std::string stage =
            rungs[r] ? fmt::format("{} requests (rung {} of {})", rungs[r], r + 1, rungs.size()) : "full workload";
        const auto outcomes = measure(candidates, rungs[r], stage);
        if (r + 1 == rungs.size())
            break;
        std::vector<std::size_t> measured, rest;
        std::vector<std::vector<double>> objectives;
        for (std::size_t i = 0; i < outcomes.size(); ++i) {
            if (outcomes[i].measured() && constraintViolation(study, outcomes[i]) == 0) {
                measured.push_back(i);
                objectives.push_back(minimisedObjectives(study, outcomes[i]));
            } else if (outcomes[i].measured()) {
                rest.push_back(i);
            }
        }
        // Infeasible points after feasible ones, least violating first.
        std::stable_sort(rest.begin(), rest.end(), [&](std::size_t a, std::size_t b) {
            return constraintViolation(study, outcomes[a]) < constraintViolation(study, outcomes[b]);
        });
        std::vector<std::size_t> ranked;
        for (const std::size_t k : rankByDominance(objectives))
            ranked.push_back(measured[k]);
        ranked.insert(ranked.end(), rest.begin(), rest.end());
        const std::size_t keep = std::max<std::size_t>(1, candidates.size() / study.halving.eta);
        std::vector<Point> next;
        for (std::size_t k = 0; k < ranked.size() && next.size() < keep; ++k)
            next.push_back(outcomes[ranked[k]].point);
        if (next.empty())
            break; // nothing on this rung could be measured
        candidates = std::move(next);
    }
}

} // namespace

std::vector<std::uint32_t> halvingRungs(const HalvingSpec& halving, std::uint32_t full)
{
    std::vector<std::uint32_t> rungs;
    if (!halving.enabled())
        return {0};
    for (std::uint64_t n = halving.minRequests; n < full; n *= halving.eta)
        rungs.push_back(static_cast<std::uint32_t>(n));
    rungs.push_back(0);
    return rungs;
}

StudyResult runStudy(const StudySpec& study, RunStore* store, const EvaluatorOptions& options)
{
    const auto started = std::chrono::steady_clock::now();
    StudyResult result;
    if (store)
        result.studyId = store->openStudy(study.name, studyHash(study), study.canonicalJson);
    PointEvaluator evaluator(study, store, result.studyId, options);
    // Every strategy measures through here: with the study's capacity search, each point is its run at capacity.
    std::vector<PointOutcome> finals;
    CapacityCounts capacity;
    const auto measure = [&](const std::vector<Point>& points, std::uint32_t limit, const std::string& stage) {
        return measurePoints(study, evaluator, points, limit, stage, finals, capacity);
    };
    const auto end = [&](RunStatus status, const std::string& why) {
        if (!store)
            return;
        try {
            store->endStudy(result.studyId, status, why);
        } catch (const std::exception&) {
            // The study's own error is the news; the row reads Interrupted on the next open.
        }
    };
    try {
        if (study.strategy.kind == StrategyKind::Nsga2) {
            runNsga2(study, evaluator, [&](const std::vector<Point>& points, const std::string& stage) {
                return measure(points, 0, stage);
            });
        } else {
            const auto design = designPoints(study);
            if (study.halving.enabled()) {
                runHalving(study, evaluator, design, measure);
            } else {
                evaluator.setExpectedTotal(design.size() * expectedRunsPerPoint(study));
                measure(design, 0, "full workload");
            }
        }
    } catch (const RunCancelled&) {
        end(RunStatus::Cancelled, "cancelled by the user; run the study again to resume it");
        throw;
    } catch (const std::exception& e) {
        end(RunStatus::Failed, e.what());
        throw;
    }
    if (store)
        store->endStudy(result.studyId, RunStatus::Completed);
    result.points = evaluator.outcomes();
    if (study.capacity.enabled()) {
        // Every run was a probe; the points are the runs their searches chose.
        for (PointOutcome& p : result.points)
            p.probe = true;
        result.points.insert(result.points.end(), finals.begin(), finals.end());
        result.capacityProbes = capacity.probes;
        result.bisectionProbes = capacity.bisectionProbes;
    }
    for (const PointOutcome& p : result.points) {
        if (study.capacity.enabled() && !p.probe)
            continue; // counted as the probe it copies
        if (p.excluded)
            ++result.excluded;
        else if (!p.measured())
            ++result.invalid;
        if (p.cached)
            ++result.cached;
        else if (p.measured())
            ++result.ran;
    }
    analyseStudy(study, result);
    result.wallSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    return result;
}

} // namespace coh::core
