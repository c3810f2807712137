// cohsim bench phold|scenario: the event-loop and whole-scenario benchmarks, runnable without Google
// Benchmark (tests/bench has the same two as Google Benchmark executables).
#include "app/cohsim/command.h"
#include "app/cohsim/summary_text.h"
#include "core/scenario/scenario_loader.h"
#include "core/serving/serving_engine.h"
#include "core/sim/phold.h"
#include "core/workload/workload_builder.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <memory>
#include <sys/resource.h>

namespace coh::cli {
namespace {

double peakResidentMiB()
{
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return static_cast<double>(usage.ru_maxrss) / 1024.0; // Linux reports KiB
}

struct BenchOptions {
    core::PholdConfig phold;
    std::string scenario;
    std::optional<std::uint32_t> maxRequests;
    int repeat = 3;
    bool json = false;
};

void benchPhold(const BenchOptions& options)
{
    const core::PholdResult r = core::runPhold(options.phold);
    if (options.json) {
        const nlohmann::ordered_json out = {{"benchmark", "phold"},       {"lps", options.phold.lps},
                                            {"end_time", options.phold.endTime}, {"committed", r.committed},
                                            {"seconds", r.seconds},       {"events_per_second", r.eventsPerSecond()},
                                            {"peak_rss_mib", peakResidentMiB()}};
        fmt::print("{}\n", out.dump(2));
        return;
    }
    fmt::print("PHOLD: {} LPs x {} events, lookahead {}, mean delay {}, remote {}, end time {}\n", options.phold.lps,
               options.phold.eventsPerLp, options.phold.lookahead, options.phold.meanDelay,
               options.phold.remoteProbability, options.phold.endTime);
    fmt::print("  committed {} events in {} s of event loop: {} events/s; peak RSS {} MiB\n", r.committed,
               number(r.seconds), scaled(r.eventsPerSecond(), ""), number(peakResidentMiB()));
}

void benchScenario(const BenchOptions& options)
{
    core::Scenario scenario = core::loadScenarioFile(options.scenario);
    if (options.maxRequests)
        core::limitRequests(scenario.workload, *options.maxRequests);
    const core::Workload workload = core::buildWorkload(scenario.workload, scenario.seed);
    double best = 0;
    core::RunSummary summary;
    for (int i = 0; i < std::max(1, options.repeat); ++i) {
        summary = core::runScenario(scenario, workload).summary;
        best = i == 0 ? summary.wallSeconds : std::min(best, summary.wallSeconds);
    }
    const double eventsPerSecond = best > 0 ? static_cast<double>(summary.eventsExecuted) / best : 0;
    if (options.json) {
        const nlohmann::ordered_json out = {{"benchmark", "scenario"},  {"scenario", scenario.name},
                                            {"requests", workload.requests.size()}, {"events", summary.eventsExecuted},
                                            {"best_wall_s", best},      {"events_per_second", eventsPerSecond},
                                            {"peak_rss_mib", peakResidentMiB()}};
        fmt::print("{}\n", out.dump(2));
        return;
    }
    fmt::print("{}: {} requests, {} events; best of {}: {} s, {} events/s; peak RSS {} MiB\n", scenario.name,
               workload.requests.size(), summary.eventsExecuted, std::max(1, options.repeat), number(best),
               scaled(eventsPerSecond, ""), number(peakResidentMiB()));
}

} // namespace

static const bool registered = registerCommand("bench", [](CLI::App& app, GlobalOptions&) {
    auto options = std::make_shared<BenchOptions>();
    auto* bench = app.add_subcommand("bench", "Measure the event loop (PHOLD) or a whole scenario");
    bench->require_subcommand(1);

    auto* phold = bench->add_subcommand("phold", "The standard PHOLD discrete-event benchmark");
    phold->add_option("--lps", options->phold.lps, "Logical processes (16 pending events each)")->capture_default_str();
    phold->add_option("--end", options->phold.endTime, "End time in model units (mean delay 1.0)")->capture_default_str();
    phold->add_option("--seed", options->phold.seed, "Random seed")->capture_default_str();
    phold->add_flag("--json", options->json, "Print JSON");
    phold->callback([options] { benchPhold(*options); });

    auto* scenario = bench->add_subcommand("scenario", "Time the engine on a scenario (loading excluded)");
    scenario->add_option("scenario", options->scenario, "Scenario JSON file")->required();
    scenario->add_option("--max-requests", options->maxRequests, "Limit the workload");
    scenario->add_option("--repeat", options->repeat, "Runs; the best wall time is reported")->capture_default_str();
    scenario->add_flag("--json", options->json, "Print JSON");
    scenario->callback([options] { benchScenario(*options); });
});

} // namespace coh::cli
