// The tuner's study files, designs and analysis: what a study means before anything runs, and what a set of
// measured points means after.
#include "core/base/input_error.h"
#include "core/tune/metric_catalog.h"
#include "core/tune/point_designs.h"
#include "core/tune/study_analysis.h"
#include "core/tune/study_point.h"
#include "temp_dir.h"
#include "tune_fixtures.h"

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <set>

namespace coh::test {
namespace {

using core::InputError;
using core::InputProblem;
using nlohmann::json;

std::vector<InputProblem> studyProblems(const json& study)
{
    try {
        parseStudyJson(study);
    } catch (const InputError& e) {
        return e.problems();
    }
    ADD_FAILURE() << "expected an InputError";
    return {};
}

const InputProblem* findProblem(const std::vector<InputProblem>& problems, const std::string& field)
{
    for (const auto& p : problems)
        if (p.field == field)
            return &p;
    std::string all;
    for (const auto& p : problems)
        all += "\n  " + p.toString();
    ADD_FAILURE() << "no problem at " << field << "; reported:" << all;
    return nullptr;
}

TEST(TuneStudy, ASmallStudyReadsWithItsDefaults)
{
    const auto study = parseStudyJson(smallStudyJson());
    EXPECT_EQ(study.name, "small");
    ASSERT_EQ(study.parameters.size(), 2u);
    EXPECT_EQ(study.parameters[0].kind, core::ParameterKind::Categorical);
    EXPECT_EQ(study.objectives.size(), 2u);
    EXPECT_EQ(study.objectives[0].direction, core::Direction::Minimize);
    EXPECT_EQ(study.strategy.kind, core::StrategyKind::Grid);
    EXPECT_FALSE(study.halving.enabled());
    EXPECT_EQ(study.baseScenario.at("name"), "minimal");
}

TEST(TuneStudy, EveryMistakeIsNamedByItsFieldWithAFix)
{
    json study = smallStudyJson();
    study["parameters"][0]["values"] = {"msi-directory", "no-such-protocol"};
    study["parameters"][1] = {{"field", "serving/block_tokens"}, {"values", {16}}};
    study["objectives"] = {"tpot_p99", {{"metric", "goodput_req_s"}, {"direction", "up"}}};
    study["constraints"] = {{{"metric", "stale_reads"}}};
    study["strategy"] = {{"kind", "nsga2"}, {"population", 10}};
    study["exclude"] = {{{"/serving/router", "round_robin"}}};
    const auto problems = studyProblems(study);
    const auto* metric = findProblem(problems, "/objectives/0");
    ASSERT_TRUE(metric);
    EXPECT_NE(metric->fix.find("tpot_p99_ms"), std::string::npos) << metric->fix; // did you mean
    ASSERT_TRUE(findProblem(problems, "/objectives/1/direction"));
    ASSERT_TRUE(findProblem(problems, "/parameters/1/field"));
    ASSERT_TRUE(findProblem(problems, "/constraints/0/max"));
    const auto* population = findProblem(problems, "/strategy/population");
    ASSERT_TRUE(population);
    EXPECT_NE(population->fix.find("12"), std::string::npos);
    ASSERT_TRUE(findProblem(problems, "/exclude/0/~1serving~1router"));
    for (const auto& p : problems) {
        EXPECT_EQ(p.file, "mem/study.json");
        EXPECT_FALSE(p.fix.empty()) << p.toString();
    }
}

TEST(TuneStudy, AFieldTheScenarioHasNoPlaceForIsTheStudysMistake)
{
    // Each ran as a study whose every point was "invalid" (exit 0), or whose points all ran the base scenario.
    const std::vector<std::pair<std::string, std::string>> fields = {
        {"", "an empty field names the whole scenario"},
        {"/a~2b", "a '~' in it must be followed by 0"},
        {"/topology/nodes/99/id", "'99' is not an index of the"},
        {"/topology/nodes/-", "'-' is not an index of the"},
        {"/name/x", "passes through a string, not an object"},
        {"/", "names a member with an empty name"},
        {"/serving//block_tokens", "names a member with an empty name"},
    };
    for (const auto& [field, says] : fields) {
        json study = smallStudyJson();
        study["parameters"][1] = {{"field", field}, {"values", {1}}};
        const auto problems = studyProblems(study);
        const auto* p = findProblem(problems, "/parameters/1/field");
        ASSERT_TRUE(p) << field;
        EXPECT_NE(p->message.find(says), std::string::npos) << field << ": " << p->message;
        EXPECT_EQ(p->message.find("json.exception"), std::string::npos) << p->message;
        EXPECT_FALSE(p->fix.empty());
    }
}

TEST(TuneStudy, AValueTheScenarioRefusesIsNamedAtTheValue)
{
    json study = smallStudyJson();
    study["parameters"][1]["values"] = {16, -4};
    const auto problems = studyProblems(study);
    const auto* p = findProblem(problems, "/parameters/1/values/1");
    ASSERT_TRUE(p);
    EXPECT_NE(p->message.find("/serving/block_tokens"), std::string::npos) << p->message;
}

TEST(TuneStudy, CategoricalWithoutValuesHugeRangesAndImpossibleExclusionsAreRefused)
{
    json study = smallStudyJson();
    study["parameters"][0] = {{"field", "/coherence/decode"}, {"type", "categorical"}};
    study["parameters"][1] = {{"field", "/seed"}, {"type", "integer"}, {"min", 1}, {"max", 1e18}};
    ASSERT_TRUE(findProblem(studyProblems(study), "/parameters/0/values"));
    ASSERT_TRUE(findProblem(studyProblems(study), "/parameters/1/max"));

    study = smallStudyJson();
    study["exclude"] = {{{"/serving/block_tokens", {16, "32"}}}};
    const auto excluded = studyProblems(study);
    const auto* p = findProblem(excluded, "/exclude/0/~1serving~1block_tokens");
    ASSERT_TRUE(p);
    EXPECT_NE(p->message.find("\"32\""), std::string::npos) << p->message;

    // "set" is a known key even when the scenario cannot be read: only the scenario is named.
    study = smallStudyJson();
    study["scenario"] = "missing.json";
    study["set"] = {{"/seed", 3}};
    const auto problems = studyProblems(study);
    ASSERT_EQ(problems.size(), 1u) << problems[0].toString();
    EXPECT_EQ(problems[0].field, "/scenario");
}

TEST(TuneStudy, CapacityAtTheSloNeedsASearchOverAnUnvariedLoadField)
{
    json study = smallStudyJson();
    study["objectives"] = {"capacity_at_slo"};
    ASSERT_TRUE(findProblem(studyProblems(study), "/capacity"));
    study["capacity"] = {{"field", "/serving/block_tokens"}, {"min", 1}, {"max", 8}};
    ASSERT_TRUE(findProblem(studyProblems(study), "/capacity/field")); // varied by a parameter
    study["capacity"] = {{"field", "/workload/time_scale"}, {"min", 1}, {"max", 8}};
    ASSERT_TRUE(findProblem(studyProblems(study), "/capacity/field")); // not in a synthetic workload
    study["capacity"] = {{"field", "/workload/arrival/rate"}, {"min", 8}, {"max", 1}, {"tolerance", 2}};
    const auto problems = studyProblems(study);
    ASSERT_TRUE(findProblem(problems, "/capacity/max"));
    ASSERT_TRUE(findProblem(problems, "/capacity/tolerance"));
}

TEST(TuneStudy, AMissingScenarioAndAnOversizedGridAreRefused)
{
    json study = smallStudyJson();
    study["scenario"] = "no/such/scenario.json";
    ASSERT_TRUE(findProblem(studyProblems(study), "/scenario"));

    study = smallStudyJson();
    study["parameters"] = json::array();
    for (int i = 0; i < 6; ++i) // 10^6 points
        study["parameters"].push_back({{"field", "/seed"}, {"type", "integer"}, {"min", 1}, {"max", 10}});
    study["parameters"][0]["field"] = "/workload/requests";
    for (int i = 1; i < 6; ++i)
        study["parameters"][i]["field"] = "/x" + std::to_string(i);
    ASSERT_TRUE(findProblem(studyProblems(study), "/parameters"));
}

TEST(TuneStudy, GridValuesAndUnitCoordinatesCoverEachKind)
{
    core::Parameter integer;
    integer.kind = core::ParameterKind::Integer;
    integer.min = 1;
    integer.max = 7;
    integer.step = 3;
    EXPECT_EQ(integer.gridValues(), (std::vector<json>{1, 4, 7}));
    EXPECT_EQ(integer.valueAt(0.0), 1);
    EXPECT_EQ(integer.valueAt(0.5), 4);
    EXPECT_EQ(integer.valueAt(1.0), 7);

    core::Parameter logReal;
    logReal.kind = core::ParameterKind::LogReal;
    logReal.min = 0.01;
    logReal.max = 1;
    logReal.levels = 3;
    const auto values = logReal.gridValues();
    ASSERT_EQ(values.size(), 3u);
    EXPECT_DOUBLE_EQ(values[1].get<double>(), 0.1); // the geometric middle
    EXPECT_DOUBLE_EQ(logReal.valueAt(1.0).get<double>(), 1.0);
}

TEST(TuneStudy, TheGridIsEveryCombinationLastFieldFastest)
{
    const auto study = parseStudyJson(smallStudyJson());
    const auto points = core::gridPoints(study);
    ASSERT_EQ(points.size(), 6u);
    EXPECT_EQ(points[0].values, (std::vector<json>{"msi-directory", 16}));
    EXPECT_EQ(points[1].values, (std::vector<json>{"msi-directory", 32}));
    EXPECT_EQ(points[5].values, (std::vector<json>{"sealed-lease", 32}));
}

TEST(TuneStudy, ALatinHypercubeTakesEachStratumOnce)
{
    json j = smallStudyJson();
    j["parameters"] = {{{"field", "/serving/block_tokens"}, {"type", "integer"}, {"min", 1}, {"max", 8}},
                       {{"field", "/seed"}, {"type", "integer"}, {"min", 10}, {"max", 17}}};
    const auto study = parseStudyJson(j);
    const auto points = core::latinHypercubePoints(study, 8, 42);
    ASSERT_EQ(points.size(), 8u); // 8 strata per field, each used once: no two points alike
    std::set<json> first, second;
    for (const auto& p : points) {
        first.insert(p.values[0]);
        second.insert(p.values[1]);
    }
    EXPECT_EQ(first.size(), 8u);
    EXPECT_EQ(second.size(), 8u);
    EXPECT_EQ(core::latinHypercubePoints(study, 8, 42), points); // deterministic by seed
    EXPECT_NE(core::latinHypercubePoints(study, 8, 43), points);
}

TEST(TuneStudy, SobolPointsAreEvenAndSeeded)
{
    json j = smallStudyJson();
    j["parameters"] = {{{"field", "/workload/arrival/rate"}, {"type", "real"}, {"min", 1}, {"max", 9}},
                       {{"field", "/slo/ttft"}, {"type", "real"}, {"min", 1}, {"max", 9}}};
    const auto study = parseStudyJson(j);
    const auto points = core::sobolPoints(study, 16, 7);
    ASSERT_EQ(points.size(), 16u);
    // Sixteen Sobol points put one point in each of the 4 × 4 cells (a (0,4,2)-net), whatever the rotation does
    // to cells' order: count points per column and per row.
    std::map<int, int> columns, rows;
    for (const auto& p : points) {
        ++columns[static_cast<int>((p.values[0].get<double>() - 1) / 8 * 4)];
        ++rows[static_cast<int>((p.values[1].get<double>() - 1) / 8 * 4)];
    }
    for (int c = 0; c < 4; ++c) {
        EXPECT_EQ(columns[c], 4) << c;
        EXPECT_EQ(rows[c], 4) << c;
    }
    EXPECT_EQ(core::sobolPoints(study, 16, 7), points);
    EXPECT_NE(core::sobolPoints(study, 16, 8), points);
}

TEST(TuneStudy, ExclusionsAndDerivedFieldsShapeTheResolvedScenario)
{
    json j = smallStudyJson();
    j["derived"] = {{{"field", "/coherence/prefill"}, {"from", "/coherence/decode"}}};
    j["exclude"] = {{{"/coherence/decode", "sealed-lease"}, {"/serving/block_tokens", {16, 32}}}};
    const auto study = parseStudyJson(j);
    const core::Point lazy{{"lazy-causal", 32}};
    const core::Point sealed{{"sealed-lease", 16}};
    EXPECT_FALSE(core::isExcluded(study, lazy));
    EXPECT_TRUE(core::isExcluded(study, sealed));
    const json resolved = core::resolvePoint(study, lazy, 20);
    EXPECT_EQ(resolved.at("coherence").at("decode"), "lazy-causal");
    EXPECT_EQ(resolved.at("coherence").at("prefill"), "lazy-causal");
    EXPECT_EQ(resolved.at("serving").at("block_tokens"), 32);
    EXPECT_EQ(resolved.at("workload").at("requests"), 20);
    EXPECT_EQ(resolved.at("record").at("max_messages"), study.recordMessages);
    EXPECT_EQ(resolved.at("record").at("max_iterations"), 0); // none unless the study asks (record_iterations)
    auto recording = study;
    recording.recordIterations = 50;
    EXPECT_EQ(core::resolvePoint(recording, lazy, 20).at("record").at("max_iterations"), 50);
    // Keys: equal scenarios, equal keys; any field changed, another key.
    EXPECT_EQ(core::scenarioKey(resolved), core::scenarioKey(core::resolvePoint(study, lazy, 20)));
    EXPECT_NE(core::scenarioKey(resolved), core::scenarioKey(core::resolvePoint(study, lazy, 21)));
    EXPECT_NE(core::scenarioKey(resolved), core::scenarioKey(core::resolvePoint(study, {{"lazy-causal", 16}}, 20)));
    // A limit above the workload's own count changes nothing: the point's full run.
    EXPECT_EQ(core::resolvePoint(study, lazy, 500), core::resolvePoint(study, lazy, 0));
}

TEST(TuneStudy, APointsKeyNamesItsTraceFileAndWhatItsRunKeeps)
{
    TempDir dir("coh-tune-key");
    const std::string trace = dir.file("trace.csv");
    std::ofstream(trace) << "TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46.6805900,374,44\n";
    json j = smallStudyJson();
    j["scenario"] = scenarioFixture("trace_workload.json");
    j["set"] = {{"/workload/path", trace}};
    j["parameters"] = {{{"field", "/serving/block_tokens"}, {"values", {16, 32}}}};
    const auto study = parseStudyJson(j);
    const core::Point point{{16}};
    const json resolved = core::resolvePoint(study, point, 0);
    const auto scenario = core::parseScenario(resolved, study.scenarioPath);
    const std::string before = core::pointKey(study, resolved, &scenario);
    EXPECT_EQ(core::pointKey(study, resolved, &scenario), before);
    // The same scenario text over an edited trace is another point.
    std::ofstream(trace, std::ios::app) << "2023-11-16 18:15:47.0000000,100,10\n";
    EXPECT_NE(core::pointKey(study, resolved, &scenario), before);
    // As is one whose run keeps only its summary.
    auto summaryOnly = study;
    summaryOnly.keepRequests = false;
    EXPECT_NE(core::pointKey(summaryOnly, resolved, &scenario), core::pointKey(study, resolved, &scenario));
}

// Points with given objective values (the catalog's order is filled with zeros elsewhere).
core::PointOutcome measuredPoint(const core::StudySpec& study, std::vector<double> objectives, double staleReads = 0)
{
    core::PointOutcome p;
    p.point.values = {"msi-directory", 16};
    p.metrics.assign(core::metricCatalog().size(), 0.0);
    const auto& catalog = core::metricCatalog();
    for (std::size_t i = 0; i < catalog.size(); ++i) {
        for (std::size_t o = 0; o < study.objectives.size(); ++o)
            if (study.objectives[o].metric == catalog[i].name)
                p.metrics[i] = objectives[o];
        if (std::string(catalog[i].name) == "stale_reads")
            p.metrics[i] = staleReads;
    }
    return p;
}

TEST(TuneAnalysis, TheFrontIsTheNonDominatedFeasiblePointsAndBestIsLexicographic)
{
    json j = smallStudyJson();
    j["objectives"] = {"tpot_p99_ms", "goodput_req_s"}; // minimise, maximise
    j["constraints"] = {{{"metric", "stale_reads"}, {"max", 0}}};
    const auto study = parseStudyJson(j);
    core::StudyResult result;
    result.points = {
        measuredPoint(study, {10, 5}),    // 0: front
        measuredPoint(study, {12, 5}),    // 1: dominated by 0
        measuredPoint(study, {20, 9}),    // 2: front (more goodput)
        measuredPoint(study, {5, 20}, 3), // 3: dominates all but violates stale_reads <= 0
        measuredPoint(study, {20, 8}),    // 4: dominated by 2
        measuredPoint(study, {10, 5}),    // 5: equal to 0: also on the front
        measuredPoint(study, {15, 7}),    // 6: front
    };
    result.points.push_back(measuredPoint(study, {1, 100}));
    result.points.back().requests = 20; // a short screening run never counts
    core::PointOutcome failed;
    failed.error = "boom";
    result.points.push_back(failed);
    core::analyseStudy(study, result);
    EXPECT_EQ(result.feasible, (std::vector<std::size_t>{0, 1, 2, 4, 5, 6}));
    EXPECT_EQ(result.front, (std::vector<std::size_t>{0, 2, 5, 6}));
    ASSERT_TRUE(result.best);
    EXPECT_EQ(*result.best, 0u); // lowest TPOT; 5 ties and comes later
    EXPECT_GT(core::constraintViolation(study, result.points[3]), 0);
}

TEST(TuneAnalysis, NonDominatedSortingAgreesWithTheDefinition)
{
    const std::vector<std::vector<double>> v = {{1, 5}, {2, 2}, {5, 1}, {3, 3}, {6, 6}, {1, 6}};
    EXPECT_EQ(core::nonDominated(v), (std::vector<std::size_t>{0, 1, 2}));
    // One objective: the minima.
    EXPECT_EQ(core::nonDominated({{3}, {1}, {2}, {1}}), (std::vector<std::size_t>{1, 3}));
    // Ranking puts the first front first.
    const auto ranked = core::rankByDominance(v);
    const std::set<std::size_t> firstThree(ranked.begin(), ranked.begin() + 3);
    EXPECT_EQ(firstThree, (std::set<std::size_t>{0, 1, 2}));
    EXPECT_EQ(ranked.back(), 4u);
}

TEST(TuneAnalysis, SensitivityGroupsByValueAndFindsTheBest)
{
    const auto study = parseStudyJson(smallStudyJson());
    core::StudyResult result;
    for (const char* protocol : {"msi-directory", "lazy-causal"})
        for (int block : {16, 32}) {
            // TPOT depends on the block size only; bytes on the protocol only.
            auto p = measuredPoint(study,
                                   {block == 16 ? 10.0 : 20.0, std::string(protocol) == "lazy-causal" ? 300.0 : 100.0});
            p.point.values = {protocol, block};
            result.points.push_back(p);
        }
    core::analyseStudy(study, result);
    ASSERT_EQ(result.sensitivity.size(), 4u);
    const auto& protocolTpot = result.sensitivity[0];
    EXPECT_EQ(protocolTpot.parameter, "/coherence/decode");
    EXPECT_EQ(protocolTpot.objective, "tpot_p99_ms");
    EXPECT_DOUBLE_EQ(protocolTpot.relativeSpread, 0.0);
    const auto& protocolBytes = result.sensitivity[1];
    EXPECT_DOUBLE_EQ(protocolBytes.relativeSpread, 1.0); // (300 - 100) / 200
    EXPECT_EQ(protocolBytes.bestValue, "msi-directory");
    const auto& blockTpot = result.sensitivity[2];
    EXPECT_EQ(blockTpot.bestValue, "16");
    ASSERT_EQ(blockTpot.means.size(), 2u);
    EXPECT_DOUBLE_EQ(blockTpot.means[0].second, 10.0);
    EXPECT_DOUBLE_EQ(blockTpot.means[1].second, 20.0);
}

} // namespace
} // namespace coh::test
