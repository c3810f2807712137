// What compare-real keeps beside a real run and its model (core/store/cost_variant.h): the simulator on the real run's
// own costs and with its model's costs moved, stored with their runs, and shown by Compare and reports of the stored
// pair as compare-real showed them (core/compare/cost_variant_errors.h).
#include "core/base/input_error.h"
#include "core/compare/run_comparison.h"
#include "core/store/run_recovery.h"
#include "core/store/run_store.h"
#include "core/store/sim_vs_real.h"

#include "compared_run_fixtures.h"
#include "run_store_fixtures.h"
#include "temp_dir.h"

#include <SQLiteCpp/Database.h>
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

namespace coh::core {
namespace {

using test::makeResult;
using test::TempDir;

RunSummary summaryWith(double ttftP50, double tpotP50, double tpotP99, std::uint64_t flows)
{
    RunSummary s;
    s.requests = s.completed = 30;
    s.protocol = "msi-directory";
    s.messagesByKind = {{"Data", true, 100, 1e6, "data"}, {"Ack", false, 50, 5e3, "control"}};
    s.ttftMs.p50 = ttftP50;
    s.tpotMs.p50 = tpotP50;
    s.tpotMs.p99 = tpotP99;
    s.flows = flows;
    return s;
}

const auto run = test::comparedRun;
const auto row = test::comparedRow;

std::vector<CostVariant> moved(std::vector<std::pair<double, RunSummary>> byFactor)
{
    std::vector<CostVariant> out;
    for (auto& [factor, summary] : byFactor)
        out.push_back({CostVariant::Kind::MovedCosts, factor, std::move(summary)});
    return out;
}

TEST(CostVariants, AStoredPairShowsTheErrorOnItsOwnCostsAndItsRangeWithCostsMoved)
{
    // Real: TTFT p50 100 ms, TPOT p50 10 ms, TPOT p99 20 ms. The model: +12%, +5%, +15%.
    const RunSummary real = summaryWith(100, 10, 20, 700), sim = summaryWith(112, 10.5, 23, 700);
    // On the real run's own costs: +3%, -20%, +5%, and one flow more (transfers raced).
    const std::vector<CostVariant> realVariants{{CostVariant::Kind::OwnCosts, 1, summaryWith(103, 8, 21, 701)}};
    // Costs moved 5% and 2.5% either way: TTFT p50 from +8% to +14%; TPOT p99 from -4% to +25%.
    const std::vector<CostVariant> simVariants = moved({{0.95, summaryWith(108, 10.0, 19.2, 700)},
                                                        {0.975, summaryWith(110, 10.2, 21, 700)},
                                                        {1.025, summaryWith(113, 10.7, 24, 700)},
                                                        {1.05, summaryWith(114, 11, 25, 700)}});
    const RunComparison c =
        compareRuns({run(7, real, "real-cpu", 0, &realVariants), run(8, sim, "simulated", 7, &simVariants)});
    ASSERT_TRUE(c.simulatorError);
    EXPECT_TRUE(c.ownCosts);
    EXPECT_NEAR(c.costSensitivity, 0.05, 1e-12);
    const MetricRow& ttft = row(c, "TTFT p50");
    EXPECT_DOUBLE_EQ(ttft.ownCostsValue, 103);
    EXPECT_NEAR(ttft.ownCostsRelative, 0.03, 1e-12);
    EXPECT_EQ(ttft.ownCostsVerdict, Verdict::Within);
    EXPECT_NEAR(ttft.movedCostsLow, 0.08, 1e-12);
    EXPECT_NEAR(ttft.movedCostsHigh, 0.14, 1e-12);
    EXPECT_FALSE(ttft.movedCostsReachReal());                       // beyond at every cost
    EXPECT_EQ(row(c, "TPOT p50").ownCostsVerdict, Verdict::Beyond); // -20%
    // The unmoved error is inside the range: +15% between -4% and +25%, which takes in the real figure.
    const MetricRow& tpot99 = row(c, "TPOT p99");
    EXPECT_NEAR(tpot99.movedCostsLow, -0.04, 1e-12);
    EXPECT_NEAR(tpot99.movedCostsHigh, 0.25, 1e-12);
    EXPECT_TRUE(tpot99.movedCostsReachReal());
    // A count is judged by equality on its own costs too, and moves not at all with costs where transfers do not race.
    const MetricRow& flows = row(c, "Network flows");
    EXPECT_EQ(flows.ownCostsVerdict, Verdict::Beyond);
    EXPECT_DOUBLE_EQ(flows.ownCostsValue, 701);
    EXPECT_EQ(flows.movedCostsLow, 0.0);
    EXPECT_EQ(flows.movedCostsHigh, 0.0);
    EXPECT_EQ(row(c, "Messages").ownCostsVerdict, Verdict::Within);
    // The sentences say both, after the goal's.
    ASSERT_GE(c.summary.size(), 4u);
    EXPECT_EQ(c.summary[2], "On the real run's own costs (fitted over its copies and decode steps, so the machine's "
                            "drift since the calibration is left out): TTFT p50 +3.0%, p99 +0.0%; TPOT p50 −20.0%, p99 "
                            "+5.0%; KV transfer p50 +0.0%, p99 +0.0%; 5 of 6 within ±10%.");
    EXPECT_EQ(c.summary[3], "Beyond ±10% but reached by the simulator with its costs moved 5% or less: TPOT p99 (its "
                            "error there is not told apart from the calibration's own uncertainty).");

    // The same pair's rows as a report gives them (sim_vs_real.h), compare-real's way for one real run.
    const auto rows = simVsRealRows(real, sim, realVariants, simVariants);
    ASSERT_EQ(rows[3].metric, "TPOT p99 (ms)");
    EXPECT_NEAR(rows[3].movedCostsLowPct, -4, 1e-9);
    EXPECT_NEAR(rows[3].movedCostsHighPct, 25, 1e-9);
    EXPECT_NEAR(rows[0].ownCostErrorPct(), 3, 1e-9);
    EXPECT_DOUBLE_EQ(rows[7].ownCostSimulated, 701); // flows
    EXPECT_FALSE(rows[7].ownCostEveryRunEqual);
    // Nothing kept: no such figures, and no such sentences.
    const auto bare = simVsRealRows(real, sim, {}, {});
    EXPECT_TRUE(std::isnan(bare[0].ownCostSimulated));
    EXPECT_FALSE(bare[0].movedCosts());
    const RunComparison plain =
        compareRuns({run(7, real, "real-cpu", 0, nullptr), run(8, sim, "simulated", 7, nullptr)});
    EXPECT_FALSE(plain.ownCosts);
    EXPECT_EQ(plain.costSensitivity, 0.0);
    EXPECT_TRUE(std::isnan(row(plain, "TTFT p50").ownCostsRelative));
    EXPECT_FALSE(row(plain, "TTFT p50").movedCosts());
    EXPECT_EQ(plain.summary.size(), c.summary.size() - 2);
}

TEST(CostVariants, OverPairsEachFigureIsTheMedianOfThePairsAndEveryPairMustHaveIt)
{
    // Three pairs: TPOT p50 on own costs +4%, -30%, +9% (the median +4%, within); moved ranges [-2, +6], [-35, -20],
    // [+1, +12]%: the median ends -2% and +6%.
    std::vector<RunSummary> real{summaryWith(100, 10, 20, 700), summaryWith(100, 10, 20, 700),
                                 summaryWith(100, 10, 20, 700)};
    std::vector<RunSummary> sim{summaryWith(100, 10.2, 20, 700), summaryWith(100, 7.5, 20, 700),
                                summaryWith(100, 10.5, 20, 700)};
    std::vector<std::vector<CostVariant>> own{{{CostVariant::Kind::OwnCosts, 1, summaryWith(100, 10.4, 20, 700)}},
                                              {{CostVariant::Kind::OwnCosts, 1, summaryWith(100, 7, 20, 700)}},
                                              {{CostVariant::Kind::OwnCosts, 1, summaryWith(100, 10.9, 20, 700)}}};
    std::vector<std::vector<CostVariant>> movedBy{
        moved({{0.9, summaryWith(100, 9.8, 20, 700)}, {1.1, summaryWith(100, 10.6, 20, 700)}}),
        moved({{0.9, summaryWith(100, 6.5, 20, 700)}, {1.1, summaryWith(100, 8, 20, 700)}}),
        moved({{0.9, summaryWith(100, 10.1, 20, 700)}, {1.1, summaryWith(100, 11.2, 20, 700)}})};
    const auto compare = [&](const std::vector<CostVariant>* lastModel) {
        return compareRuns({run(1, real[0], "real-cpu", 0, &own[0]), run(2, sim[0], "simulated", 1, &movedBy[0]),
                            run(3, real[1], "real-cpu", 0, &own[1]), run(4, sim[1], "simulated", 3, &movedBy[1]),
                            run(5, real[2], "real-cpu", 0, &own[2]), run(6, sim[2], "simulated", 5, lastModel)});
    };
    const RunComparison c = compare(&movedBy[2]);
    ASSERT_EQ(c.pairs, 3u);
    const MetricRow& tpot = row(c, "TPOT p50");
    EXPECT_NEAR(tpot.ownCostsRelative, 0.04, 1e-12);
    EXPECT_DOUBLE_EQ(tpot.ownCostsValue, 10.4); // the median of the own-cost figures
    EXPECT_EQ(tpot.ownCostsVerdict, Verdict::Within);
    EXPECT_NEAR(tpot.movedCostsLow, -0.02, 1e-12);
    EXPECT_NEAR(tpot.movedCostsHigh, 0.06, 1e-12);
    EXPECT_NEAR(c.costSensitivity, 0.1, 1e-12);
    EXPECT_EQ(c.summary[2].rfind("On each real run's own costs", 0), 0u) << c.summary[2];
    // A model moved by other factors, or one without any: no range for any pair.
    const std::vector<CostVariant> other = moved({{0.95, sim[2]}, {1.05, sim[2]}});
    const std::vector<CostVariant>* none = nullptr;
    for (const std::vector<CostVariant>* lastModel : {&other, none}) {
        const RunComparison partial = compare(lastModel);
        EXPECT_EQ(partial.costSensitivity, 0.0);
        EXPECT_FALSE(row(partial, "TPOT p50").movedCosts());
        EXPECT_TRUE(partial.ownCosts); // the real runs still have theirs
    }
}

TEST(CostVariants, AFigureNeitherRunHasIsNoErrorAndALonePairsRangeIsTakenAsCompareRealTakesIt)
{
    RunSummary real = summaryWith(100, 10, 20, 700), sim = summaryWith(100, 10.0004, 20, 700);
    RunSummary own = summaryWith(100, 10, 20, 700), slow = summaryWith(100, 10.0004, 20, 700);
    // No such requests on any side: TPOT p99 is NaN everywhere.
    for (RunSummary* s : {&real, &sim, &own, &slow})
        s->tpotMs.p99 = std::nan("");
    const std::vector<CostVariant> realVariants{{CostVariant::Kind::OwnCosts, 1, own}};
    const std::vector<CostVariant> simVariants = moved({{1.05, slow}});
    const RunComparison c =
        compareRuns({run(7, real, "real-cpu", 0, &realVariants), run(8, sim, "simulated", 7, &simVariants)});
    const MetricRow& tpot99 = row(c, "TPOT p99");
    EXPECT_EQ(tpot99.ownCostsRelative, 0.0);
    EXPECT_EQ(tpot99.ownCostsVerdict, Verdict::Within);
    EXPECT_EQ(tpot99.movedCostsLow, 0.0);
    EXPECT_EQ(tpot99.movedCostsHigh, 0.0);
    // A difference under the last digit shown: compare-real's range for one real run keeps it (SimVsRealRow::
    // errorPct), and so does Compare's for one pair.
    const MetricRow& tpot50 = row(c, "TPOT p50");
    const double tiny = SimVsRealRow{"", 10, 10.0004}.errorPct() / 100;
    EXPECT_GT(tiny, 0.0);
    EXPECT_DOUBLE_EQ(tpot50.movedCostsLow, tiny);
    EXPECT_DOUBLE_EQ(tpot50.movedCostsHigh, tiny);
    EXPECT_NEAR(simVsRealRows(real, sim, realVariants, simVariants)[2].movedCostsHighPct, 100 * tiny, 1e-12);
}

TEST(RunStore, KeepsCostVariantsWithTheirRunUntilItIsDeleted)
{
    TempDir dir;
    RunStore store(dir.file("runs.db"));
    const std::int64_t real = store.beginRun("real", "{}", 1, "real-cpu");
    store.completeRun(real, makeResult());
    const std::int64_t model = store.beginRun("model", "{}", 1);
    store.completeRun(model, makeResult());
    EXPECT_TRUE(store.costVariants(real).empty()); // a run stored without them
    RunSummary own = makeResult().summary;
    own.tpotMs.p50 = 12.345678901234567;
    store.storeCostVariants(real, {{CostVariant::Kind::OwnCosts, 1, own}});
    RunSummary slow = own, fast = own;
    slow.tpotMs.p50 = 13;
    fast.tpotMs.p50 = 11;
    // Stored in any order, read back by factor.
    store.storeCostVariants(model,
                            {{CostVariant::Kind::MovedCosts, 1.05, slow}, {CostVariant::Kind::MovedCosts, 0.95, fast}});
    const auto ownBack = store.costVariants(real);
    ASSERT_EQ(ownBack.size(), 1u);
    EXPECT_EQ(ownBack[0].kind, CostVariant::Kind::OwnCosts);
    EXPECT_EQ(ownBack[0].summary.tpotMs.p50, own.tpotMs.p50); // exactly: the JSON keeps every digit
    EXPECT_EQ(ownBack[0].summary.flows, own.flows);
    const auto movedBack = store.costVariants(model);
    ASSERT_EQ(movedBack.size(), 2u);
    EXPECT_EQ(movedBack[0].factor, 0.95);
    EXPECT_EQ(movedBack[0].summary.tpotMs.p50, 11);
    EXPECT_EQ(movedBack[1].factor, 1.05);
    // The same kind and factor again replaces it.
    slow.tpotMs.p50 = 14;
    store.storeCostVariants(model, {{CostVariant::Kind::MovedCosts, 1.05, slow}});
    ASSERT_EQ(store.costVariants(model).size(), 2u);
    EXPECT_EQ(store.costVariants(model)[1].summary.tpotMs.p50, 14);
    // No such run: an error naming it, and nothing stored.
    EXPECT_THROW(store.storeCostVariants(999, {{CostVariant::Kind::OwnCosts, 1, own}}), InputError);
    EXPECT_TRUE(store.costVariants(999).empty());
    // A run with both kinds reads its own costs first, then its moved costs by factor.
    store.storeCostVariants(model, {{CostVariant::Kind::OwnCosts, 1, own}});
    const auto both = store.costVariants(model);
    ASSERT_EQ(both.size(), 3u);
    EXPECT_EQ(both[0].kind, CostVariant::Kind::OwnCosts);
    EXPECT_EQ(both[1].factor, 0.95);
    EXPECT_EQ(both[2].factor, 1.05);
    // A copy of the file keeps them with their runs (`cohsim db recover`).
    const std::string copy = dir.file("recovered.db");
    const RecoveryReport report = recoverRunDatabase(store.path(), copy);
    EXPECT_EQ(report.recovered.size(), 2u);
    EXPECT_TRUE(report.figuresLost.empty());
    {
        RunStore recovered(copy);
        EXPECT_EQ(recovered.costVariants(model).size(), 3u);
        EXPECT_EQ(recovered.costVariants(real).front().summary.tpotMs.p50, own.tpotMs.p50);
    }
    // A damaged row is skipped, not the run: these figures are the comparison's.
    {
        SQLite::Database db(store.path(), SQLite::OPEN_READWRITE);
        db.exec("UPDATE cost_variants SET summary_json = '{\"tpot_ms\": ' WHERE factor = 0.95");
    }
    const auto lenient = store.costVariants(model);
    ASSERT_EQ(lenient.size(), 2u);
    EXPECT_EQ(lenient[1].factor, 1.05);
    EXPECT_NO_THROW(store.loadRun(model));
    // They go with their run.
    EXPECT_TRUE(store.deleteRun(model));
    EXPECT_TRUE(store.costVariants(model).empty());
    EXPECT_EQ(store.costVariants(real).size(), 1u);
}

} // namespace
} // namespace coh::core
