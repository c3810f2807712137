// Run comparison (core/compare): deltas and "about the same" per metric threshold, titles by what differs, and
// the plain-language summary computed from two real runs of the default scenario (msi-directory against
// lazy-causal, 200 requests), whose figures each assertion derives.
#include "compared_run_fixtures.h"
#include "core/compare/run_comparison.h"
#include "core/engine/traffic_counts.h"
#include "core/scenario/scenario_loader.h"
#include "core/serving/serving_engine.h"
#include "core/workload/workload_builder.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>

namespace coh::core {
namespace {

const std::string kDefaultScenario = std::string(COH_TEST_DATA_DIR) + "/../../datasets/scenarios/default.json";

RunResult runDefault(const std::string& protocol, std::uint32_t requests, std::uint64_t seed = 1)
{
    std::ifstream in(kDefaultScenario);
    nlohmann::json json = nlohmann::json::parse(in);
    json["coherence"]["decode"] = protocol;
    json["seed"] = seed;
    Scenario s = parseScenario(json, kDefaultScenario);
    limitRequests(s.workload, requests);
    return runScenario(s, buildWorkload(s.workload, s.seed));
}

ComparedRun compared(std::int64_t id, const RunResult& r)
{
    ComparedRun c;
    c.info.id = id;
    c.info.name = "default";
    c.info.scenarioName = r.scenarioName;
    c.info.seed = r.seed;
    c.info.backend = "simulated";
    c.info.decodeProtocol = r.summary.protocol;
    c.summary = &r.summary;
    c.requests = &r.requests;
    return c;
}

ComparedRun run(std::int64_t id, const RunSummary& summary, const char* backend, std::int64_t models)
{
    return test::comparedRun(id, summary, backend, models);
}

const MetricRow& row(const RunComparison& c, const std::string& label)
{
    return test::comparedRow(c, label);
}

TEST(RunComparison, AboutTheSameFollowsEachMetricsThreshold)
{
    const MetricSpec* ttft = nullptr;
    const MetricSpec* messages = nullptr;
    for (const auto& spec : comparedMetrics()) {
        if (std::string(spec.label) == "TTFT p50")
            ttft = &spec;
        if (std::string(spec.label) == "Messages")
            messages = &spec;
    }
    ASSERT_TRUE(ttft && messages);
    // 39.10 against 38.82 ms is 0.7%: within the 1% a latency may move by; 39.60 is 1.3%: not.
    EXPECT_TRUE(aboutTheSame(*ttft, 39.10, 38.82));
    EXPECT_FALSE(aboutTheSame(*ttft, 39.10, 39.60));
    // Counts are exact: one message more is a difference.
    EXPECT_TRUE(aboutTheSame(*messages, 1000, 1000));
    EXPECT_FALSE(aboutTheSame(*messages, 1000, 1001));
}

const MetricSpec& spec(const std::string& label)
{
    for (const auto& s : comparedMetrics())
        if (s.label == label)
            return s;
    throw std::runtime_error("no metric " + label);
}

TEST(RunComparison, DifferencesBelowWhatTheRowShowsOrMattersAreAboutTheSame)
{
    // Views write ms, s, %, rates to thousandths below 1 and counts and bytes whole (ui/metric_format.cpp).
    EXPECT_EQ(displayStep(MetricUnit::Milliseconds), 0.001);
    EXPECT_EQ(displayStep(MetricUnit::Percent), 0.001);
    EXPECT_EQ(displayStep(MetricUnit::Count), 1.0);
    EXPECT_EQ(displayStep(MetricUnit::Bytes), 1.0);

    // The row: a stall of 0.00094 against 0.001 ms is +6.4% but 0.00006 ms, shown as "+0.000 ms": under the
    // latencies' 0.01 ms floor, so about the same. 0.5 against 0.509 ms (+1.8%) is 0.009 ms: still under it; 0.5
    // against 0.52 ms (+4%, 0.02 ms) is not.
    const MetricSpec& stall = spec("TPOT coherence stall (mean per token)");
    const MetricSpec& ttft = spec("TTFT p50");
    EXPECT_EQ(absoluteAllowance(stall), 0.01);
    EXPECT_TRUE(aboutTheSame(stall, 0.00094, 0.001));
    EXPECT_TRUE(aboutTheSame(ttft, 0.5, 0.509));
    EXPECT_FALSE(aboutTheSame(ttft, 0.5, 0.52));
    // An exact metric with no floor: SLO attainment 99.5% against 99.5004% shows "+0.000%" (under half of 0.001):
    // about the same; against 99.501% it shows "+0.001%": a difference.
    const MetricSpec& slo = spec("SLO attainment");
    EXPECT_EQ(absoluteAllowance(slo), 0.0005);
    EXPECT_TRUE(aboutTheSame(slo, 99.5, 99.5004));
    EXPECT_FALSE(aboutTheSame(slo, 99.5, 99.501));
    // Counts stay exact: half a message is the allowance, one message is a difference.
    EXPECT_EQ(absoluteAllowance(spec("Messages")), 0.5);
    EXPECT_FALSE(aboutTheSame(spec("Messages"), 1000, 1001));

    // In a comparison: the stall row is Same, its allowance the floor, and the summary names no latency change.
    RunSummary a, b;
    for (RunSummary* s : {&a, &b}) {
        s->requests = s->completed = 100;
        s->ttftMs = {100, 39.0, 39.0, 45.0, 60.0, 61.0};
        s->tpotMs = {100, 7.6, 7.6, 7.9, 8.1, 8.2};
        s->messagesByKind = {{"Data", true, 100, 1e6, "data"}};
        s->protocol = "msi-directory";
    }
    a.tpotStallMs.mean = 0.00094;
    b.tpotStallMs.mean = 0.001;
    ComparedRun ra, rb;
    ra.summary = &a;
    rb.summary = &b;
    const RunComparison c = compareRuns({ra, rb});
    const MetricRow& stallRow = row(c, stall.label);
    EXPECT_EQ(stallRow.verdicts[1], Verdict::Same);
    EXPECT_EQ(stallRow.allowance[1], 0.01);
}

// A real run and the simulator's model of it, as compare-real stores them (RunInfo::modelsRun): each difference is the
// simulator's error, judged by its 10% goal (latencies, rates) or by equality (counts, bytes), and the sentences say
// so instead of naming a better choice.
TEST(RunComparison, ARealRunAndItsModelShowTheSimulatorsError)
{
    RunSummary real, sim;
    for (RunSummary* s : {&real, &sim}) {
        s->requests = s->completed = 30;
        s->protocol = "msi-directory";
        s->messagesByKind = {{"Data", true, 100, 1e6, "data"}, {"Ack", false, 50, 5e3, "control"}};
    }
    real.ttftMs.p50 = 100, sim.ttftMs.p50 = 112;       // +12%: beyond
    real.ttftMs.p99 = 200, sim.ttftMs.p99 = 190;       // -5%
    real.tpotMs.p50 = 10, sim.tpotMs.p50 = 10.5;       // +5%
    real.tpotMs.p99 = 20, sim.tpotMs.p99 = 23;         // +15%: beyond
    real.transferMs.p50 = 4, sim.transferMs.p50 = 4;   // equal
    real.transferMs.p99 = 8, sim.transferMs.p99 = 8.6; // +7.5%
    real.flows = 700, sim.flows = 721;                 // +3%: a count, so it differs
    const RunComparison c = compareRuns({run(7, real, "real-cpu", 0), run(8, sim, "simulated", 7)});
    ASSERT_TRUE(c.simulatorError);
    EXPECT_EQ(c.titles, (std::vector<std::string>{"real-cpu", "simulated"}));
    EXPECT_EQ(row(c, "TTFT p50").verdicts[1], Verdict::Beyond);
    EXPECT_DOUBLE_EQ(row(c, "TTFT p50").allowance[1], 10.0); // the goal: 10% of what real-cpu measured
    EXPECT_EQ(row(c, "TTFT p99").verdicts[1], Verdict::Within);
    EXPECT_EQ(row(c, "TPOT p99").verdicts[1], Verdict::Beyond);
    EXPECT_EQ(row(c, "KV transfer p99").verdicts[1], Verdict::Within);
    EXPECT_EQ(row(c, "Messages").verdicts[1], Verdict::Within);
    EXPECT_EQ(row(c, "Network flows").verdicts[1], Verdict::Beyond);
    EXPECT_EQ(row(c, "Network flows").allowance[1], 0.5); // counts must be equal
    EXPECT_EQ(c.summary,
              (std::vector<std::string>{
                  "The simulator's error against real-cpu: TTFT p50 +12.0%, p99 −5.0%; TPOT p50 +5.0%, p99 +15.0%; "
                  "KV transfer p50 +0.0%, p99 +7.5%.",
                  "4 of these 6 within its goal of ±10%; beyond it: TTFT p50, TPOT p99.",
                  "Messages, flows or bytes differ (network flows +3.0%): most likely transfers raced, and the real "
                  "run's order "
                  "of events followed its measured times."}));

    // The real run's own percentiles are uncertain: with its requests at hand, an error inside the real TTFT p50's 95%
    // interval is said to be no finding yet. 30 requests of TTFT 0, 10, ..., 290 ms: the median's interval spans ranks
    // 14.5 -/+ 1.96 sqrt(30 x 0.25), so ranks 9..20: ±(200 - 90) / 2 = 55 ms, and +12 ms lies inside it. TPOT has no
    // samples (one token each), so its error stands.
    std::vector<RequestMetrics> requests(30);
    for (std::size_t i = 0; i < requests.size(); ++i) {
        requests[i].firstToken = static_cast<SimTime>(i) * 10 * kMillisecond;
        requests[i].outputTokens = 1;
    }
    ComparedRun withRequests = run(7, real, "real-cpu", 0);
    withRequests.requests = &requests;
    const RunComparison noisy = compareRuns({withRequests, run(8, sim, "simulated", 7)});
    EXPECT_DOUBLE_EQ(row(noisy, "TTFT p50").noise[0], 55.0);
    EXPECT_EQ(row(noisy, "TTFT p50").verdicts[1], Verdict::Beyond); // the goal is the goal
    EXPECT_EQ(noisy.summary[1],
              "4 of these 6 within its goal of ±10%; beyond it: TTFT p50, TPOT p99. TTFT p50 is "
              "within the real run's own sampling noise (its 95% interval): more requests would tell.");

    // The goal is compare-real's, to the last digit shown: a short transfer 30% off (0.006 ms) is beyond it, though
    // under the 0.01 ms floor "about the same" has; one 40% but 0.0004 ms off, under half the last digit, is equal.
    sim.transferMs.p50 = 0.026, real.transferMs.p50 = 0.02;
    EXPECT_EQ(
        row(compareRuns({run(7, real, "real-cpu", 0), run(8, sim, "simulated", 7)}), "KV transfer p50").verdicts[1],
        Verdict::Beyond);
    sim.transferMs.p50 = 0.0014, real.transferMs.p50 = 0.001;
    EXPECT_EQ(
        row(compareRuns({run(7, real, "real-cpu", 0), run(8, sim, "simulated", 7)}), "KV transfer p50").verdicts[1],
        Verdict::Within);
    real.transferMs.p50 = sim.transferMs.p50 = 4;

    // Where TTFT's mean error comes from: its parts' differences add up to it, the largest named first.
    real.ttftMs.mean = 150, sim.ttftMs.mean = 140;
    real.prefillMs.mean = sim.prefillMs.mean = 10;
    real.transferMs.mean = 4, sim.transferMs.mean = 4.0004; // under the last digit shown: not named
    real.loadMs.mean = 36, sim.loadMs.mean = 20.9996;
    real.firstDecodeMs.mean = 100, sim.firstDecodeMs.mean = 105;
    {
        const RunComparison parts = compareRuns({run(7, real, "real-cpu", 0), run(8, sim, "simulated", 7)});
        EXPECT_DOUBLE_EQ(row(parts, "TTFT mean").delta[1], -10);
        EXPECT_NEAR(row(parts, "load").delta[1], -15.0004, 1e-9);
        EXPECT_EQ(row(parts, "load").verdicts[1], Verdict::Beyond);
        EXPECT_EQ(row(parts, "prefill").verdicts[1], Verdict::Within);
        ASSERT_EQ(parts.summary.size(), 4u);
        EXPECT_EQ(parts.summary[2],
                  "TTFT's mean is −10.00 ms off; by part: load −15.00 ms, first decode step +5.00 ms.");
    }
    real.ttftMs.mean = sim.ttftMs.mean = real.prefillMs.mean = sim.prefillMs.mean = 0;
    real.transferMs.mean = sim.transferMs.mean = real.loadMs.mean = sim.loadMs.mean = 0;
    real.firstDecodeMs.mean = sim.firstDecodeMs.mean = 0;

    // Equal counts say so.
    sim.flows = 700;
    EXPECT_EQ(compareRuns({run(7, real, "real-cpu", 0), run(8, sim, "simulated", 7)}).summary.back(),
              "Messages, flows and bytes are equal on both.");
    // In the other order (as a user may pick them in History) the real run still comes first.
    const RunComparison reversed = compareRuns({run(8, sim, "simulated", 7), run(7, real, "real-cpu", 0)});
    ASSERT_TRUE(reversed.simulatorError);
    EXPECT_EQ(reversed.columns, (std::vector<std::vector<std::size_t>>{{1}, {0}}));
    EXPECT_EQ(reversed.titles, (std::vector<std::string>{"real-cpu", "simulated"}));
    EXPECT_DOUBLE_EQ(row(reversed, "TTFT p50").relative[1], 0.12);
    EXPECT_EQ(reversed.pairs, 1u);
    // Without the stored link (another simulated run, or the model of another run), it is a comparison of choices:
    // better and worse, and about the same within 1%.
    for (const RunComparison& choice : {compareRuns({run(7, real, "real-cpu", 0), run(8, sim, "simulated", 0)}),
                                        compareRuns({run(7, real, "real-cpu", 0), run(8, sim, "simulated", 5)})}) {
        EXPECT_FALSE(choice.simulatorError);
        EXPECT_EQ(choice.pairs, 0u);
        EXPECT_NE(row(choice, "TTFT p50").verdicts[1], Verdict::Within);
        EXPECT_NE(row(choice, "TTFT p50").verdicts[1], Verdict::Beyond);
    }
}

// Paired runs, as compare-real --repeat and the app's Pairs for Simulator Against Real store them: each real run
// with the simulated run that models it. Compare reads them as compare-real prints them: one column per side (its
// runs' median), each error the median of the pairs' errors, a count equal only if equal in every pair.
TEST(RunComparison, RunsOfOtherMachinesAreNoChoiceBetweenThem)
{
    // A real run and a simulated run that does not model it: the simulated one is "faster" only in that it stands for
    // the scenario's hardware; it named itself the fastest and tinted its latencies better.
    RunSummary real, sim;
    for (RunSummary* s : {&real, &sim}) {
        s->requests = s->completed = 30;
        s->protocol = "msi-directory";
        s->messagesByKind = {{"Data", true, 100, 1e6, "data"}};
    }
    real.ttftMs.p50 = 41.3, sim.ttftMs.p50 = 17.5;
    real.transferMs.p50 = 14.1, sim.transferMs.p50 = 0.333;
    const RunComparison c = compareRuns({run(1, real, "real-cpu", 0), run(2, sim, "simulated", 0)});
    ASSERT_FALSE(c.simulatorError);
    ASSERT_TRUE(c.otherMachines);
    EXPECT_EQ(c.backends, (std::vector<std::string>{"real-cpu", "simulated"}));
    EXPECT_EQ(row(c, "TTFT p50").verdicts[1], Verdict::Differs);
    EXPECT_EQ(row(c, "KV transfer p50").verdicts[1], Verdict::Differs);
    ASSERT_FALSE(c.summary.empty());
    EXPECT_EQ(c.summary.front().rfind("These runs ran on different backends (real-cpu, simulated)", 0), 0u)
        << c.summary.front();
    for (const std::string& sentence : c.summary)
        EXPECT_EQ(sentence.find("fastest"), std::string::npos) << sentence;
    // Two simulated runs are a choice again.
    const RunComparison same = compareRuns({run(1, real, "simulated", 0), run(2, sim, "simulated", 0)});
    EXPECT_FALSE(same.otherMachines);
    EXPECT_EQ(row(same, "TTFT p50").verdicts[1], Verdict::Better);
}

TEST(RunComparison, PairsOfRealRunsAndTheirModelsShowTheMedianOfThePairsErrors)
{
    std::vector<RunSummary> real(3), sim(3);
    for (auto* side : {&real, &sim})
        for (RunSummary& s : *side) {
            s.requests = s.completed = 30;
            s.protocol = "msi-directory";
            s.messagesByKind = {{"Data", true, 100, 1e6, "data"}, {"Ack", false, 50, 5e3, "control"}};
            s.flows = 700;
        }
    // TTFT p50 per pair: +12%, -5%, +4%, so the median error is +4% (within), though the sides' medians (100 and
    // 112 ms) are 12% apart: the machine's drift between pairs stays out of the error.
    real[0].ttftMs.p50 = 100, sim[0].ttftMs.p50 = 112;
    real[1].ttftMs.p50 = 200, sim[1].ttftMs.p50 = 190;
    real[2].ttftMs.p50 = 100, sim[2].ttftMs.p50 = 104;
    // TPOT p50: +15%, +20%, -2%: the median +15%, beyond.
    real[0].tpotMs.p50 = 10, sim[0].tpotMs.p50 = 11.5;
    real[1].tpotMs.p50 = 10, sim[1].tpotMs.p50 = 12;
    real[2].tpotMs.p50 = 10, sim[2].tpotMs.p50 = 9.8;
    sim[1].flows = 703; // one pair's transfers raced
    // Picked in any order: the pairs follow the real runs' order (ids 1, 5, 3 here).
    const RunComparison c =
        compareRuns({run(2, sim[0], "simulated", 1), run(1, real[0], "real-cpu", 0), run(5, real[1], "real-cpu", 0),
                     run(3, real[2], "real-cpu", 0), run(4, sim[2], "simulated", 3), run(6, sim[1], "simulated", 5)});
    ASSERT_TRUE(c.simulatorError);
    EXPECT_EQ(c.pairs, 3u);
    EXPECT_EQ(c.columns, (std::vector<std::vector<std::size_t>>{{1, 2, 3}, {0, 5, 4}}));
    EXPECT_EQ(c.titles, (std::vector<std::string>{"real-cpu", "simulated"}));
    const MetricRow& ttft = row(c, "TTFT p50");
    EXPECT_EQ(ttft.values, (std::vector<double>{100, 112}));
    ASSERT_EQ(ttft.pairRelative.size(), 3u);
    EXPECT_DOUBLE_EQ(ttft.pairRelative[0], 0.12);
    EXPECT_DOUBLE_EQ(ttft.pairRelative[1], -0.05);
    EXPECT_DOUBLE_EQ(ttft.pairRelative[2], 0.04);
    EXPECT_EQ(ttft.pairDelta, (std::vector<double>{12, -10, 4}));
    EXPECT_DOUBLE_EQ(ttft.relative[1], 0.04);
    EXPECT_DOUBLE_EQ(ttft.delta[1], 4); // the error as an amount of the real side's median: 4% of 100 ms
    EXPECT_EQ(ttft.verdicts[1], Verdict::Within);
    EXPECT_DOUBLE_EQ(ttft.allowance[1], 10.0); // 10% of the real runs' median
    EXPECT_NEAR(row(c, "TPOT p50").relative[1], 0.15, 1e-12);
    EXPECT_EQ(row(c, "TPOT p50").verdicts[1], Verdict::Beyond);
    // Equal in two pairs of three is not equal, though the medians are.
    const MetricRow& flows = row(c, "Network flows");
    EXPECT_EQ(flows.values, (std::vector<double>{700, 700}));
    EXPECT_EQ(flows.pairDelta, (std::vector<double>{0, 3, 0}));
    EXPECT_EQ(flows.verdicts[1], Verdict::Beyond);
    EXPECT_EQ(row(c, "Messages").verdicts[1], Verdict::Within);
    // No noise: one run's interval does not bound a median's error.
    EXPECT_EQ(ttft.noise, (std::vector<double>{0, 0}));
    EXPECT_EQ(c.summary.front(),
              "The simulator's error against real-cpu, the median of its errors in 3 pairs (each real run against the "
              "simulated run that models it): TTFT p50 +4.0%, p99 +0.0%; TPOT p50 +15.0%, p99 +0.0%; KV transfer p50 "
              "+0.0%, p99 +0.0%.");
    EXPECT_EQ(c.summary[1], "5 of these 6 within its goal of ±10%; beyond it: TPOT p50.");
    EXPECT_EQ(c.summary.back(), "Messages, flows or bytes differ in 1 of the 3 pairs (network flows): most likely "
                                "transfers raced, and the real run's order of events followed its measured times.");
    sim[1].flows = 700;
    // TTFT's parts over pairs: each cell's difference is the median error times the real median (as every row's), and
    // the sentence names them by the mean of the pairs' differences, which add up as each pair's parts do.
    for (std::size_t k = 0; k < 3; ++k) {
        real[k].ttftMs.mean = real[k].loadMs.mean = 40.0 + static_cast<double>(k);
        sim[k].ttftMs.mean = sim[k].loadMs.mean = 1.25 * real[k].ttftMs.mean; // +25% in each pair
    }
    {
        const RunComparison parts = compareRuns({run(1, real[0], "real-cpu", 0), run(2, sim[0], "simulated", 1),
                                                 run(5, real[1], "real-cpu", 0), run(6, sim[1], "simulated", 5),
                                                 run(3, real[2], "real-cpu", 0), run(4, sim[2], "simulated", 3)});
        EXPECT_DOUBLE_EQ(row(parts, "load").delta[1], 0.25 * 41);
        EXPECT_EQ(parts.summary[2], "TTFT's mean is +10.25 ms off (the mean of the pairs' differences, which add up); "
                                    "by part: load +10.25 ms.");
        // compare-real's TTFT MEAN BY PART gives the same: each side's mean, their difference the pairs' mean one.
        SimVsRealPart load{"load", "load", 41, 1.25 * 41, {40, 41, 42}, {50, 51.25, 52.5}};
        EXPECT_DOUBLE_EQ(load.differenceMs(), 10.25);
        EXPECT_EQ(load.pairDifferencesMs(), (std::vector<double>{10, 10.25, 10.5}));
    }
    for (std::size_t k = 0; k < 3; ++k)
        real[k].ttftMs.mean = real[k].loadMs.mean = sim[k].ttftMs.mean = sim[k].loadMs.mean = 0;
    const RunComparison equal = compareRuns({run(1, real[0], "real-cpu", 0), run(2, sim[0], "simulated", 1),
                                             run(5, real[1], "real-cpu", 0), run(6, sim[1], "simulated", 5)});
    EXPECT_EQ(equal.pairs, 2u);
    EXPECT_EQ(equal.summary.back(), "Messages, flows and bytes are equal in every pair.");
    sim[0].flows = sim[1].flows = 701;
    EXPECT_EQ(compareRuns({run(1, real[0], "real-cpu", 0), run(2, sim[0], "simulated", 1),
                           run(5, real[1], "real-cpu", 0), run(6, sim[1], "simulated", 5)})
                  .summary.back(),
              "Messages, flows or bytes differ in every pair (network flows): most likely transfers raced, and the "
              "real run's order of events followed its measured times.");
    sim[0].flows = sim[1].flows = 700;
    // Two pairs: the median is the mean of the middle two (+12% and -5%: +3.5%).
    EXPECT_DOUBLE_EQ(row(equal, "TTFT p50").relative[1], 0.035);
    // The amount follows the share's sign: -1 ms on 1 ms and +10 ms on 1000 ms are -100% and +1%, a median error of
    // -49.5%, while the median of the differences is +4.5 ms.
    real[0].ttftMs.p50 = 1, sim[0].ttftMs.p50 = 0;
    real[1].ttftMs.p50 = 1000, sim[1].ttftMs.p50 = 1010;
    {
        const RunComparison signs = compareRuns({run(1, real[0], "real-cpu", 0), run(2, sim[0], "simulated", 1),
                                                 run(5, real[1], "real-cpu", 0), run(6, sim[1], "simulated", 5)});
        EXPECT_DOUBLE_EQ(row(signs, "TTFT p50").relative[1], -0.495);
        EXPECT_LT(row(signs, "TTFT p50").delta[1], 0);
    }
    // A pair's difference under the last digit shown is no error, as compare-real takes it (SimVsRealRow::
    // pairErrorPct): 0.0004 ms on 0.001 ms is 40%, but none; with a 0 real figure too.
    real[0].transferMs.p50 = 0.001, sim[0].transferMs.p50 = 0.0014;
    real[1].transferMs.p50 = 0, sim[1].transferMs.p50 = 0.0003;
    {
        const RunComparison tiny = compareRuns({run(1, real[0], "real-cpu", 0), run(2, sim[0], "simulated", 1),
                                                run(5, real[1], "real-cpu", 0), run(6, sim[1], "simulated", 5)});
        EXPECT_EQ(row(tiny, "KV transfer p50").pairRelative, (std::vector<double>{0, 0}));
        EXPECT_EQ(row(tiny, "KV transfer p50").verdicts[1], Verdict::Within);
        EXPECT_EQ(SimVsRealRow::pairErrorPct(0.001, 0.0014), 0.0);
        EXPECT_TRUE(std::isnan(SimVsRealRow::pairErrorPct(0, 1)));
    }
    // Pairs of unlike runs (another seed on one side) are not repeats of one comparison: runs to choose between.
    {
        ComparedRun otherSeed = run(5, real[1], "real-cpu", 0);
        otherSeed.info.seed = 2;
        const RunComparison unlike = compareRuns({run(1, real[0], "real-cpu", 0), run(2, sim[0], "simulated", 1),
                                                  otherSeed, run(6, sim[1], "simulated", 5)});
        EXPECT_FALSE(unlike.simulatorError);
        EXPECT_EQ(unlike.columns.size(), 4u);
    }

    // Not pairs, so runs to choose between: a real run without its model, two models of one real run, a model of a
    // run not among them.
    for (const RunComparison& choice :
         {compareRuns({run(1, real[0], "real-cpu", 0), run(2, sim[0], "simulated", 1), run(5, real[1], "real-cpu", 0)}),
          compareRuns({run(1, real[0], "real-cpu", 0), run(2, sim[0], "simulated", 1), run(5, real[1], "real-cpu", 0),
                       run(6, sim[1], "simulated", 1)}),
          compareRuns({run(1, real[0], "real-cpu", 0), run(2, sim[0], "simulated", 1), run(5, real[1], "real-cpu", 0),
                       run(6, sim[1], "simulated", 9)})}) {
        EXPECT_FALSE(choice.simulatorError);
        EXPECT_EQ(choice.pairs, 0u);
        EXPECT_EQ(choice.columns.size(), choice.titles.size());
        EXPECT_TRUE(row(choice, "TTFT p50").pairRelative.empty());
    }
}

TEST(RunComparison, MsiAgainstLazyCausalOnTheDefaultScenario)
{
    const RunResult msi = runDefault("msi-directory", 200);
    const RunResult lazy = runDefault("lazy-causal", 200);
    const RunComparison c = compareRuns({compared(1, msi), compared(2, lazy)});

    // Only the protocol differs, so it titles the columns.
    ASSERT_EQ(c.titles.size(), 2u);
    EXPECT_EQ(c.titles[0], "msi-directory");
    EXPECT_EQ(c.titles[1], "lazy-causal");

    // Deltas against the first run, absolute and relative.
    const MetricRow& messages = row(c, "Messages");
    const double m0 = double(trafficCounts(msi.summary).messages), m1 = double(trafficCounts(lazy.summary).messages);
    EXPECT_EQ(messages.values[0], m0);
    EXPECT_EQ(messages.delta[1], m1 - m0);
    EXPECT_DOUBLE_EQ(messages.relative[1], (m1 - m0) / m0);
    EXPECT_EQ(messages.verdicts[0], Verdict::Baseline);
    EXPECT_EQ(messages.verdicts[1], m1 > m0 ? Verdict::Worse : Verdict::Better);

    const MetricRow& ttft = row(c, "TTFT p50");
    const double allowed = std::max({0.01 * msi.summary.ttftMs.p50, ttft.noise[0], ttft.noise[1], 0.01});
    EXPECT_EQ(ttft.allowance[1], allowed);
    EXPECT_GT(ttft.noise[0], 0.0); // 200 requests: the median is known to within some ranks
    EXPECT_EQ(ttft.verdicts[1] == Verdict::Same,
              std::fabs(lazy.summary.ttftMs.p50 - msi.summary.ttftMs.p50) <= allowed);

    // Lazy-causal returns stale reads, so the staleness group is shown; nothing failed, so failures are not.
    ASSERT_GT(lazy.summary.staleness.staleReads, 0u);
    EXPECT_NO_THROW(row(c, "Stale block reads"));
    EXPECT_THROW(row(c, "Requests not completed"), std::runtime_error);
    EXPECT_THROW(row(c, "Sequences taken off HBM"), std::runtime_error); // neither run has KV tiers

    // The summary's figures are the runs' own: the message and byte factors and the stale share.
    ASSERT_EQ(c.summary.size(), 2u);
    const double dataRatio = trafficCounts(lazy.summary).dataBytes / trafficCounts(msi.summary).dataBytes;
    const double stale = 100.0 * double(lazy.summary.staleness.staleReads) / double(lazy.summary.staleness.reads);
    EXPECT_EQ(c.summary[0].rfind("lazy-causal against msi-directory: ", 0), 0u) << c.summary[0];
    EXPECT_NE(c.summary[0].find(fmt::format("{:.1f}× messages", m1 / m0)), std::string::npos) << c.summary[0];
    EXPECT_NE(c.summary[0].find(fmt::format("{:.1f}× data bytes", dataRatio)), std::string::npos) << c.summary[0];
    EXPECT_NE(c.summary[0].find(fmt::format("{:.2g}% stale reads", stale)), std::string::npos) << c.summary[0];
    // msi-directory sends fewer messages and bytes and never reads stale data: the verdict names it so.
    EXPECT_NE(c.summary[1].find("msi-directory sends"), std::string::npos) << c.summary[1];
}

// A run with decode KV tiers shows the tiers' group, its figures read from the summary.
TEST(RunComparison, KvTiersGroupShowsWhenARunHasTiers)
{
    RunSummary none, tiered;
    none.requests = tiered.requests = none.completed = tiered.completed = 10;
    tiered.kvTiers.enabled = true;
    tiered.kvTiers.preemptions = 7;
    tiered.kvTiers.offHbmMs = 2500;
    tiered.kvTiers.tiers.push_back({.tier = "dram", .messages = 14, .bytesDown = 3e9, .bytesUp = 1e9});
    tiered.kvTiers.tiers.push_back({.tier = "cxl", .messages = 6, .bytesDown = 2e9, .bytesUp = 2e9});
    const RunComparison c = compareRuns({{{}, &none}, {{}, &tiered}});
    EXPECT_EQ(row(c, "Sequences taken off HBM").values, (std::vector<double>{0, 7}));
    EXPECT_EQ(row(c, "Time off HBM (summed)").values, (std::vector<double>{0, 2.5}));
    EXPECT_EQ(row(c, "Tier messages").values, (std::vector<double>{0, 20}));
    EXPECT_EQ(row(c, "Tier bytes (down + up)").values, (std::vector<double>{0, 8e9}));
    EXPECT_THROW(row(compareRuns({{{}, &none}, {{}, &none}}), "Tier messages"), std::runtime_error);
}

// A run whose leases expire (coherence.lease) shows the leases group: trusted reads after expiry against refetches.
TEST(RunComparison, LeasesGroupShowsWhenARunsLeasesExpire)
{
    RunSummary none, trust, refetch;
    none.requests = trust.requests = refetch.requests = none.completed = trust.completed = refetch.completed = 10;
    trust.lease = {kSecond, false, 60, 45, 9, 0, 80};
    refetch.lease = {kSecond, true, 105, 0, 0, 45, 35};
    const RunComparison c = compareRuns({{{}, &trust}, {{}, &refetch}});
    EXPECT_EQ(row(c, "Reads after the lease expired").values, (std::vector<double>{45, 0}));
    EXPECT_EQ(row(c, "Decode steps with such a read").values, (std::vector<double>{9, 0}));
    EXPECT_EQ(row(c, "Blocks decode fetched again at expiry").values, (std::vector<double>{0, 45}));
    EXPECT_EQ(row(c, "Reads after the lease expired").verdicts[1], Verdict::Better);
    EXPECT_THROW(row(compareRuns({{{}, &none}, {{}, &none}}), "Reads after the lease expired"), std::runtime_error);
}

// A run that shared prefix blocks (serving.shared_prefix) shows their group: what decode found held, and the waits.
TEST(RunComparison, SharedPrefixGroupShowsWhenARunSharedPrefixBlocks)
{
    RunSummary none, msi, migratory;
    none.requests = msi.requests = migratory.requests = none.completed = msi.completed = migratory.completed = 10;
    msi.sharedPrefix.enabled = migratory.sharedPrefix.enabled = true;
    msi.sharedPrefix.acquires = migratory.sharedPrefix.acquires = 40;
    msi.sharedPrefix.acquireHits = 10;
    migratory.sharedPrefix.acquireHits = 4;
    migratory.sharedPrefix.readMisses = 300;
    msi.sharedPrefix.bytes = 1e9;
    migratory.sharedPrefix.bytes = 9e9;
    const RunComparison c = compareRuns({{{}, &msi}, {{}, &migratory}});
    EXPECT_EQ(row(c, "Prefix blocks decode found held").values, (std::vector<double>{25, 10}));
    EXPECT_EQ(row(c, "Prefix blocks decode found held").verdicts[1], Verdict::Worse);
    EXPECT_EQ(row(c, "Shared block reads that waited").values, (std::vector<double>{0, 300}));
    EXPECT_EQ(row(c, "Shared block bytes across links").values, (std::vector<double>{1e9, 9e9}));
    EXPECT_THROW(row(compareRuns({{{}, &none}, {{}, &none}}), "Shared block reads that waited"), std::runtime_error);
}

// A run with node failures shows the failures group even when every request completed.
TEST(RunComparison, FailuresGroupShowsWhenARunHasFailures)
{
    RunSummary none, failing;
    none.requests = failing.requests = none.completed = failing.completed = 10;
    failing.failures.enabled = true;
    failing.failures.hits = 4;
    failing.failures.fromCopy = 3;
    failing.failures.recomputedTokens = 250;
    failing.failures.availability = 0.9;
    const RunComparison c = compareRuns({{{}, &none}, {{}, &failing}});
    EXPECT_EQ(row(c, "Requests a node failure hit").values, (std::vector<double>{0, 4}));
    EXPECT_EQ(row(c, "Recoveries from a surviving copy").values, (std::vector<double>{0, 3}));
    EXPECT_EQ(row(c, "Tokens redone (prefilled or decoded again)").values, (std::vector<double>{0, 250}));
    EXPECT_EQ(row(c, "Instance availability").values, (std::vector<double>{100, 90}));
    EXPECT_EQ(row(c, "Instance availability").verdicts[1], Verdict::Worse);
    EXPECT_THROW(row(compareRuns({{{}, &none}, {{}, &none}}), "Requests a node failure hit"), std::runtime_error);
}

// Two hand-made runs with the figures: the same latencies, 12x the messages, 2.6x the data bytes and
// 31 of 10,000 reads stale.
TEST(RunComparison, SummarySaysWhichIsCheaperWhenLatencyIsTheSame)
{
    RunSummary strong, lazy;
    for (RunSummary* s : {&strong, &lazy}) {
        s->requests = s->completed = 100;
        s->ttftMs = {100, 39.0, 39.0, 45.0, 60.0, 61.0};
        s->tpotMs = {100, 7.6, 7.6, 7.9, 8.1, 8.2};
    }
    lazy.ttftMs.p50 = 38.82; // 0.5% lower: about the same
    strong.protocol = "msi-directory";
    lazy.protocol = "lazy-causal";
    strong.messagesByKind = {{"GetS", false, 1000, 64000, "request"}, {"Data", true, 1000, 1e9, "data"}};
    lazy.messagesByKind = {{"GetS", false, 12000, 768000, "request"}, {"Data", true, 12000, 2.6e9, "data"}};
    lazy.staleness.reads = 10000;
    lazy.staleness.staleReads = 31;
    strong.staleness.reads = 10000;
    ComparedRun a, b;
    a.info.id = 1;
    b.info.id = 2;
    a.summary = &strong;
    b.summary = &lazy;
    const RunComparison c = compareRuns({a, b});
    ASSERT_EQ(c.summary.size(), 2u);
    EXPECT_EQ(c.summary[0], "lazy-causal against msi-directory: the same TTFT and TPOT (p50 and p99 within 1% or "
                            "their noise); 12× messages, 2.6× data bytes; 0.31% stale reads.");
    EXPECT_EQ(c.summary[1], "msi-directory is the cheaper choice here: the same latency with the fewest messages and "
                            "data bytes, and no stale reads.");
    EXPECT_EQ(row(c, "TTFT p50").verdicts[1], Verdict::Same);
    EXPECT_EQ(row(c, "Messages").verdicts[1], Verdict::Worse);
}

// Each run leads on one latency: no run is the fastest on every one, and the summary says who leads which.
TEST(RunComparison, SummaryNamesTheTradeOffWhenNoRunIsFastestOnEveryLatency)
{
    RunSummary a, b;
    for (RunSummary* s : {&a, &b}) {
        s->requests = s->completed = 100;
        s->ttftMs = {100, 40, 40, 50, 60, 61};
        s->tpotMs = {100, 7, 7, 8, 9, 9};
        s->messagesByKind = {{"Data", true, 100, 1e6, "data"}};
    }
    a.protocol = "msi-directory";
    b.protocol = "moesi-directory";
    b.ttftMs.p50 = 30; // b leads TTFT p50
    a.tpotMs.p50 = 6;  // a leads TPOT p50
    b.messagesByKind[0].bytes = 5e5;
    ComparedRun ra, rb;
    ra.summary = &a;
    rb.summary = &b;
    const RunComparison c = compareRuns({ra, rb});
    ASSERT_EQ(c.summary.size(), 2u);
    EXPECT_EQ(c.summary[1], "No run is the fastest on every latency (lowest TTFT p50: moesi-directory; TPOT p50: "
                            "msi-directory); moesi-directory sends the fewest data bytes.");
}

TEST(RunComparison, TitlesNameWhatDiffers)
{
    RunSummary s;
    s.protocol = "msi-directory";
    ComparedRun a, b, c;
    a.info.id = 1;
    a.info.name = "first";
    a.info.seed = 1;
    b = a;
    b.info.id = 2;
    b.info.seed = 7;
    c = a;
    c.info.id = 3;
    a.summary = b.summary = c.summary = &s;
    EXPECT_EQ(compareRuns({a, b}).titles, (std::vector<std::string>{"seed 1", "seed 7"}));
    // Nothing differs between 1 and 3: their ids and names tell them apart.
    EXPECT_EQ(compareRuns({a, c}).titles, (std::vector<std::string>{"#1 first", "#3 first"}));
    // 1 and 3 read the same where only the seed differs.
    EXPECT_EQ(compareRuns({a, b, c}).titles, (std::vector<std::string>{"seed 1 (#1)", "seed 7", "seed 1 (#3)"}));
}

TEST(RunComparison, QuantileNoiseComesFromTheOrderStatistics)
{
    // 0..99: the median's 95% interval spans ranks 49.5 -/+ 1.96 sqrt(100 x 0.25) = 49.5 -/+ 9.8, so ranks 39..60.
    std::vector<double> v;
    for (int i = 0; i < 100; ++i)
        v.push_back(i);
    EXPECT_DOUBLE_EQ(quantileNoise(v, 0.5), (60.0 - 39.0) / 2);
    EXPECT_EQ(quantileNoise({5.0}, 0.5), 0.0);
}

} // namespace
} // namespace coh::core
