// Blocks held per node and protocol state: counted only in states that hold data, time-averaged per bucket.
#include "core/coherence/protocol_registry.h"
#include "core/engine/node_block_states.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

namespace coh::core {
namespace {

TEST(NodeBlockStates, AveragesTheBlocksHeldOverEachBucket)
{
    const coherence::Protocol& msi = coherence::findProtocol("msi-directory");
    const auto state = [&](const char* name) { return static_cast<std::uint8_t>(msi.cache.findState(name)); };
    NodeBlockStates blocks(msi, 2, kMillisecond);
    // Node 1: 4 blocks written (I -> M) at 0, shared (M -> S) at 1.5 ms, dropped (S -> I) at 2.5 ms.
    blocks.change(0, 1, state("I"), state("M"), 4);
    blocks.change(1'500'000, 1, state("M"), state("S"), 4);
    blocks.change(2'500'000, 1, state("S"), state("I"), 4);
    const auto series = blocks.series(3 * kMillisecond);
    ASSERT_EQ(series.size(), 2u); // M and S at node 1; I is never counted, node 0 held nothing
    for (const auto& s : series) {
        EXPECT_EQ(s.node, 1u);
        EXPECT_EQ(s.peakBlocks, 4.0);
        if (s.state == "M")
            EXPECT_EQ(s.blocksPerBucket, (std::vector<double>{4.0, 2.0}));
        else
            EXPECT_EQ(s.blocksPerBucket, (std::vector<double>{0.0, 2.0, 2.0}));
    }
}

TEST(NodeBlockStates, StepsGiveTheExactCountFromEachChange)
{
    const coherence::Protocol& msi = coherence::findProtocol("msi-directory");
    const auto state = [&](const char* name) { return static_cast<std::uint8_t>(msi.cache.findState(name)); };
    NodeBlockStates blocks(msi, 2, kMillisecond);
    blocks.change(700, 1, state("I"), state("M"), 4);
    blocks.change(1'500'000, 1, state("M"), state("S"), 4);
    blocks.change(1'500'000, 1, state("I"), state("S"), 2); // same instant: one step with the sum
    blocks.change(2'500'000, 1, state("S"), state("I"), 6);
    const auto series = blocks.series(3 * kMillisecond);
    ASSERT_EQ(series.size(), 2u); // M and S at node 1
    for (const auto& s : series) {
        EXPECT_EQ(s.stepResolution, 1);
        if (s.state == "M")
            EXPECT_EQ(s.steps, (std::vector<BlockCountStep>{{700, 4}, {1'500'000, 0}}));
        else
            EXPECT_EQ(s.steps, (std::vector<BlockCountStep>{{1'500'000, 6}, {2'500'000, 0}}));
    }
}

// The count in force at t: the last step at or before t, 0 before the first.
double countAt(const std::vector<BlockCountStep>& steps, SimTime t)
{
    const auto after =
        std::upper_bound(steps.begin(), steps.end(), t, [](SimTime at, const BlockCountStep& s) { return at < s.at; });
    return after == steps.begin() ? 0.0 : (after - 1)->blocks;
}

TEST(NodeBlockStates, DenseStepsCoarsenButNeverShowAValueEarly)
{
    const coherence::Protocol& msi = coherence::findProtocol("msi-directory");
    const auto I = static_cast<std::uint8_t>(msi.cache.findState("I"));
    const auto M = static_cast<std::uint8_t>(msi.cache.findState("M"));
    NodeBlockStates blocks(msi, 1, kMillisecond);
    // 20,000 changes 1..20 ns apart, then a quiet change 1 ms later: far more than kMaxBlockSteps.
    std::mt19937_64 rng(11);
    std::uniform_int_distribution<SimTime> gap(1, 20);
    std::vector<BlockCountStep> truth;
    double count = 0;
    SimTime t = 0;
    for (int i = 0; i < 20'000; ++i) {
        t += gap(rng);
        const bool up = count == 0 || (i % 3 != 0);
        blocks.change(t, 0, up ? I : M, up ? M : I, 1);
        count += up ? 1 : -1;
        truth.push_back({t, count});
    }
    const SimTime quiet = t + kMillisecond;
    blocks.change(quiet, 0, I, M, 5);
    truth.push_back({quiet, count + 5});
    const auto series = blocks.series(quiet + 1);
    ASSERT_EQ(series.size(), 1u);
    const auto& steps = series[0].steps;
    EXPECT_LE(steps.size(), kMaxBlockSteps);
    EXPECT_GT(series[0].stepResolution, 1);
    // Every kept step is a true (time, count) pair: nothing is shown before it happened, nothing invented.
    for (const auto& s : steps)
        EXPECT_EQ(countAt(truth, s.at), s.blocks) << s.at;
    // At 0 and before the first change the count is 0; the last, isolated change is exact.
    EXPECT_EQ(countAt(steps, 0), 0.0);
    EXPECT_EQ(countAt(steps, truth.front().at - 1), 0.0);
    EXPECT_EQ(steps.back().at, quiet);
    EXPECT_EQ(steps.back().blocks, count + 5);
    // Each resolution cell keeps its last change, so at the end of every cell the shown count is exact; inside a
    // cell it may lag behind, by less than the cell.
    const SimTime w = series[0].stepResolution;
    for (SimTime end = w - 1; end < quiet + w; end += w)
        ASSERT_EQ(countAt(steps, end), countAt(truth, end)) << end;
}

TEST(NodeBlockStates, CoarseningKeepsWhatDoublingTheWidthOneStepAtATimeKeeps)
{
    // The rule as documented, done the slow way: every change appended (a change in the last step's cell replaces
    // it), and whenever more than kMaxBlockSteps are kept, the width doubles, merging each cell to its last change,
    // until at most half of that remain. Bursts of every density (1 ns to 64 us apart, some at the same instant)
    // make the width jump by several doublings at once as well as by one.
    const coherence::Protocol& msi = coherence::findProtocol("msi-directory");
    const auto I = static_cast<std::uint8_t>(msi.cache.findState("I"));
    const auto S = static_cast<std::uint8_t>(msi.cache.findState("S"));
    NodeBlockStates blocks(msi, 1, kMillisecond);
    std::vector<BlockCountStep> expected;
    SimTime width = 1;
    std::mt19937_64 rng(5);
    double count = 0;
    SimTime t = 0;
    for (int burst = 0; burst < 60; ++burst) {
        std::uniform_int_distribution<SimTime> gap(0, SimTime{1} << (burst % 17));
        for (int i = 0; i < 1'500; ++i) {
            t += gap(rng);
            const bool up = count == 0 || rng() % 3 != 0;
            blocks.change(t, 0, up ? I : S, up ? S : I, 1);
            count += up ? 1 : -1;
            if (!expected.empty() && expected.back().at / width == t / width) {
                expected.back() = {t, count};
                continue;
            }
            expected.push_back({t, count});
            if (expected.size() <= kMaxBlockSteps)
                continue;
            do {
                width *= 2;
                std::vector<BlockCountStep> merged;
                for (const auto& step : expected) {
                    if (!merged.empty() && merged.back().at / width == step.at / width)
                        merged.back() = step;
                    else
                        merged.push_back(step);
                }
                expected = std::move(merged);
            } while (expected.size() > kMaxBlockSteps / 2);
        }
    }
    const auto series = blocks.series(t + 1);
    ASSERT_EQ(series.size(), 1u);
    EXPECT_GT(width, 64); // the bursts did coarsen, more than once
    EXPECT_EQ(series[0].stepResolution, width);
    EXPECT_EQ(series[0].steps, expected);
}

} // namespace
} // namespace coh::core
