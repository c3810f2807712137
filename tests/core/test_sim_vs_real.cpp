// The simulator against real-cpu (core/store/sim_vs_real.h): both runs stored and linked, each figure's error and
// goal, several real runs and their medians, pairs each calibrated just before their real run, and TTFT's mean part
// by part.
#include "core/base/input_error.h"
#include "core/compare/run_comparison.h"
#include "core/engine/ttft_parts.h"
#include "core/store/sim_vs_real.h"
#include "real_run_fixtures.h"
#include "temp_dir.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <string>
#include <vector>

namespace coh::test {
namespace {

// Small memories and a one-round profile: these tests check the plumbing, not the fit.
SimVsRealOptions roughOptions()
{
    SimVsRealOptions options;
    options.realCpu.arenaBytes = 1 << 20;
    options.calibrationRounds = 1;
    return options;
}

// Compare's rows of the stored runs against compare-real's: each latency's error on the real runs' own costs and its
// range with the costs moved.
void expectCompareShowsCompareReal(const RunComparison& compared, const SimVsReal& out)
{
    for (const SimVsRealRow& r : out.rows) {
        // Compare's names for compare-real's counts (its coherence bytes are Compare's data and control bytes).
        if (r.metric == "messages" || r.metric == "flows") {
            const auto row = std::find_if(compared.metrics.begin(), compared.metrics.end(), [&](const MetricRow& m) {
                return m.spec->label == std::string(r.metric == "messages" ? "Messages" : "Network flows");
            });
            ASSERT_NE(row, compared.metrics.end()) << r.metric;
            EXPECT_EQ(row->ownCostsVerdict == Verdict::Within, r.ownCostEveryRunEqual) << r.metric;
            continue;
        }
        if (r.count)
            continue;
        // "TPOT p50 (ms)" is Compare's "TPOT p50".
        const std::string label = r.metric.substr(0, r.metric.find(" (ms)"));
        const auto row = std::find_if(compared.metrics.begin(), compared.metrics.end(),
                                      [&](const MetricRow& m) { return m.spec->label == label; });
        ASSERT_NE(row, compared.metrics.end()) << label;
        EXPECT_NEAR(100 * row->ownCostsRelative, r.ownCostErrorPct(), 1e-9) << label;
        EXPECT_NEAR(100 * row->movedCostsLow, r.movedCostsLowPct, 1e-9) << label;
        EXPECT_NEAR(100 * row->movedCostsHigh, r.movedCostsHighPct, 1e-9) << label;
    }
}

TEST(SimVsRealRows, ALatencyNoRequestGaveIsShownButNotJudged)
{
    // A real run whose decode node failed at once completed nothing: its latencies are 0, as are the simulator's,
    // and 0 against 0 is no agreement (compare-real said "6 of 6 latencies within ±10%").
    RunSummary real, simulated;
    const auto rows = simVsRealRows(real, simulated);
    ASSERT_EQ(rows.size(), 9u);
    for (std::size_t i = 0; i < 6; ++i) {
        EXPECT_FALSE(rows[i].measured) << rows[i].metric;
        EXPECT_FALSE(rows[i].withinGoal()) << rows[i].metric;
    }
    EXPECT_TRUE(rows[6].withinGoal()) << "counts are still compared: 0 messages each";
    // Requests on both sides, but none with a second token: TPOT alone is not judged.
    real.ttftMs = simulated.ttftMs = {3, 10, 10, 10, 10, 10};
    real.transferMs = simulated.transferMs = {3, 1, 1, 1, 1, 1};
    const auto some = simVsRealRows(real, simulated);
    EXPECT_TRUE(some[0].measured && some[0].withinGoal());
    EXPECT_FALSE(some[2].measured);
    EXPECT_TRUE(some[4].measured && some[4].withinGoal());
}

TEST(RealCpuBackend, SimVsRealStoresBothRunsAndTheirErrorWithEqualCounts)
{
    TempDir dir;
    RunStore store(dir.file("runs.db"));
    const Scenario s = threeGpuScenario("msi-directory");
    SimVsRealOptions options = roughOptions();
    std::vector<std::string> stages;
    options.stage = [&](const std::string& stage) { stages.push_back(stage); };
    const SimVsReal out = runSimVsReal(&store, s, spacedWorkload(), options);
    ASSERT_EQ(stages.size(), 4u);
    EXPECT_EQ(stages[0].rfind("Calibrating", 0), 0u);
    EXPECT_EQ(stages[2], "Running " + simVsRealRunName(s, false));
    EXPECT_EQ(stages[3], "Simulating with its costs moved 5% either way");
    EXPECT_EQ(store.runInfo(out.realId)->backend, "real-cpu");
    EXPECT_EQ(store.runInfo(out.simulatedId)->backend, "simulated");
    EXPECT_EQ(store.runInfo(out.realId)->name, simVsRealRunName(s, true));
    // Its times are compared: each block is read once, its stamp checked and its seal not summed.
    EXPECT_GT(out.real.summary.backend.blockReadsChecked, 0u);
    EXPECT_EQ(out.real.summary.backend.blockSealsSummed, 0u);
    // The simulated run names the real run it models; the real one models nothing.
    EXPECT_EQ(store.runInfo(out.simulatedId)->modelsRun, out.realId);
    EXPECT_EQ(store.runInfo(out.realId)->modelsRun, 0);
    EXPECT_EQ(store.modelsOf(out.realId), std::vector<std::int64_t>{out.simulatedId});
    EXPECT_TRUE(store.modelsOf(out.simulatedId).empty());
    // Spaced requests: the same messages, flows and bytes on both, and each row is the two runs' own figure.
    EXPECT_TRUE(out.countsEqual());
    ASSERT_EQ(out.rows.size(), 9u);
    EXPECT_EQ(out.rows[2].metric, "TPOT p50 (ms)");
    EXPECT_DOUBLE_EQ(out.rows[2].real, out.real.summary.tpotMs.p50);
    EXPECT_DOUBLE_EQ(out.rows[2].simulated, out.simulated.summary.tpotMs.p50);
    EXPECT_DOUBLE_EQ(out.rows[6].errorPct(), 0.0); // messages
    // The goal: counts equal (so messages are within it), latencies within 10% of what was measured.
    EXPECT_TRUE(out.rows[6].count && out.rows[6].withinGoal());
    SimVsRealRow ttft{"TTFT p50 (ms)", 100, 110};
    EXPECT_FALSE(ttft.count);
    EXPECT_TRUE(ttft.withinGoal());
    ttft.simulated = 89;
    EXPECT_FALSE(ttft.withinGoal());
    const SimVsRealRow oneMore{"messages", 100, 101, true};
    EXPECT_FALSE(oneMore.withinGoal());
    // A real figure of 0 leaves no relative error: NaN (printed n/a), unless the simulator's is 0 too.
    EXPECT_TRUE(std::isnan(SimVsRealRow{"KV transfer p50 (ms)", 0, 0.2}.errorPct()));
    EXPECT_EQ(SimVsRealRow({"KV transfer p50 (ms)", 0, 0}).errorPct(), 0.0);
    // Under the last digit printed (0.001 ms) a difference is no finding; a 30% error of a short transfer is one.
    EXPECT_TRUE(SimVsRealRow({"KV transfer p50 (ms)", 0.001, 0.0014}).withinGoal()); // 40%, but 0.0004 ms
    EXPECT_FALSE(SimVsRealRow({"KV transfer p50 (ms)", 0.02, 0.026}).withinGoal());
    EXPECT_GT(out.profile.copy.bytesPerNs, 0.0);
    // The simulator again on the real run's own costs, fitted over its copies and steps: one per real run, each row's
    // error against it, and not stored.
    const BackendSummary& b = out.real.summary.backend;
    ASSERT_EQ(out.ownCostProfiles.size(), 1u);
    EXPECT_EQ(out.ownCostProfiles[0].copy.bytesPerNs, b.copyFit.bytesPerNs);
    // Its steps' attention, read from memory and from the core's cache (the machine's; a step of either kind the run
    // did not have keeps the calibration's figure).
    EXPECT_EQ(out.ownCostProfiles[0].attentionBytesPerNs,
              b.attentionFit.measured() ? b.attentionFit.bytesPerNs : out.profile.attentionBytesPerNs);
    EXPECT_EQ(out.ownCostProfiles[0].attentionWarmBytesPerNs,
              b.attentionWarmFit.measured() ? b.attentionWarmFit.bytesPerNs : out.profile.attentionWarmBytesPerNs);
    ASSERT_TRUE(b.attentionFit.measured() || b.attentionWarmFit.measured());
    EXPECT_EQ(b.attentionFit.points + b.attentionWarmFit.points, b.decodeSteps);
    ASSERT_EQ(out.rows[2].ownCostErrorsPct.size(), 1u);
    EXPECT_DOUBLE_EQ(out.rows[2].ownCostErrorPct(),
                     SimVsRealRow::pairErrorPct(out.rows[2].real, out.rows[2].ownCostSimulated));
    EXPECT_TRUE(out.rows[6].ownCostErrorsPct.empty()); // a count's is its figure
    EXPECT_EQ(out.ownCostRunsWithOtherCounts, 0);
    EXPECT_EQ(out.rows[6].ownCostSimulated, out.rows[6].real);
    EXPECT_EQ(store.listRuns().size(), 2u);
    // The simulator again with every cost moved 2.5% and 5% either way, not stored: each figure's error over those
    // runs spans a range that holds its error as the calibration had it.
    EXPECT_EQ(out.costSensitivity, 0.05);
    for (const SimVsRealRow& row : out.rows) {
        if (std::isnan(row.errorPct()))
            continue;
        ASSERT_TRUE(row.movedCosts()) << row.metric;
        EXPECT_LE(row.movedCostsLowPct, row.errorPct()) << row.metric;
        EXPECT_GE(row.movedCostsHighPct, row.errorPct()) << row.metric;
    }
    // Spaced requests: every step takes 5% longer attention when every cost does, so TPOT's top is the simulator's
    // at costs 5% longer, as this test runs it.
    RunOptions slower;
    slower.backend.profile = core::real::withCostsScaled(out.profile, 1.05);
    const RunSummary slow =
        runScenario(core::real::profiledScenario(s, *slower.backend.profile), spacedWorkload(), slower).summary;
    EXPECT_GT(slow.tpotMs.p50, out.simulated.summary.tpotMs.p50);
    EXPECT_DOUBLE_EQ(out.rows[2].movedCostsHighPct, SimVsRealRow::pairErrorPct(out.rows[2].real, slow.tpotMs.p50));
    // Nor do the messages move: no transfers race.
    EXPECT_EQ(out.rows[6].movedCostsLowPct, 0.0);
    EXPECT_EQ(out.rows[6].movedCostsHighPct, 0.0);
    // Both are kept with their runs as figures (not as runs), so that Compare of the stored pair shows what
    // compare-real showed: the own costs with the real run, the moved costs with its model.
    const auto realVariants = store.costVariants(out.realId), simVariants = store.costVariants(out.simulatedId);
    ASSERT_EQ(realVariants.size(), 1u);
    EXPECT_EQ(realVariants[0].kind, CostVariant::Kind::OwnCosts);
    EXPECT_EQ(realVariants[0].summary.tpotMs.p50, out.rows[2].ownCostSimulated);
    ASSERT_EQ(simVariants.size(), 4u);
    EXPECT_EQ(simVariants[3].factor, 1.05);
    EXPECT_EQ(simVariants[3].summary.tpotMs.p50, slow.tpotMs.p50);
    const RunResult realBack = store.loadRun(out.realId), simBack = store.loadRun(out.simulatedId);
    const RunComparison compared =
        compareRuns({{*store.runInfo(out.realId), &realBack.summary, &realBack.requests, &realVariants},
                     {*store.runInfo(out.simulatedId), &simBack.summary, &simBack.requests, &simVariants}});
    ASSERT_TRUE(compared.simulatorError && compared.ownCosts);
    EXPECT_NEAR(compared.costSensitivity, 0.05, 1e-12);
    expectCompareShowsCompareReal(compared, out);
    // The range takes in the real figure, or not.
    SimVsRealRow band{"TPOT p99 (ms)", 100, 120};
    EXPECT_FALSE(band.movedCosts() || band.movedCostsReachReal());
    band.movedCostsLowPct = -3;
    band.movedCostsHighPct = 25;
    EXPECT_TRUE(band.movedCostsReachReal());
    band.movedCostsLowPct = 12;
    EXPECT_FALSE(band.movedCostsReachReal());
    // TTFT's mean part by part, each side's own: the parts add up to TTFT's mean, and their differences to its
    // difference (to the rounding of sums of times in ns).
    ASSERT_EQ(out.ttftParts.size(), 1 + std::size(kTtftParts));
    EXPECT_EQ(out.ttftParts[0].key, "ttft");
    EXPECT_DOUBLE_EQ(out.ttftParts[0].real, out.real.summary.ttftMs.mean);
    EXPECT_EQ(out.ttftParts[5].part, "load");
    EXPECT_DOUBLE_EQ(out.ttftParts[5].simulated, out.simulated.summary.loadMs.mean);
    double realSum = 0, simSum = 0, differenceSum = 0;
    for (std::size_t i = 1; i < out.ttftParts.size(); ++i) {
        realSum += out.ttftParts[i].real;
        simSum += out.ttftParts[i].simulated;
        differenceSum += out.ttftParts[i].differenceMs();
    }
    EXPECT_GT(out.ttftParts[0].real, 0.0);
    EXPECT_NEAR(realSum, out.ttftParts[0].real, 1e-6);
    EXPECT_NEAR(simSum, out.ttftParts[0].simulated, 1e-6);
    EXPECT_NEAR(differenceSum, out.ttftParts[0].differenceMs(), 1e-6);
    EXPECT_TRUE(out.ttftParts[0].pairRealMs.empty());

    // Several real runs: each stored, every metric's real figure their median (of two: the mean).
    SimVsRealOptions twice;
    twice.profile = out.profile;
    twice.realRuns = 2;
    const SimVsReal two = runSimVsReal(&store, s, spacedWorkload(), twice);
    // Unpaired, ERROR is the real median's against the one simulated run, and so is each end of the range.
    for (const SimVsRealRow& row : two.rows)
        if (!std::isnan(row.errorPct())) {
            EXPECT_LE(row.movedCostsLowPct, row.errorPct()) << row.metric;
            EXPECT_GE(row.movedCostsHighPct, row.errorPct()) << row.metric;
        }
    // No costs moved: no range (nor anything stored without a store).
    SimVsRealOptions unmoved = twice;
    unmoved.realRuns = 1;
    unmoved.costSensitivity = 0;
    const SimVsReal still = runSimVsReal(nullptr, s, spacedWorkload(), unmoved);
    EXPECT_FALSE(still.rows[2].movedCosts());
    EXPECT_EQ(still.costSensitivity, 0.0);
    ASSERT_EQ(two.realIds.size(), 2u);
    // A count meets the goal only when it is equal in every real run, as countsEqual() says of them all.
    bool countsWithin = true;
    for (const SimVsRealRow& row : two.rows)
        if (row.count)
            countsWithin = countsWithin && row.withinGoal();
    EXPECT_EQ(countsWithin, two.countsEqual());
    SimVsRealRow median{"messages", 100, 100, true};
    median.everyRunEqual = false; // the median equals the simulator's, one run does not
    EXPECT_FALSE(median.withinGoal());
    EXPECT_EQ(store.runInfo(two.realIds[1])->name, simVsRealRunName(s, true, 2, 2));
    const auto second = store.loadRun(two.realIds[1]).summary;
    EXPECT_NEAR(two.rows[2].real, (two.real.summary.tpotMs.p50 + second.tpotMs.p50) / 2, 1e-9);
    EXPECT_TRUE(two.countsEqual());
    EXPECT_EQ(store.listRuns().size(), 5u);

    // A given profile skips calibration; a scenario real-cpu cannot run is refused before anything is stored.
    SimVsRealOptions again;
    again.profile = out.profile;
    stages.clear();
    again.stage = options.stage;
    Scenario failing = s;
    failing.failures.events.push_back({});
    failing.failures.events.back().link = "p0-d0";
    EXPECT_THROW(runSimVsReal(&store, failing, spacedWorkload(), again), InputError);
    EXPECT_TRUE(stages.empty());
    EXPECT_EQ(store.listRuns().size(), 5u);
    // So are costs moved by more than half.
    SimVsRealOptions tooFar = again;
    tooFar.costSensitivity = 0.6;
    EXPECT_THROW(runSimVsReal(&store, s, spacedWorkload(), tooFar), InputError);
    EXPECT_TRUE(stages.empty());
    EXPECT_EQ(store.listRuns().size(), 5u);
    // Cancelled before the first run: RunCancelled, and nothing more stored.
    std::atomic<bool> cancel{true};
    again.cancel = &cancel;
    EXPECT_THROW(runSimVsReal(&store, s, spacedWorkload(), again), RunCancelled);
    EXPECT_EQ(store.listRuns().size(), 5u);
    // Cancelled while calibrating (no profile given): the calibration stops at its next measurement, nothing stored.
    SimVsRealOptions calibrating = roughOptions();
    calibrating.cancel = &cancel;
    EXPECT_THROW(runSimVsReal(&store, s, spacedWorkload(), calibrating), RunCancelled);
    EXPECT_EQ(store.listRuns().size(), 5u);
}

TEST(RealCpuBackend, SimVsRealPairsEachRealRunWithAProfileTakenJustBeforeIt)
{
    TempDir dir;
    RunStore store(dir.file("runs.db"));
    const Scenario s = threeGpuScenario("msi-directory");
    SimVsRealOptions options = roughOptions();
    options.realRuns = 2;
    std::vector<std::string> stages;
    options.stage = [&](const std::string& stage) { stages.push_back(stage); };
    const SimVsReal out = runSimVsReal(&store, s, spacedWorkload(), options);
    // Calibrate, run real, simulate on that profile and with its costs moved; then again.
    ASSERT_EQ(stages.size(), 8u);
    for (std::size_t k : {0u, 4u})
        EXPECT_EQ(stages[k].rfind("Calibrating", 0), 0u) << stages[k];
    EXPECT_EQ(stages[1], "Running " + simVsRealRunName(s, true, 1, 2));
    EXPECT_EQ(stages[2], "Running " + simVsRealRunName(s, false, 1, 2));
    EXPECT_EQ(stages[5], "Running " + simVsRealRunName(s, true, 2, 2));
    EXPECT_EQ(stages[6], "Running " + simVsRealRunName(s, false, 2, 2));
    for (std::size_t k : {3u, 7u})
        EXPECT_EQ(stages[k].rfind("Simulating with its costs moved", 0), 0u) << stages[k];
    EXPECT_NE(simVsRealRunName(s, false, 2, 2), simVsRealRunName(s, false));
    EXPECT_TRUE(out.paired);
    ASSERT_EQ(out.profiles.size(), 2u);
    ASSERT_EQ(out.simulatedIds.size(), 2u);
    ASSERT_EQ(out.realIds.size(), 2u);
    EXPECT_EQ(out.simulatedId, out.simulatedIds[0]);
    // Each simulated run models its own real run, and ran on its own profile.
    for (std::size_t k = 0; k < 2; ++k) {
        EXPECT_EQ(store.runInfo(out.simulatedIds[k])->modelsRun, out.realIds[k]);
        EXPECT_EQ(store.loadRun(out.simulatedIds[k]).summary.backend.name, "simulated");
    }
    // Each latency's error is the median of the two pairs' (their mean), not the error of the two medians.
    const auto real2 = store.loadRun(out.realIds[1]).summary, sim2 = store.loadRun(out.simulatedIds[1]).summary;
    const SimVsRealRow& tpot = out.rows[2];
    ASSERT_EQ(tpot.metric, "TPOT p50 (ms)");
    ASSERT_EQ(tpot.pairErrorsPct.size(), 2u);
    const SimVsRealRow first{"", out.real.summary.tpotMs.p50, out.simulated.summary.tpotMs.p50},
        second{"", real2.tpotMs.p50, sim2.tpotMs.p50};
    // (A pair's difference under the last digit printed counts as none: SimVsRealRow::pairErrorPct.)
    const double e1 = SimVsRealRow::pairErrorPct(first.real, first.simulated),
                 e2 = SimVsRealRow::pairErrorPct(second.real, second.simulated);
    EXPECT_DOUBLE_EQ(tpot.pairErrorsPct[0], e1);
    EXPECT_DOUBLE_EQ(tpot.pairErrorsPct[1], e2);
    EXPECT_DOUBLE_EQ(tpot.errorPct(), (e1 + e2) / 2);
    // With its costs moved, each end of the range is the median of the pairs' ends, so it still holds the error.
    ASSERT_TRUE(tpot.movedCosts());
    EXPECT_LE(tpot.movedCostsLowPct, tpot.errorPct());
    EXPECT_GE(tpot.movedCostsHighPct, tpot.errorPct());
    EXPECT_DOUBLE_EQ(tpot.real, (first.real + second.real) / 2);
    EXPECT_DOUBLE_EQ(tpot.simulated, (first.simulated + second.simulated) / 2);
    EXPECT_TRUE(out.rows[6].pairErrorsPct.empty()); // a count is judged equal or not, pair by pair
    // TTFT's parts over pairs: each side the mean of its runs' means, the difference the mean of the pairs', and so
    // they still add up.
    const SimVsRealPart& ttftMean = out.ttftParts[0];
    ASSERT_EQ(ttftMean.pairRealMs.size(), 2u);
    EXPECT_DOUBLE_EQ(ttftMean.pairDifferencesMs()[1], sim2.ttftMs.mean - real2.ttftMs.mean);
    EXPECT_NEAR(ttftMean.real, (out.real.summary.ttftMs.mean + real2.ttftMs.mean) / 2, 1e-9);
    EXPECT_NEAR(ttftMean.differenceMs(), (ttftMean.pairDifferencesMs()[0] + ttftMean.pairDifferencesMs()[1]) / 2, 1e-9);
    double pairedSum = 0;
    for (std::size_t i = 1; i < out.ttftParts.size(); ++i)
        pairedSum += out.ttftParts[i].differenceMs();
    EXPECT_NEAR(pairedSum, ttftMean.differenceMs(), 1e-6);
    EXPECT_TRUE(out.countsEqual());
    EXPECT_EQ(store.listRuns().size(), 4u);
    // Compare of the four stored runs shows what compare-real showed, pairs' medians included.
    std::vector<RunResult> back;
    std::vector<std::vector<CostVariant>> variants;
    std::vector<std::int64_t> ids;
    for (std::size_t k = 0; k < 2; ++k)
        ids.insert(ids.end(), {out.realIds[k], out.simulatedIds[k]});
    for (const std::int64_t id : ids) {
        back.push_back(store.loadRun(id));
        variants.push_back(store.costVariants(id));
    }
    std::vector<ComparedRun> runs;
    for (std::size_t i = 0; i < ids.size(); ++i)
        runs.push_back({*store.runInfo(ids[i]), &back[i].summary, &back[i].requests, &variants[i]});
    const RunComparison compared = compareRuns(runs);
    ASSERT_EQ(compared.pairs, 2u);
    expectCompareShowsCompareReal(compared, out);

    // The goal on paired rows is the median pair's error, not the error of the medians: pairs of 100 against 104 and
    // 150 against 105 have medians 125 and 104.5 (-16.4%), and errors +4% and -30%, whose median is -13%.
    SimVsRealRow paired{"TTFT p50 (ms)", 125, 104.5};
    paired.pairErrorsPct = {4, -30};
    EXPECT_DOUBLE_EQ(paired.errorPct(), -13.0);
    EXPECT_NEAR(SimVsRealRow({"", 125, 104.5}).errorPct(), -16.4, 1e-9);
    EXPECT_FALSE(paired.withinGoal());
    paired.pairErrorsPct = {4, -30, 9};
    EXPECT_DOUBLE_EQ(paired.errorPct(), 4.0);
    EXPECT_TRUE(paired.withinGoal());
    paired.pairErrorsPct = {4, std::nan("")};
    EXPECT_TRUE(std::isnan(paired.errorPct()));
    EXPECT_FALSE(paired.withinGoal());
}

} // namespace
} // namespace coh::test
