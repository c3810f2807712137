// cohsim bench phold|scenario: the event-loop and whole-scenario benchmarks, runnable without Google
// Benchmark (tests/bench has the same two as Google Benchmark executables).
#include "app/cohsim/command.h"
#include "app/cohsim/summary_text.h"
#include "core/coherence/protocol_phold.h"
#include "core/coherence/protocol_registry.h"
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
    std::string protocol; // bench phold --protocol: the same PHOLD with the protocol layer in the loop
    int caches = 3;
    std::string executorName = "automaton"; // bench phold --executor
    std::size_t automatonStates = core::coherence::kDefaultAutomatonStates;
};

core::coherence::ProtocolExecutor executor(const BenchOptions& options)
{
    return options.executorName == "interpreter" ? core::coherence::ProtocolExecutor::Interpreter
                                                 : core::coherence::ProtocolExecutor::Automaton;
}

void benchPhold(const BenchOptions& options)
{
    const core::PholdResult r = core::runPhold(options.phold);
    if (options.json) {
        const nlohmann::ordered_json out = {{"benchmark", "phold"},
                                            {"lps", options.phold.lps},
                                            {"end_time", options.phold.endTime},
                                            {"committed", r.committed},
                                            {"seconds", r.seconds},
                                            {"events_per_second", r.eventsPerSecond()},
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

// Plain PHOLD and the same PHOLD with a protocol step per event, alternated so both see the same machine.
void benchProtocolPhold(const BenchOptions& options)
{
    const core::coherence::Protocol& protocol = core::coherence::findProtocol(options.protocol);
    core::PholdResult plain;
    core::coherence::ProtocolPholdResult layered;
    for (int i = 0; i < std::max(1, options.repeat); ++i) {
        const core::PholdResult p = core::runPhold(options.phold);
        if (i == 0 || p.seconds < plain.seconds)
            plain = p;
        const auto q = core::coherence::runProtocolPhold(options.phold, protocol, options.caches, executor(options),
                                                         options.automatonStates);
        if (i == 0 || q.loop.seconds < layered.loop.seconds)
            layered = q;
    }
    const double ratio =
        layered.loop.eventsPerSecond() > 0 ? plain.eventsPerSecond() / layered.loop.eventsPerSecond() : 0;
    const bool sameEvents = plain.committed == layered.loop.committed && plain.digest == layered.loop.digest;
    const auto& st = layered.stats;
    const bool automaton = executor(options) == core::coherence::ProtocolExecutor::Automaton;
    if (options.json) {
        const nlohmann::ordered_json out = {{"benchmark", "phold-protocol"},
                                            {"protocol", protocol.name},
                                            {"caches", options.caches},
                                            {"executor", automaton ? "automaton" : "interpreter"},
                                            {"lps", options.phold.lps},
                                            {"end_time", options.phold.endTime},
                                            {"committed", layered.loop.committed},
                                            {"same_events_as_plain", sameEvents},
                                            {"plain_events_per_second", plain.eventsPerSecond()},
                                            {"protocol_events_per_second", layered.loop.eventsPerSecond()},
                                            {"cost_ratio", ratio},
                                            {"delivered", st.delivered},
                                            {"issued", st.issued},
                                            {"stalled", st.stalled},
                                            {"sent", st.sent},
                                            {"deadlocked_blocks", st.deadlocked},
                                            {"automaton_states", st.automatonStates},
                                            {"automaton_transitions", st.automatonTransitions},
                                            {"automaton_abandoned", st.automatonAbandoned},
                                            {"peak_rss_mib", peakResidentMiB()}};
        fmt::print("{}\n", out.dump(2));
        return;
    }
    fmt::print("PHOLD: {} LPs x {} events, lookahead {}, mean delay {}, remote {}, end time {}; best of {}\n",
               options.phold.lps, options.phold.eventsPerLp, options.phold.lookahead, options.phold.meanDelay,
               options.phold.remoteProbability, options.phold.endTime, std::max(1, options.repeat));
    fmt::print("  plain            {} events in {} s: {} events/s\n", plain.committed, number(plain.seconds),
               scaled(plain.eventsPerSecond(), ""));
    fmt::print("  {} ({} caches per LP) {} events in {} s: {} events/s{}\n", protocol.name, options.caches,
               layered.loop.committed, number(layered.loop.seconds), scaled(layered.loop.eventsPerSecond(), ""),
               sameEvents ? "" : " (NOT the same events as plain PHOLD)");
    fmt::print("  protocol steps: {} deliveries, {} ops, {} stalled, {} messages sent; invariants held{}\n",
               st.delivered, st.issued, st.stalled, st.sent,
               st.deadlocked ? fmt::format("; {} blocks DEADLOCKED at the end", st.deadlocked) : "");
    if (automaton && st.automatonAbandoned)
        fmt::print("  executor: automaton until it outgrew its budget of {} block states ({} transitions); the "
                   "interpreter took over\n",
                   options.automatonStates, st.automatonTransitions);
    else if (automaton)
        fmt::print("  executor: automaton, {} block states, {} transitions interpreted and checked once each\n",
                   st.automatonStates, st.automatonTransitions);
    else
        fmt::print("  executor: interpreter, every step interpreted and checked\n");
    fmt::print("  the protocol layer costs {}x the plain event loop's time per event\n", number(ratio));
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
        const nlohmann::ordered_json out = {
            {"benchmark", "scenario"},          {"scenario", scenario.name}, {"requests", workload.requests.size()},
            {"events", summary.eventsExecuted}, {"best_wall_s", best},       {"events_per_second", eventsPerSecond},
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
    phold->add_option("--end", options->phold.endTime, "End time in model units (mean delay 1.0)")
        ->capture_default_str();
    phold->add_option("--seed", options->phold.seed, "Random seed")->capture_default_str();
    phold
        ->add_option("--protocol", options->protocol,
                     "Also run it with this protocol stepping a block per LP at every event, and compare")
        ->option_text("PROTOCOL");
    phold->add_option("--caches", options->caches, "Caches per block with --protocol")
        ->check(CLI::Range(1, core::coherence::kMaxCaches))
        ->capture_default_str();
    phold
        ->add_option("--executor", options->executorName,
                     "With --protocol: run the tables through the automaton (each distinct step interpreted and "
                     "checked once, then looked up) or the interpreter (every step)")
        ->check(CLI::IsMember({"automaton", "interpreter"}))
        ->capture_default_str();
    phold
        ->add_option("--automaton-states", options->automatonStates,
                     "With the automaton: block states it may grow to before the interpreter takes over")
        ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 24))
        ->capture_default_str();
    phold->add_option("--repeat", options->repeat, "With --protocol: runs of each; the best is reported")
        ->capture_default_str();
    phold->add_flag("--json", options->json, "Print JSON");
    phold->callback([options] {
        if (options->protocol.empty())
            benchPhold(*options);
        else
            benchProtocolPhold(*options);
    });

    auto* scenario = bench->add_subcommand("scenario", "Time the engine on a scenario (loading excluded)");
    scenario->add_option("scenario", options->scenario, "Scenario JSON file")->required();
    scenario->add_option("--max-requests", options->maxRequests, "Limit the workload");
    scenario->add_option("--repeat", options->repeat, "Runs; the best wall time is reported")->capture_default_str();
    scenario->add_flag("--json", options->json, "Print JSON");
    scenario->callback([options] { benchScenario(*options); });
});

} // namespace coh::cli
