// The protocol layer's cost per event: PHOLD (bench_phold) with one coherence-protocol step and the invariant
// checks at every event, on the same event sequence, through the automaton (the default executor) and the
// interpreter. Compare events_per_second with BM_Phold at the same args.
//   ./bench_protocol_phold --benchmark_counters_tabular=true
#include "core/coherence/protocol_phold.h"
#include "core/coherence/protocol_registry.h"

#include <benchmark/benchmark.h>

#include <string>

namespace {

using namespace coh::core;

// Args: {LPs, end time in model units}; the protocol is the benchmark's name suffix.
void BM_ProtocolPhold(benchmark::State& state, const std::string& protocol, coherence::ProtocolExecutor executor)
{
    PholdConfig config;
    config.lps = static_cast<std::uint32_t>(state.range(0));
    config.endTime = static_cast<double>(state.range(1));
    const coherence::Protocol& table = coherence::findProtocol(protocol);
    std::uint64_t totalEvents = 0;
    double totalSeconds = 0.0;
    for (auto _ : state) {
        const coherence::ProtocolPholdResult r = coherence::runProtocolPhold(config, table, 3, executor);
        state.SetIterationTime(r.loop.seconds);
        totalSeconds += r.loop.seconds;
        totalEvents += r.loop.committed;
    }
    state.counters["events_per_second"] = totalSeconds > 0.0 ? static_cast<double>(totalEvents) / totalSeconds : 0.0;
}
constexpr auto kAutomaton = coherence::ProtocolExecutor::Automaton;
constexpr auto kInterpreter = coherence::ProtocolExecutor::Interpreter;
BENCHMARK_CAPTURE(BM_ProtocolPhold, msi_directory, std::string("msi-directory"), kAutomaton)
    ->Args({1024, 200})
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ProtocolPhold, msi_directory_interpreted, std::string("msi-directory"), kInterpreter)
    ->Args({1024, 200})
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ProtocolPhold, lazy_causal, std::string("lazy-causal"), kAutomaton)
    ->Args({1024, 200})
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ProtocolPhold, lazy_causal_interpreted, std::string("lazy-causal"), kInterpreter)
    ->Args({1024, 200})
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

} // namespace

BENCHMARK_MAIN();
