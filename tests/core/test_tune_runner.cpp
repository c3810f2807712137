// The tuner running studies: grid points equal the scenarios run one by one, identical points run once (in a
// study, across studies, after a cancel), successive halving screens, NSGA-II is deterministic, and threads
// change nothing but the time.
#include "core/scenario/datasets_dir.h"
#include "core/scenario/json_reader.h"
#include "core/scenario/scenario_loader.h"
#include "core/scenario/scenario_overrides.h"
#include "core/serving/serving_engine.h"
#include "core/tune/metric_catalog.h"
#include "core/tune/study_analysis.h"
#include "core/tune/study_point.h"
#include "core/tune/study_runner.h"
#include "core/workload/workload_builder.h"
#include "temp_dir.h"
#include "tune_fixtures.h"

#include <SQLiteCpp/Database.h>
#include <gtest/gtest.h>

#include <map>
#include <set>

namespace coh::test {
namespace {

using nlohmann::json;

core::EvaluatorOptions threads(unsigned n)
{
    core::EvaluatorOptions options;
    options.threads = n;
    return options;
}

std::map<std::string, std::vector<double>> metricsByKey(const core::StudyResult& result)
{
    std::map<std::string, std::vector<double>> out;
    for (const auto& p : result.points)
        out[p.key] = p.metrics;
    return out;
}

TEST(TuneRunner, GridPointsEqualTheScenariosRunOneByOne)
{
    const auto study = parseStudyJson(smallStudyJson());
    const auto result = core::runStudy(study, nullptr, threads(2));
    ASSERT_EQ(result.points.size(), 6u);
    EXPECT_EQ(result.ran, 6u);
    for (const auto& p : result.points) {
        ASSERT_TRUE(p.measured()) << p.error;
        // The same point the way a user would run it: the scenario file and `cohsim run --set`.
        json root = core::readJsonFile(scenarioFixture("minimal.json"));
        core::applyOverride(root, "/coherence/decode=" + p.point.values[0].get<std::string>(), "minimal.json");
        core::applyOverride(root, "/serving/block_tokens=" + p.point.values[1].dump(), "minimal.json");
        core::applyOverride(root, "/record/max_messages=" + std::to_string(study.recordMessages), "minimal.json");
        const auto scenario = core::parseScenario(root, scenarioFixture("minimal.json"));
        const auto run = core::runScenario(scenario, core::buildWorkload(scenario.workload, scenario.seed));
        const auto expected = core::readMetrics(run.summary);
        ASSERT_EQ(p.metrics.size(), expected.size());
        for (std::size_t m = 0; m < expected.size(); ++m)
            EXPECT_EQ(p.metrics[m], expected[m]) << core::metricCatalog()[m].name << " at " << p.point.values[0];
    }
    // The protocols differ in what they send: the study saw it.
    EXPECT_NE(result.points[0].metrics, result.points[2].metrics);
}

TEST(TuneRunner, ATraceReadOnceAndScaledEqualsTheTraceReadAtThatPace)
{
    // The evaluator reads a trace once and scales its arrivals per point; the result must be the reader's own.
    json j = smallStudyJson();
    j["scenario"] = core::datasetsDir() + "/scenarios/default.json";
    j["set"] = {{"/workload/max_requests", 40}};
    j["parameters"] = {{{"field", "/workload/time_scale"}, {"values", {0.05, 0.1, 1}}}};
    const auto study = parseStudyJson(j);
    const auto result = core::runStudy(study, nullptr, threads(2));
    ASSERT_EQ(result.points.size(), 3u);
    for (const auto& p : result.points) {
        ASSERT_TRUE(p.measured()) << p.error;
        const auto scenario =
            core::parseScenario(core::resolvePoint(study, p.point, 0), core::datasetsDir() + "/scenarios/default.json");
        const auto run = core::runScenario(scenario, core::buildWorkload(scenario.workload, scenario.seed));
        EXPECT_EQ(p.metrics, core::readMetrics(run.summary)) << p.point.values[0];
    }
    EXPECT_NE(result.points[0].metrics, result.points[2].metrics);
}

TEST(TuneRunner, OneThreadAndTwoGiveTheSameResults)
{
    const auto study = parseStudyJson(smallStudyJson());
    const auto one = core::runStudy(study, nullptr, threads(1));
    const auto two = core::runStudy(study, nullptr, threads(2));
    EXPECT_EQ(metricsByKey(one), metricsByKey(two));
    EXPECT_EQ(one.front, two.front);
    EXPECT_EQ(one.best, two.best);
}

TEST(TuneRunner, PointsAreStoredAsRunsAndAStudyRunAgainRunsNothing)
{
    TempDir dir("coh-tune");
    const auto study = parseStudyJson(smallStudyJson());
    core::RunStore store(dir.file("runs.db"));
    const auto first = core::runStudy(study, &store, threads(2));
    EXPECT_EQ(first.ran, 6u);
    EXPECT_EQ(store.listRuns().size(), 6u);
    const auto info = store.studyInfo(first.studyId);
    ASSERT_TRUE(info);
    EXPECT_EQ(info->status, core::RunStatus::Completed);
    const auto points = store.studyPoints(first.studyId);
    ASSERT_EQ(points.size(), 6u);
    for (const auto& p : points) {
        ASSERT_TRUE(p.runId);
        EXPECT_EQ(store.runInfo(*p.runId)->status, core::RunStatus::Completed);
        EXPECT_EQ(json::parse(p.paramsJson).size(), 2u);
    }

    const auto again = core::runStudy(study, &store, threads(2));
    EXPECT_EQ(again.studyId, first.studyId); // the same study, resumed
    EXPECT_EQ(again.ran, 0u);
    EXPECT_EQ(again.cached, 6u);
    EXPECT_EQ(store.listRuns().size(), 6u);
    EXPECT_EQ(metricsByKey(again), metricsByKey(first));
    EXPECT_EQ(again.front, first.front);

    // Another study sharing two of the points runs only the new ones.
    json other = smallStudyJson();
    other["name"] = "other";
    other["parameters"][0]["values"] = {"msi-directory", "mesi-directory"};
    const auto second = core::runStudy(parseStudyJson(other), &store, threads(2));
    EXPECT_NE(second.studyId, first.studyId);
    EXPECT_EQ(second.cached, 2u);
    EXPECT_EQ(second.ran, 2u);
    EXPECT_EQ(store.listRuns().size(), 8u);
}

// Runs one task at a time on the calling thread, the next only once the last is stored: a cancel from the progress
// callback then stops the study at a known point (a worker thread can run ahead of the stores under load).
class OneAtATimeExecutor final : public core::PointExecutor {
  public:
    unsigned concurrency() const override { return 1; }
    void run(const std::vector<core::PointTask>& tasks, const std::function<void(core::PointTaskResult&)>& finished,
             const std::function<void()>& idle, std::atomic<bool>& halt) override
    {
        for (std::size_t i = 0; i < tasks.size() && !halt.load(); ++i) {
            core::PointTaskResult result = core::runPointTask(*tasks[i].scenario, *tasks[i].workload, halt);
            result.task = i;
            finished(result);
            idle();
        }
    }
};

TEST(TuneRunner, ACancelLeavesAConsistentStudyThatResumes)
{
    TempDir dir("coh-tune");
    const auto study = parseStudyJson(smallStudyJson());
    core::RunStore store(dir.file("runs.db"));
    std::atomic<bool> cancel{false};
    OneAtATimeExecutor oneAtATime;
    core::EvaluatorOptions options = threads(1);
    options.executor = &oneAtATime;
    options.cancel = &cancel;
    options.progress = [&](const core::StudyProgress& p) {
        if (p.done >= 2)
            cancel = true;
    };
    std::int64_t studyId = 0;
    EXPECT_THROW(core::runStudy(study, &store, options), core::RunCancelled);
    const auto studies = store.listStudies();
    ASSERT_EQ(studies.size(), 1u);
    studyId = studies[0].id;
    EXPECT_EQ(studies[0].status, core::RunStatus::Cancelled);
    // Every stored point has a completed run; no run is left Running.
    const auto points = store.studyPoints(studyId);
    EXPECT_EQ(points.size(), 2u);
    for (const auto& p : points) {
        ASSERT_TRUE(p.runId);
        EXPECT_EQ(store.runInfo(*p.runId)->status, core::RunStatus::Completed);
    }
    for (const auto& run : store.listRuns())
        EXPECT_EQ(run.status, core::RunStatus::Completed);

    const auto resumed = core::runStudy(study, &store, threads(2));
    EXPECT_EQ(resumed.studyId, studyId);
    EXPECT_EQ(resumed.cached, points.size());
    EXPECT_EQ(resumed.ran, 6u - points.size());
    EXPECT_EQ(store.listRuns().size(), 6u); // none ran twice
    EXPECT_EQ(store.studyInfo(studyId)->status, core::RunStatus::Completed);
}

TEST(TuneRunner, ExcludedAndInvalidPointsAreReportedNotRun)
{
    json j = smallStudyJson();
    j["exclude"] = {{{"/coherence/decode", "sealed-lease"}}};
    // A replication factor above the scenario's node count is a scenario the loader refuses: that point is
    // invalid, with the loader's words, and the others run.
    j["parameters"][1] = {{"field", "/serving/replication"}, {"values", {json{{"factor", 1}}, json{{"factor", 9}}}}};
    const auto study = parseStudyJson(j);
    const auto result = core::runStudy(study, nullptr, threads(2));
    EXPECT_EQ(result.excluded, 2u);
    EXPECT_EQ(result.invalid, 2u);
    EXPECT_EQ(result.ran, 2u);
    for (const auto& p : result.points) {
        if (!p.measured() && !p.excluded) {
            EXPECT_NE(p.error.find("replication"), std::string::npos) << p.error;
        }
    }
}

TEST(TuneRunner, AFailedRunIsTriedAgainAnInvalidScenarioIsNot)
{
    TempDir dir("coh-tune");
    core::RunStore store(dir.file("runs.db"));
    json j = smallStudyJson();
    j["parameters"] = {{{"field", "/serving/replication"}, {"values", {json{{"factor", 1}}, json{{"factor", 9}}}}}};
    const auto study = parseStudyJson(j);
    const auto first = core::runStudy(study, &store, threads(1));
    EXPECT_EQ(first.invalid, 1u);
    const auto points = store.studyPoints(first.studyId);
    ASSERT_EQ(points.size(), 2u);
    // The invalid point is final: the next execution reads it again (the loader refuses it at once) and runs
    // nothing; the other comes from the store.
    const auto again = core::runStudy(study, &store, threads(1));
    EXPECT_EQ(again.ran, 0u);
    EXPECT_EQ(again.cached, 1u);
    EXPECT_EQ(again.invalid, 1u);
    // A failed point (here made by hand, as a trace that could not be read leaves it) is tried again.
    core::StudyPoint failed = points[0].runId ? points[0] : points[1];
    failed.runId.reset();
    failed.error = "cannot read the trace";
    failed.errorKind = core::StudyPointError::Failed;
    store.recordStudyPoint(first.studyId, failed);
    EXPECT_FALSE(store.finishedStudyPoint(failed.key));
    const auto third = core::runStudy(study, &store, threads(1));
    EXPECT_EQ(third.ran, 1u);
    EXPECT_EQ(third.invalid, 1u);
}

TEST(TuneRunner, SuccessiveHalvingScreensOnShortRunsThenRunsTheBestInFull)
{
    EXPECT_EQ(core::halvingRungs({10, 2}, 50), (std::vector<std::uint32_t>{10, 20, 40, 0}));
    EXPECT_EQ(core::halvingRungs({10, 3}, 50), (std::vector<std::uint32_t>{10, 30, 0}));
    EXPECT_EQ(core::halvingRungs({0, 3}, 50), (std::vector<std::uint32_t>{0}));

    json j = smallStudyJson();
    j["parameters"][0]["values"] = {"msi-directory", "mesi-directory", "moesi-directory",
                                    "lazy-causal",   "sealed-lease",   "migratory"};
    j["halving"] = {{"min_requests", 12}, {"eta", 3}};
    const auto study = parseStudyJson(j);
    const auto result = core::runStudy(study, nullptr, threads(2));
    std::map<std::uint32_t, int> perRung;
    for (const auto& p : result.points)
        ++perRung[p.requests];
    EXPECT_EQ(perRung[12], 12);            // every candidate on 12 requests
    EXPECT_EQ(perRung[36], 4);             // the best third on 36
    EXPECT_EQ(perRung[0], 1);              // the best third of those on all 50
    EXPECT_EQ(result.feasible.size(), 1u); // only full runs count
    EXPECT_EQ(result.ran, 17u);
}

TEST(TuneRunner, CapacityAtTheSloIsTheHighestLoadThatMeetsItFoundInFewerRunsThanBisection)
{
    json j = smallStudyJson();
    j["objectives"] = {"capacity_at_slo", "coherence_bytes_per_token"};
    j["capacity"] = {{"field", "/workload/arrival/rate"}, {"min", 0.5}, {"max", 400}, {"slo_attainment", 0.9}};
    const auto study = parseStudyJson(j);
    EXPECT_FALSE(study.capacity.inverse); // a rate: larger is heavier
    EXPECT_EQ(study.capacity.base, 4.0);  // the scenario's own rate is load 1
    TempDir dir("coh-tune");
    core::RunStore store(dir.file("runs.db"));
    const auto result = core::runStudy(study, &store, threads(2));
    std::size_t finals = 0;
    for (const auto& p : result.points) {
        if (p.probe)
            continue;
        ++finals;
        ASSERT_TRUE(p.measured()) << p.error;
        ASSERT_TRUE(p.point.load);
        const double capacity = core::metricValue(p, "capacity_at_slo");
        // The point's run is the one at its capacity: the rate there is capacity × 4 requests/s.
        EXPECT_NEAR(*p.point.load, capacity * 4.0, 1e-4 * capacity * 4.0);
        EXPECT_GE(core::metricValue(p, "slo_attainment"), 0.9);
        // A probe of the same point a tolerance above it missed the attainment: the capacity is tight.
        bool tight = capacity * 4.0 >= 400 * 0.999;
        for (const auto& q : result.points)
            if (q.probe && q.measured() && q.point.values == p.point.values && *q.point.load > *p.point.load &&
                *q.point.load <= *p.point.load * 1.026 && core::metricValue(q, "slo_attainment") < 0.9)
                tight = true;
        EXPECT_TRUE(tight) << p.point.values[0] << " " << p.point.values[1] << " capacity " << capacity;
    }
    EXPECT_EQ(finals, 6u);
    EXPECT_LT(result.capacityProbes, result.bisectionProbes);
    EXPECT_FALSE(result.front.empty());
    // The store marks each point's chosen run with its capacity, and no other row: a report reads the front back.
    std::map<std::string, double> chosen;
    for (const core::StudyPoint& row : store.studyPoints(result.studyId))
        if (row.capacityAtSlo)
            chosen[row.key] = *row.capacityAtSlo;
    EXPECT_EQ(chosen.size(), 6u);
    for (const auto& p : result.points)
        if (!p.probe) {
            ASSERT_EQ(chosen.count(p.key), 1u);
            EXPECT_EQ(chosen[p.key], core::metricValue(p, "capacity_at_slo"));
        }
    // Resumed: every probe comes from the store, the same capacities.
    const auto again = core::runStudy(study, &store, threads(2));
    EXPECT_EQ(again.ran, 0u);
    EXPECT_EQ(metricsByKey(again), metricsByKey(result));
}

TEST(TuneRunner, Nsga2IsDeterministicAndResumesFromTheStore)
{
    json j = smallStudyJson();
    j["parameters"] = {{{"field", "/serving/block_tokens"}, {"type", "integer"}, {"min", 8}, {"max", 64}, {"step", 8}},
                       {{"field", "/workload/arrival/rate"}, {"type", "log_real"}, {"min", 1}, {"max", 16}}};
    j["strategy"] = {{"kind", "nsga2"}, {"population", 8}, {"generations", 2}, {"seed", 5}};
    const auto study = parseStudyJson(j);
    const auto a = core::runStudy(study, nullptr, threads(2));
    const auto b = core::runStudy(study, nullptr, threads(1));
    EXPECT_EQ(metricsByKey(a), metricsByKey(b));
    EXPECT_LE(a.points.size(), 24u); // population × (generations + 1), fewer where points repeat
    EXPECT_GE(a.points.size(), 8u);
    EXPECT_FALSE(a.front.empty());

    TempDir dir("coh-tune");
    core::RunStore store(dir.file("runs.db"));
    const auto stored = core::runStudy(study, &store, threads(2));
    const auto resumed = core::runStudy(study, &store, threads(2));
    EXPECT_EQ(resumed.ran, 0u);
    EXPECT_EQ(resumed.cached, stored.points.size());
    EXPECT_EQ(metricsByKey(resumed), metricsByKey(stored));
}

} // namespace
} // namespace coh::test
