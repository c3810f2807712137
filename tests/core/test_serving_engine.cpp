// The serving engine against closed forms: the TTFT decomposition of a lone request, an M/D/1 queue,
// continuous batching, KV admission and determinism.
#include "core/serving/cost_model.h"
#include "core/serving/serving_engine.h"
#include "engine_fixtures.h"

#include <gtest/gtest.h>

#include <numeric>

namespace coh::test {
namespace {

TEST(ServingEngine, LoneRequestTtftIsTheSumOfItsRooflinePhases)
{
    const Scenario s = twoGpuScenario();
    Workload w;
    w.requests.push_back({0, 100, 1, 0, 0});
    const RunResult r = runScenario(s, w);
    ASSERT_EQ(r.requests.size(), 1u);
    const RequestMetrics& m = r.requests[0];
    // Prefill of 100 tokens on 1e12 FLOP/s, 1e11 B/s: FLOPs 2e9*100 + 2*1*64*100^2 = 2.0000128e11 -> 200,001,280 ns
    // (compute bound: bytes 2e9 + 25,600 take only 20 ms).
    EXPECT_EQ(m.queueing(), 0);
    EXPECT_EQ(m.prefill(), 200'001'280);
    EXPECT_EQ(m.admission(), 0);
    // KV: 100 tokens x 256 B = 25,600 B over 1 GB/s plus 1 us.
    EXPECT_EQ(m.transfer(), 25'600 + 1'000);
    EXPECT_EQ(m.load(), 0);
    // Decode step, batch 1, context 100: bytes 2e9 + 25,600 at 1e11 B/s = 20,000,256 ns (memory bound).
    EXPECT_EQ(m.firstDecode(), 20'000'256);
    EXPECT_EQ(m.ttft(), 200'001'280 + 26'600 + 20'000'256);
    EXPECT_EQ(m.tpot(), -1);
    EXPECT_EQ(r.summary.kvTransfers, 1u);
    EXPECT_DOUBLE_EQ(r.summary.kvBytes, 25'600.0);
    ASSERT_EQ(r.messages.size(), 1u);
    EXPECT_EQ(r.messages[0].blockCount, 7u); // ceil(100 / 16)
    // One link direction carried the 25,600 B; its peak utilisation is bytes / (1 GB/s x the part of its 1 s bucket
    // the run spans, 220 ms): the mean's, not below it.
    ASSERT_EQ(r.summary.links.size(), 1u);
    EXPECT_EQ(r.summary.links[0].link, "p0-d0");
    EXPECT_TRUE(r.summary.links[0].forward);
    EXPECT_DOUBLE_EQ(r.summary.links[0].bytes, 25'600.0);
    const double span = (200'001'280 + 26'600 + 20'000'256) * 1e-9;
    EXPECT_NEAR(r.summary.links[0].peakUtilization, 25'600.0 / (1e9 * span), 1e-12);
    EXPECT_NEAR(r.summary.links[0].meanUtilization, r.summary.links[0].peakUtilization, 1e-12);
    EXPECT_EQ(r.messages[0].end - r.messages[0].start, 26'600);
}

TEST(ServingEngine, DecodeTokensFollowTheIterationTimeAndTpotIsTheirMeanGap)
{
    const Scenario s = twoGpuScenario();
    Workload w;
    w.requests.push_back({0, 100, 4, 0, 0});
    const RunResult r = runScenario(s, w);
    ASSERT_EQ(r.requests.size(), 1u);
    const CostModel cost(s.model, s.serving);
    InstanceHardware hw{1e3, 1e2, 80e9};
    // Steps 2..4 attend over 101, 102, 103 cached tokens.
    const SimTime gaps = cost.decode(1, 101, hw) + cost.decode(1, 102, hw) + cost.decode(1, 103, hw);
    EXPECT_EQ(r.requests[0].finish - r.requests[0].firstToken, gaps);
    EXPECT_EQ(r.requests[0].tpot(), gaps / 3);
    EXPECT_EQ(r.summary.itlMs.count, 3u);
    // With a plain copy every later step is local: TPOT is all compute, no coherence stall.
    EXPECT_EQ(r.requests[0].decodeCompute, gaps);
    EXPECT_EQ(r.requests[0].decodeStall, 0);
    EXPECT_DOUBLE_EQ(r.summary.tpotComputeMs.mean, toMilliseconds(gaps) / 3);
}

TEST(ServingEngine, SingleServerQueueMatchesMD1MeanWait)
{
    Scenario s = twoGpuScenario();
    s.serving.decodeMaxBatchSize = 1024;
    const std::uint32_t prompt = 100;
    const CostModel cost(s.model, s.serving);
    const InstanceHardware hw{1e3, 1e2, 80e9};
    const double service = toSeconds(cost.prefill(prompt, double(prompt) * prompt, hw));
    const double rho = 0.7;
    const Workload w = poissonWorkload(200'000, rho / service, prompt, 1, 2024);
    const RunResult r = runScenario(s, w);
    ASSERT_EQ(r.requests.size(), w.requests.size());
    double wait = 0;
    for (const auto& m : r.requests)
        wait += toSeconds(m.queueing());
    wait /= static_cast<double>(r.requests.size());
    const double md1 = rho * service / (2 * (1 - rho));
    EXPECT_NEAR(wait, md1, 0.05 * md1) << "simulated mean wait " << wait << " s vs M/D/1 " << md1 << " s";
}

TEST(ServingEngine, ContinuousBatchingAdmitsReadySequencesAtIterationBoundaries)
{
    Scenario s = twoGpuScenario();
    s.serving.prefillMaxBatchSize = 8;
    Workload w;
    for (int i = 0; i < 4; ++i)
        w.requests.push_back({0, 100, 50, 0, 0});
    const RunResult r = runScenario(s, w);
    ASSERT_EQ(r.requests.size(), 4u);
    // One prefill batch of 4, one KV transfer each sharing the link, then one decode batch of 4.
    for (const auto& m : r.requests) {
        EXPECT_EQ(m.prefillStart, 0);
        EXPECT_EQ(m.prefillEnd, r.requests[0].prefillEnd);
    }
    // Four equal transfers share the link: each takes 4 x 25.6 us + 1 us.
    for (const auto& m : r.requests)
        EXPECT_EQ(m.transfer(), 4 * 25'600 + 1'000);
    // Their KV lands in the same instant, so all four join one decode step over 4 x 100 cached tokens.
    const CostModel cost(s.model, s.serving);
    const InstanceHardware hw{1e3, 1e2, 80e9};
    for (const auto& m : r.requests) {
        EXPECT_EQ(m.load(), 0);
        EXPECT_EQ(m.firstDecode(), cost.decode(4, 400, hw));
    }
}

TEST(ServingEngine, ASequenceReadyMidStepJoinsAtTheNextBoundary)
{
    Scenario s = twoGpuScenario();
    Workload w;
    w.requests.push_back({0, 100, 50, 0, 0});
    w.requests.push_back({210 * kMillisecond, 100, 5, 0, 0}); // prefilled while request 0 decodes
    const RunResult r = runScenario(s, w);
    ASSERT_EQ(r.requests.size(), 2u);
    const RequestMetrics& late = r.requests[1];
    // It waited for the step in progress, never longer than one step of request 0 alone.
    const CostModel cost(s.model, s.serving);
    const InstanceHardware hw{1e3, 1e2, 80e9};
    EXPECT_GT(late.load(), 0);
    EXPECT_LE(late.load(), cost.decode(1, 150, hw));
    // From then on it shares every step with request 0: its tokens land when request 0's do.
    EXPECT_LT(late.finish, r.requests[0].finish);
}

TEST(ServingEngine, DecodeMemoryLimitMakesRequestsWaitForAdmission)
{
    Scenario s = twoGpuScenario();
    s.serving.prefillMaxBatchSize = 8;
    // HBM of 80 GB * 0.9 - 2 GB weights, at 16 x 256 B blocks, holds ~17.1M blocks; shrink HBM so only one
    // 100 + 100 token sequence (13 blocks) fits at a time.
    s.topology.nodes[1].memory[0].capacityBytes = (2e9 + 13 * 16 * 256 + 100) / 0.9;
    Workload w;
    w.requests.push_back({0, 100, 100, 0, 0});
    w.requests.push_back({0, 100, 100, 0, 0});
    const RunResult r = runScenario(s, w);
    ASSERT_EQ(r.requests.size(), 2u);
    const auto& first = r.requests[0].admission() == 0 ? r.requests[0] : r.requests[1];
    const auto& second = r.requests[0].admission() == 0 ? r.requests[1] : r.requests[0];
    EXPECT_EQ(first.admission(), 0);
    EXPECT_EQ(second.transferStart, first.finish); // admitted the moment the first one's KV is freed
}

TEST(ServingEngine, SameInputsGiveIdenticalResults)
{
    Scenario s = twoGpuScenario();
    s.serving.prefillMaxBatchSize = 4;
    s.serving.router.policy = RouterPolicy::LeastLoaded;
    const Workload w = poissonWorkload(2'000, 3.0, 300, 40, 99);
    const RunResult a = runScenario(s, w);
    const RunResult b = runScenario(s, w);
    ASSERT_EQ(a.requests.size(), b.requests.size());
    for (std::size_t i = 0; i < a.requests.size(); ++i) {
        EXPECT_EQ(a.requests[i].firstToken, b.requests[i].firstToken);
        EXPECT_EQ(a.requests[i].finish, b.requests[i].finish);
    }
    EXPECT_EQ(a.summary.eventsExecuted, b.summary.eventsExecuted);
    EXPECT_EQ(a.summary.ttftMs.p99, b.summary.ttftMs.p99);
}

TEST(ServingEngine, ColocatedInstancesTakeTurnsOnTheirDevice)
{
    Scenario s = twoGpuScenario();
    s.topology.nodes = {servingNode("g0", NodeRole::Both)};
    s.topology.links.clear();
    s.serving.instances = {{"prefill0", InstanceRole::Prefill, {"g0"}, 0, 0},
                           {"decode0", InstanceRole::Decode, {"g0"}, 0, 0}};
    Workload w;
    w.requests.push_back({0, 100, 20, 0, 0});
    w.requests.push_back({30 * kMillisecond, 100, 1, 0, 0}); // arrives while request 0 decodes
    const RunResult r = runScenario(s, w);
    ASSERT_EQ(r.requests.size(), 2u);
    EXPECT_EQ(r.requests[0].transfer(), 0); // same device: no KV copy
    EXPECT_EQ(r.summary.kvBytes, 0.0);
    // Request 1 waited for the decode iteration in progress before its prefill could use the device.
    EXPECT_GT(r.requests[1].queueing(), 0);
    for (const auto& m : r.requests)
        EXPECT_GE(m.ttft(), m.prefill());
}

TEST(ServingEngine, CancellationStopsTheRun)
{
    const Scenario s = twoGpuScenario();
    const Workload w = poissonWorkload(1'000, 2.0, 100, 10, 1);
    std::atomic<bool> cancel{true};
    RunOptions options;
    options.cancel = &cancel;
    EXPECT_THROW(runScenario(s, w, options), RunCancelled);
}

TEST(ServingEngine, SummaryCountsTokensAndSlo)
{
    Scenario s = twoGpuScenario();
    s.slo.ttft = 230 * kMillisecond; // the lone request's TTFT is ~220 ms
    s.slo.tpot = kSecond;
    Workload w;
    w.requests.push_back({0, 100, 4, 0, 0});
    const RunResult r = runScenario(s, w);
    EXPECT_EQ(r.summary.outputTokens, 4u);
    EXPECT_EQ(r.summary.completed, 1u);
    EXPECT_DOUBLE_EQ(r.summary.sloAttainment, 1.0);
    s.slo.ttft = 200 * kMillisecond;
    EXPECT_DOUBLE_EQ(runScenario(s, w).summary.sloAttainment, 0.0);
}

} // namespace
} // namespace coh::test
