// The event record: every message up to the limit, a uniform sample beyond it, handed over in start order.
#include "core/engine/event_recorder.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

namespace coh::core {
namespace {

MessageRecord message(SimTime start, std::uint32_t kind)
{
    MessageRecord m;
    m.start = start;
    m.end = start + 10;
    m.kind = kind;
    return m;
}

std::vector<MessageRecord> stableByStart(std::vector<MessageRecord> v)
{
    std::stable_sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return a.start < b.start; });
    return v;
}

void expectSame(const std::vector<MessageRecord>& got, const std::vector<MessageRecord>& want)
{
    ASSERT_EQ(got.size(), want.size());
    for (std::size_t i = 0; i < got.size(); ++i) {
        EXPECT_EQ(got[i].start, want[i].start) << i;
        EXPECT_EQ(got[i].kind, want[i].kind) << i; // ties keep the order they were recorded in
    }
}

TEST(EventRecorder, HandsOverInStartOrderKeepingTiesInRecordOrder)
{
    // Recorded at delivery: mostly in start order, with a long message overtaken by short ones.
    const std::vector<MessageRecord> added = {message(10, 0), message(30, 1), message(20, 2), message(30, 3),
                                              message(5, 4),  message(40, 5), message(30, 6)};
    EventRecorder recorder(100, 1);
    for (const auto& m : added)
        recorder.add(m);
    expectSame(recorder.takeSorted(), stableByStart(added));
}

TEST(EventRecorder, AHeavilyShuffledRecordSortsTheSame)
{
    // Far too many overtakes for the insertion pass: the merge sort takes over with the same result.
    std::mt19937 rng(3);
    std::vector<MessageRecord> added;
    for (std::uint32_t i = 0; i < 5000; ++i)
        added.push_back(message(static_cast<SimTime>(rng() % 500), i));
    std::reverse(added.begin(), added.end());
    EventRecorder recorder(10000, 1);
    for (const auto& m : added)
        recorder.add(m);
    expectSame(recorder.takeSorted(), stableByStart(added));
}

TEST(EventRecorder, KeepsAUniformSampleBeyondTheLimit)
{
    EventRecorder recorder(100, 9);
    for (std::uint32_t i = 0; i < 10000; ++i)
        recorder.add(message(i, i));
    EXPECT_EQ(recorder.total(), 10000u);
    const auto kept = recorder.takeSorted();
    ASSERT_EQ(kept.size(), 100u);
    // Reservoir sampling keeps each message with probability 1/100: the kept ones spread over the whole run.
    EXPECT_LT(kept.front().start, 1000);
    EXPECT_GT(kept.back().start, 9000);
    EXPECT_TRUE(
        std::is_sorted(kept.begin(), kept.end(), [](const auto& a, const auto& b) { return a.start < b.start; }));
}

} // namespace
} // namespace coh::core
