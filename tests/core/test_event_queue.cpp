// The event queue and the simulator loop: strict (time, seq) order, end time, cancellation, and the
// time-never-goes-backwards guard.
#include "core/sim/event_queue.h"
#include "core/sim/simulator.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <limits>
#include <random>
#include <set>
#include <stdexcept>
#include <tuple>
#include <vector>

namespace coh::core {
namespace {

TEST(EventQueue, PopsInTimeThenSeqOrder)
{
    EventQueue queue;
    // Same times pushed with scrambled sequence numbers: seq must break the tie.
    const std::vector<std::pair<SimTime, std::uint64_t>> input = {{30, 5}, {10, 7}, {30, 1}, {20, 3}, {10, 2},
                                                                  {30, 9}, {0, 8},  {20, 0}, {10, 4}, {30, 6}};
    for (auto [time, seq] : input)
        queue.push(Event{time, seq, 0, static_cast<std::uint32_t>(seq), seq * 100});

    const std::vector<std::pair<SimTime, std::uint64_t>> expected = {{0, 8},  {10, 2}, {10, 4}, {10, 7}, {20, 0},
                                                                     {20, 3}, {30, 1}, {30, 5}, {30, 6}, {30, 9}};
    for (auto [time, seq] : expected) {
        ASSERT_FALSE(queue.empty());
        EXPECT_EQ(queue.top().time, time);
        const Event ev = queue.pop();
        EXPECT_EQ(ev.time, time);
        EXPECT_EQ(ev.seq, seq);
        // The rest of the event travels with its key.
        EXPECT_EQ(ev.target, seq);
        EXPECT_EQ(ev.payload, seq * 100);
    }
    EXPECT_TRUE(queue.empty());
}

// Drives the queue and an ordered reference through the same random pushes and pops; `nextTime(rng, lastPopped)`
// picks each pushed time. `pushPercent` sets how full the queue gets.
template <class NextTime> void checkAgainstReference(std::uint64_t seed, int ops, int pushPercent, NextTime nextTime)
{
    std::mt19937_64 rng(seed);
    std::uniform_int_distribution<int> opDist(0, 99);
    EventQueue queue;
    std::set<std::tuple<SimTime, std::uint64_t, std::uint64_t>> reference; // (time, seq, payload)
    std::uint64_t seq = 0;
    SimTime lastPopped = 0;
    for (int op = 0; op < ops; ++op) {
        if (reference.empty() || opDist(rng) < pushPercent) {
            const SimTime time = nextTime(rng, lastPopped);
            const std::uint64_t payload = rng();
            queue.push(Event{time, seq, 1, 2, payload});
            reference.emplace(time, seq, payload);
            ++seq;
        } else {
            const auto expected = *reference.begin();
            reference.erase(reference.begin());
            ASSERT_EQ(queue.top().time, std::get<0>(expected)) << "op " << op;
            const Event ev = queue.pop();
            ASSERT_EQ(ev.time, std::get<0>(expected)) << "op " << op;
            ASSERT_EQ(ev.seq, std::get<1>(expected)) << "op " << op;
            ASSERT_EQ(ev.payload, std::get<2>(expected)) << "op " << op;
            lastPopped = ev.time;
        }
        ASSERT_EQ(queue.size(), reference.size());
    }
    while (!reference.empty()) {
        ASSERT_EQ(queue.pop().seq, std::get<1>(*reference.begin()));
        reference.erase(reference.begin());
    }
    EXPECT_TRUE(queue.empty());
}

TEST(EventQueue, MatchesReferenceWithManyTies)
{
    // A narrow time range forces many equal times, so the seq tie-break is exercised constantly.
    checkAgainstReference(12345, 100'000, 55,
                          [](std::mt19937_64& rng, SimTime) { return static_cast<SimTime>(rng() % 200); });
}

TEST(EventQueue, MatchesReferenceOnDesLikeLoad)
{
    // Mostly "now + exponential delay" as a simulator pushes, with bursts at the current time and a few
    // far-future outliers (heartbeats, end-of-run sentinels) that stretch the queue's time range.
    checkAgainstReference(777, 100'000, 52, [](std::mt19937_64& rng, SimTime now) -> SimTime {
        // Once a sentinel has popped, "now" sits near the end of time: saturate instead of overflowing.
        auto later = [now](SimTime delay) { return now > kTimeInfinity - delay ? kTimeInfinity : now + delay; };
        const auto pick = rng() % 100;
        if (pick < 10)
            return now;
        if (pick < 12)
            return later(1'000'000'000'000 + static_cast<SimTime>(rng() % 1000));
        if (pick < 13)
            return kTimeInfinity - static_cast<SimTime>(rng() % 3);
        std::exponential_distribution<double> delay(1.0 / 5000.0);
        return later(static_cast<SimTime>(delay(rng)));
    });
}

TEST(EventQueue, MatchesReferenceOnArbitraryTimes)
{
    // The queue is a general priority queue: times before the last pop and negative times are legal too.
    checkAgainstReference(4242, 100'000, 50, [](std::mt19937_64& rng, SimTime) -> SimTime {
        const auto pick = rng() % 100;
        if (pick < 5)
            return std::numeric_limits<SimTime>::min() + static_cast<SimTime>(rng() % 4);
        if (pick < 10)
            return kTimeInfinity - static_cast<SimTime>(rng() % 4);
        return static_cast<SimTime>(rng() % 2'000'000) - 1'000'000;
    });
}

