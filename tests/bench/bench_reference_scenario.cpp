// The reference scenario: the whole Azure LLM inference 2023 conversation trace (19,366 requests) on the
// 8-GPU NVLink preset. Reports simulated events per second, wall time of the engine run, and peak memory.
// Trace parsing and scenario loading are set-up and not timed.
#include "core/scenario/scenario_loader.h"
#include "core/serving/serving_engine.h"
#include "core/workload/workload_builder.h"

#include <benchmark/benchmark.h>

#include <sys/resource.h>

namespace {

using namespace coh::core;

Scenario referenceScenario(const std::string& protocol = "direct")
{
    Scenario s = loadScenarioFile(std::string(COH_DATASETS_DIR) + "/presets/dgx-h100-8gpu.json");
    s.workload.kind = WorkloadKind::Trace;
    s.workload.trace.format = TraceFormat::Azure;
    s.workload.trace.resolvedPath =
        std::string(COH_DATASETS_DIR) + "/traces/azure_llm_2023/AzureLLMInferenceTrace_conv.csv";
    s.workload.trace.maxRequests = 0; // the whole trace
    s.workload.trace.timeScale = 1.0;
    s.coherence.decode = s.coherence.prefill = protocol;
    return s;
}

double peakResidentMiB()
{
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return static_cast<double>(usage.ru_maxrss) / 1024.0; // Linux reports KiB
}

// The same run with every KV access going through a protocol table: the cost of the coherence layer.
void runReference(benchmark::State& state, const std::string& protocol)
{
    const Scenario scenario = referenceScenario(protocol);
    const Workload workload = buildWorkload(scenario.workload, scenario.seed);
    std::uint64_t events = 0;
    double simulated = 0;
    for (auto _ : state) {
        const RunResult result = runScenario(scenario, workload);
        events = result.summary.eventsExecuted;
        simulated = toSeconds(result.summary.makespan);
        benchmark::DoNotOptimize(result.summary.ttftMs.p99);
    }
    state.counters["requests"] = static_cast<double>(workload.requests.size());
    state.counters["events"] = static_cast<double>(events);
    state.counters["events_per_second"] = benchmark::Counter(
        static_cast<double>(events) * static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
    state.counters["simulated_s"] = simulated;
    state.counters["peak_rss_MiB"] = peakResidentMiB();
}

void BM_ReferenceAzureConvOnDgxH100(benchmark::State& state)
{
    runReference(state, "direct");
}
BENCHMARK(BM_ReferenceAzureConvOnDgxH100)->Unit(benchmark::kMillisecond)->Iterations(3);

void BM_ReferenceAzureConvOnDgxH100_Msi(benchmark::State& state)
{
    runReference(state, "msi-directory");
}
BENCHMARK(BM_ReferenceAzureConvOnDgxH100_Msi)->Unit(benchmark::kMillisecond)->Iterations(3);

void BM_ReferenceAzureConvOnDgxH100_Moesi(benchmark::State& state)
{
    runReference(state, "moesi-directory");
}
BENCHMARK(BM_ReferenceAzureConvOnDgxH100_Moesi)->Unit(benchmark::kMillisecond)->Iterations(3);

} // namespace

BENCHMARK_MAIN();
