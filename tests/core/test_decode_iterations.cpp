// The decode iterations' record: every iteration of every continuous batch, with its coherence wait and its
// compute, bounded by record.max_iterations as a uniform sample. Checked against the roofline and the token count.
#include "core/serving/cost_model.h"
#include "core/serving/serving_engine.h"
#include "engine_fixtures.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <tuple>

namespace coh::test {
namespace {

auto key(const DecodeIterationRecord& it)
{
    return std::tie(it.start, it.computeStart, it.end, it.instance, it.sequences, it.contextTokens);
}

TEST(DecodeIterations, EveryIterationIsRecordedWithTheRooflineComputeOfItsBatch)
{
    const Scenario s = twoGpuScenario();
    const Workload w = poissonWorkload(60, 40.0, 10, 8, 11);
    const RunResult r = runScenario(s, w);
    ASSERT_EQ(r.requests.size(), w.requests.size());
    ASSERT_FALSE(r.iterations.empty());
    EXPECT_EQ(r.summary.decodeIterations, r.iterations.size());

    // Each iteration makes one token for every sequence in it: together, every output token of the run.
    std::uint64_t tokens = 0, sequences = 0;
    for (const RequestMetrics& m : r.requests)
        tokens += m.outputTokens;
    const CostModel cost(s.model, s.serving);
    const InstanceHardware hw{1e3, 1e2, 80e9};
    for (const DecodeIterationRecord& it : r.iterations) {
        sequences += it.sequences;
        EXPECT_EQ(it.instance, 1u); // decode0
        EXPECT_GE(it.sequences, 1u);
        // A plain copy: nothing to wait for once the KV is in, so compute starts with the iteration.
        EXPECT_EQ(it.computeStart, it.start);
        EXPECT_EQ(it.end - it.computeStart, cost.decode(it.sequences, it.contextTokens, hw));
    }
    EXPECT_EQ(sequences, tokens);
    // By start, and one instance runs one iteration at a time.
    for (std::size_t i = 1; i < r.iterations.size(); ++i)
        EXPECT_LE(r.iterations[i - 1].end, r.iterations[i].start) << i;
    // Batching happened: fewer iterations than tokens.
    EXPECT_LT(r.iterations.size(), tokens);
}

TEST(DecodeIterations, AProtocolsWaitIsTheRequestsStallAndTransfer)
{
    Scenario s = twoGpuScenario();
    s.coherence.decode = s.coherence.prefill = "msi-directory";
    Workload w;
    w.requests.push_back({0, 100, 20, 0, 0}); // alone: every iteration is this request's step
    const RunResult r = runScenario(s, w);
    ASSERT_EQ(r.requests.size(), 1u);
    ASSERT_EQ(r.iterations.size(), 20u);
    SimTime waited = 0;
    for (std::size_t i = 0; i < r.iterations.size(); ++i) {
        const DecodeIterationRecord& it = r.iterations[i];
        EXPECT_EQ(it.sequences, 1u);
        EXPECT_EQ(it.contextTokens, 100u + i); // the prompt and the tokens made before this one
        EXPECT_LE(it.start, it.computeStart);
        EXPECT_LE(it.computeStart, it.end);
        if (i > 0) // TPOT's parts count from the second token
            waited += it.computeStart - it.start;
    }
    // MSI: decode's first append to the tail block it shares with prefill waits for write permission.
    EXPECT_GT(waited, 0);
    EXPECT_EQ(waited, r.requests[0].decodeStall + r.requests[0].decodeTransfer);
    EXPECT_EQ(r.iterations.back().end, r.requests[0].finish);
}

TEST(DecodeIterations, BeyondTheLimitTheRecordIsASampleOfTheSameIterations)
{
    Scenario s = twoGpuScenario();
    const Workload w = poissonWorkload(60, 40.0, 10, 8, 11);
    const RunResult all = runScenario(s, w);
    s.record.maxIterations = 7;
    const RunResult sampled = runScenario(s, w);
    EXPECT_EQ(sampled.summary.decodeIterations, all.summary.decodeIterations); // the count stays exact
    ASSERT_EQ(sampled.iterations.size(), 7u);
    std::size_t from = 0;
    for (const DecodeIterationRecord& it : sampled.iterations) {
        // In start order, and each one is an iteration of the full record.
        const auto found = std::find_if(all.iterations.begin() + static_cast<std::ptrdiff_t>(from),
                                        all.iterations.end(), [&](const auto& x) { return key(x) == key(it); });
        ASSERT_NE(found, all.iterations.end());
        from = static_cast<std::size_t>(found - all.iterations.begin()) + 1;
    }
    // The sample is not simply the first seven.
    EXPECT_GT(sampled.iterations.back().start, all.iterations[6].start);

    s.record.maxIterations = 0;
    const RunResult none = runScenario(s, w);
    EXPECT_TRUE(none.iterations.empty());
    EXPECT_EQ(none.summary.decodeIterations, all.summary.decodeIterations);
}

} // namespace
} // namespace coh::test