TEST(EventQueue, KeepsSeqOrderForThousandsAtOneTime)
{
    // Zero-delay cascades put thousands of events at the current time; only seq can order them.
    EventQueue queue;
    queue.push(Event{50, 0, 0, 0, 0});
    const std::uint64_t n = 5000;
    for (std::uint64_t i = 0; i < n; ++i)
        queue.push(Event{50, 1 + (i * 7919) % n, 0, 0, 0}); // a permutation of 1..n
    queue.push(Event{49, n + 1, 0, 0, 0});
    EXPECT_EQ(queue.pop().seq, n + 1);
    for (std::uint64_t seq = 0; seq <= n; ++seq) {
        const Event ev = queue.pop();
        ASSERT_EQ(ev.time, 50);
        ASSERT_EQ(ev.seq, seq);
    }
    EXPECT_TRUE(queue.empty());
}

TEST(EventQueue, RefillsAfterDrainingAndClear)
{
    EventQueue queue;
    std::uint64_t seq = 0;
    for (int round = 0; round < 3; ++round) {
        // Each round starts later than the last; the queue drains completely in between.
        for (SimTime t = 0; t < 1000; ++t)
            queue.push(Event{round * 10'000 + (t * 7919) % 1000, seq++, 0, 0, 0});
        SimTime previous = std::numeric_limits<SimTime>::min();
        for (int i = 0; i < 1000; ++i) {
            const Event ev = queue.pop();
            EXPECT_GT(ev.time, previous);
            previous = ev.time;
        }
        EXPECT_TRUE(queue.empty());
    }
    queue.push(Event{5, seq++, 0, 0, 0});
    queue.push(Event{3, seq++, 0, 0, 0});
    queue.clear();
    EXPECT_TRUE(queue.empty());
    EXPECT_EQ(queue.size(), 0u);
    queue.push(Event{1, seq++, 0, 0, 0});
    EXPECT_EQ(queue.top().time, 1);
    EXPECT_EQ(queue.pop().time, 1);
    EXPECT_TRUE(queue.empty());
}

// Records what it saw; optionally schedules a follow-up or raises a cancel flag.
struct Recorder {
    Simulator* sim = nullptr;
    std::vector<Event> seen;
    std::atomic<bool>* cancelAfter = nullptr;
    std::size_t cancelCount = 0;

    void operator()(const Event& ev)
    {
        seen.push_back(ev);
        if (cancelAfter && seen.size() == cancelCount)
            cancelAfter->store(true);
    }
};

TEST(Simulator, RunsTiesInSchedulingOrder)
{
    Simulator sim;
    for (std::uint64_t i = 0; i < 5; ++i)
        sim.scheduleAt(100, 0, 0, i);
    sim.scheduleAt(50, 0, 0, 99);
    Recorder rec;
    EXPECT_TRUE(sim.run(rec));
    ASSERT_EQ(rec.seen.size(), 6u);
    EXPECT_EQ(rec.seen[0].payload, 99u);
    for (std::uint64_t i = 0; i < 5; ++i)
        EXPECT_EQ(rec.seen[i + 1].payload, i);
    EXPECT_EQ(sim.now(), 100);
    EXPECT_EQ(sim.eventsExecuted(), 6u);
}

// At one instant a lower priority class runs first, whenever it was scheduled; within a class, scheduling order.
struct ZeroDelayScheduler {
    Simulator* sim;
    std::vector<std::uint64_t> order;
    void operator()(const Event& ev)
    {
        order.push_back(ev.payload);
        if (ev.payload == 1)
            sim->scheduleIn(0, eventKind(0, 0), 0, 5); // class 0 at this instant: before the class 1 and 2 events
    }
};

TEST(Simulator, RunsTiesByPriorityClassThenSchedulingOrder)
{
    Simulator sim;
    sim.scheduleAt(100, eventKind(2, 7), 0, 0);
    sim.scheduleAt(100, eventKind(0, 7), 0, 1);
    sim.scheduleAt(100, eventKind(1, 7), 0, 2);
    sim.scheduleAt(100, eventKind(0, 3), 0, 3);
    sim.scheduleAt(100, eventKind(2, 3), 0, 4);
    sim.scheduleAt(99, eventKind(2, 3), 0, 6); // an earlier time goes first whatever its class
    ZeroDelayScheduler handler{&sim, {}};
    EXPECT_TRUE(sim.run(handler));
    EXPECT_EQ(handler.order, (std::vector<std::uint64_t>{6, 1, 3, 5, 2, 0, 4}));
}

TEST(Simulator, EventKindKeepsItsIdBesideItsClass)
{
    EXPECT_EQ(eventKindId(eventKind(3, 42)), 42u);
    EXPECT_EQ(eventKindId(42), 42u);
    // The class is the sequence's top byte, so class 1's first event sorts after class 0's last possible one.
    EXPECT_LT(eventSequence(eventKind(0, 1), (std::uint64_t{1} << kEventOrderBits) - 1),
              eventSequence(eventKind(1, 0), 0));
}

TEST(Simulator, StopsBeforeEndTimeLeavingLaterEventsPending)
{
    Simulator sim;
    for (SimTime t : {10, 20, 29, 30, 31, 40})
        sim.scheduleAt(t, 0);
    Recorder rec;
    EXPECT_TRUE(sim.run(rec, 30));
    ASSERT_EQ(rec.seen.size(), 3u); // 10, 20, 29: the event at exactly 30 is not run
    EXPECT_EQ(rec.seen.back().time, 29);
    EXPECT_EQ(sim.now(), 29);
    EXPECT_EQ(sim.pending(), 3u);

    // Resuming runs the rest in order.
    EXPECT_TRUE(sim.run(rec));
    ASSERT_EQ(rec.seen.size(), 6u);
    EXPECT_EQ(rec.seen[3].time, 30);
    EXPECT_EQ(sim.now(), 40);
    EXPECT_EQ(sim.pending(), 0u);
}

TEST(Simulator, CancelFlagStopsTheLoop)
{
    Simulator sim;
    for (SimTime t = 1; t <= 10; ++t)
        sim.scheduleAt(t, 0);
    std::atomic<bool> cancel{false};
    Recorder rec;
    rec.cancelAfter = &cancel;
    rec.cancelCount = 4;
    EXPECT_FALSE(sim.run(rec, kTimeInfinity, &cancel));
    EXPECT_EQ(rec.seen.size(), 4u);
    EXPECT_EQ(sim.eventsExecuted(), 4u);
    EXPECT_EQ(sim.pending(), 6u);
    EXPECT_EQ(sim.now(), 4);

    // A flag already raised runs nothing.
    Recorder idle;
    EXPECT_FALSE(sim.run(idle, kTimeInfinity, &cancel));
    EXPECT_TRUE(idle.seen.empty());
}

// Schedules one event in the past from inside the loop.
struct BackwardsScheduler {
    Simulator* sim;
    bool done = false;
    void operator()(const Event&)
    {
        if (!done) {
            done = true;
            sim->scheduleAt(sim->now() - 50, 0);
        }
    }
};

TEST(Simulator, RefusesTimeGoingBackwards)
{
    Simulator sim;
    sim.scheduleAt(100, 0);
    BackwardsScheduler handler{&sim};
#ifdef NDEBUG
    // Release: scheduleAt's assert is compiled out, so the loop's own check must catch it.
    EXPECT_THROW(sim.run(handler), std::logic_error);
#else
    EXPECT_DEATH(sim.run(handler), "past");
#endif
}

} // namespace
} // namespace coh::core
