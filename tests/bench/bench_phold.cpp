// PHOLD throughput of the discrete-event kernel (core/sim), timed over Simulator::run alone, plus the classic
// "hold" model of the bare event queue (against std::priority_queue) so a regression can be placed in the
// queue or in the loop.
//   ./bench_phold --benchmark_counters_tabular=true
#include "core/sim/event_queue.h"
#include "core/sim/phold.h"

#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdint>
#include <queue>
#include <vector>

namespace {

using coh::core::Event;
using coh::core::EventQueue;
using coh::core::Phold;
using coh::core::PholdConfig;
using coh::core::Simulator;

// Args: {LPs, end time in model units}. End times give several million events per iteration.
void BM_Phold(benchmark::State& state)
{
    PholdConfig config;
    config.lps = static_cast<std::uint32_t>(state.range(0));
    config.endTime = static_cast<double>(state.range(1));

    std::uint64_t totalEvents = 0;
    double totalSeconds = 0.0;
    std::size_t initialPending = 0;
    std::size_t finalPending = 0;
    for (auto _ : state) {
        // Set-up (allocation, initial events) stays outside the timed region: PHOLD figures are loop-only.
        Simulator sim;
        Phold model(sim, config);
        sim.reserve(static_cast<std::size_t>(config.lps) * config.eventsPerLp);
        model.start();
        initialPending = sim.pending();

        const auto begin = std::chrono::steady_clock::now();
        sim.run(model, model.end());
        const auto finish = std::chrono::steady_clock::now();

        const double seconds = std::chrono::duration<double>(finish - begin).count();
        state.SetIterationTime(seconds);
        totalSeconds += seconds;
        totalEvents += sim.eventsExecuted();
        finalPending = sim.pending();
        benchmark::DoNotOptimize(model.handledAt(0));
    }
    const double iterations = static_cast<double>(state.iterations());
    state.counters["events_per_second"] = totalSeconds > 0.0 ? static_cast<double>(totalEvents) / totalSeconds : 0.0;
    state.counters["events"] = static_cast<double>(totalEvents) / iterations;
    state.counters["pending_initial"] = static_cast<double>(initialPending);
    state.counters["pending_final"] = static_cast<double>(finalPending);
}
BENCHMARK(BM_Phold)->Args({1024, 500})->Args({65536, 10})->UseManualTime()->Unit(benchmark::kMillisecond);

// Hold model: a queue of `size` events; each step pops the minimum and pushes it back a random delay later.
template <class Queue, class PushPop> void holdLoop(benchmark::State& state, Queue& queue, PushPop pushPop)
{
    const auto size = static_cast<std::size_t>(state.range(0));
    std::uint64_t rng = 0x9E3779B97F4A7C15ull;
    auto nextDelay = [&rng] {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        return static_cast<std::int64_t>(rng >> 34); // up to ~1 s in ns
    };
    std::uint64_t seq = 0;
    for (std::size_t i = 0; i < size; ++i)
        queue.push(Event{nextDelay(), seq++, 0, 0, 0});
    for (auto _ : state)
        pushPop(nextDelay(), seq++);
    state.counters["ops_per_second"] =
        benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}

void BM_EventQueueHold(benchmark::State& state)
{
    EventQueue queue;
    holdLoop(state, queue, [&queue](std::int64_t delay, std::uint64_t seq) {
        Event ev = queue.pop();
        ev.time += delay;
        ev.seq = seq;
        queue.push(ev);
    });
}
BENCHMARK(BM_EventQueueHold)->Arg(16 * 1024)->Arg(1024 * 1024);

// Baseline: a binary heap from the standard library on the same load.
void BM_StdPriorityQueueHold(benchmark::State& state)
{
    auto later = [](const Event& a, const Event& b) { return b < a; };
    std::priority_queue<Event, std::vector<Event>, decltype(later)> queue(later);
    holdLoop(state, queue, [&queue](std::int64_t delay, std::uint64_t seq) {
        Event ev = queue.top();
        queue.pop();
        ev.time += delay;
        ev.seq = seq;
        queue.push(ev);
    });
}
BENCHMARK(BM_StdPriorityQueueHold)->Arg(16 * 1024)->Arg(1024 * 1024);

} // namespace

BENCHMARK_MAIN();
