// Stale reads run for real (docs/real-backend.md#stale-reads): decode attention over a block's older bytes against its
// latest, with the error each read caused.
#include "core/real/stale_read.h"
#include "core/serving/serving_engine.h"
#include "core/store/backend_json.h"
#include "engine_fixtures.h"

#include <gtest/gtest.h>

#include <numeric>
#include <random>
#include <vector>

namespace coh::test {
namespace {

using core::real::PagedKvShape;
using core::real::PagedSequence;

struct Pool {
    PagedKvShape shape;
    std::vector<float> k, v, q;
    explicit Pool(std::uint32_t blocks)
    {
        shape.queryHeads = 8;
        shape.kvHeads = 2;
        shape.headDim = 64;
        shape.blockTokens = 16;
        std::mt19937 rng(3);
        std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
        for (auto* x : {&k, &v}) {
            x->resize(std::size_t{blocks} * shape.blockFloats());
            for (auto& f : *x)
                f = uniform(rng);
        }
        q.resize(std::size_t{shape.queryHeads} * shape.headDim);
        for (auto& f : q)
            f = uniform(rng);
    }
    core::StaleReadError measure(const std::vector<std::uint32_t>& fresh, const std::vector<std::uint32_t>& stale,
                                 std::uint32_t context) const
    {
        const PagedSequence sequence{fresh, context};
        std::vector<float> out(q.size());
        core::real::pagedDecodeAttention(shape, k, v, q, std::span(&sequence, 1), 0.125f, out);
        return core::real::measureStaleRead(shape, k, v, q, sequence, out, stale, 0.125f);
    }
};

TEST(StaleRead, TheErrorGrowsWithTheStalePartOfTheContext)
{
    const Pool pool(64);
    std::vector<std::uint32_t> fresh(8); // 8 blocks, the last one partly filled: 120 tokens
    std::iota(fresh.begin(), fresh.end(), 0u);
    const std::uint32_t context = 120;
    // Nothing stale: exactly no error.
    const auto none = pool.measure(fresh, fresh, context);
    EXPECT_EQ(none.staleTokens, 0u);
    EXPECT_EQ(none.relL2, 0.0);
    EXPECT_EQ(none.maxAbs, 0.0);
    EXPECT_EQ(none.contextTokens, context);

    auto oneBlock = fresh;
    oneBlock[2] = 40; // a block read as the bytes it held before
    const auto one = pool.measure(fresh, oneBlock, context);
    EXPECT_EQ(one.staleTokens, 16u);
    EXPECT_GT(one.relL2, 0.0);
    EXPECT_GT(one.maxAbs, 0.0);

    auto all = fresh;
    for (std::size_t b = 0; b < all.size(); ++b)
        all[b] = static_cast<std::uint32_t>(32 + b);
    const auto whole = pool.measure(fresh, all, context);
    EXPECT_EQ(whole.staleTokens, context); // the partly filled last block counts its 8 tokens
    // Near-uniform attention over independent values: one stale block of eight moves the output by about
    // sqrt(2 x 16/120), the whole context by about sqrt(2).
    EXPECT_LT(one.relL2, whole.relL2);
    EXPECT_GT(whole.relL2, 1.0);
    EXPECT_LT(whole.relL2, 2.0);
    EXPECT_THROW(pool.measure(fresh, {0, 1}, context), std::invalid_argument);
}

TEST(StaleRead, ALazyCausalRealRunMeasuresEveryStaleDecodeRead)
{
    Scenario s = twoGpuScenario();
    s.coherence.decode = "lazy-causal";
    s.topology.nodes.push_back(servingNode("h0", NodeRole::Decode));
    s.topology.links.push_back(link("p0", "h0", kMicrosecond, 1e9));
    s.coherence.home = HomePolicy::Node;
    s.coherence.homeNode = "h0"; // prefill's update reaches decode through a third node: decode can read first
    const Workload w = poissonWorkload(12, 200.0, 600, 8, 3);
    RunOptions sim;
    const RunResult simulated = runScenario(s, w, sim);
    RunOptions options;
    options.backend.name = "real-cpu";
    options.backend.realCpu.arenaBytes = 1 << 20;
    const RunResult real = runScenario(s, w, options);
    ASSERT_GT(real.summary.staleness.staleSteps, 0u) << "simulated: " << simulated.summary.staleness.staleSteps;
    // One measured read per decode step of a sequence that read a stale block: the run's own count.
    const auto& reads = real.summary.backend.staleReads;
    ASSERT_EQ(reads.size(), real.summary.staleness.staleSteps);
    for (const auto& r : reads) {
        EXPECT_GT(r.staleTokens, 0u);
        EXPECT_LE(r.staleTokens, r.contextTokens);
        EXPECT_GT(r.relL2, 0.0);
        EXPECT_GT(r.maxAbs, 0.0);
    }
    // They go into the stored summary and come back.
    EXPECT_EQ(backendFromJson(toJson(real.summary.backend)).staleReads, reads);
    // The simulator measures nothing.
    EXPECT_TRUE(simulated.summary.backend.staleReads.empty());
}

} // namespace
} // namespace coh::test
