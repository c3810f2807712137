// cohsim bench phold|scenario|copy|attention: the event-loop and whole-scenario benchmarks, runnable without Google
// Benchmark (tests/bench has the same two as Google Benchmark executables), and the real backends' copies and
// attention (the CPU kernel, or the CUDA one where there is a GPU).
#include "app/cohsim/command.h"
#include "app/cohsim/option_checks.h"
#include "app/cohsim/summary_text.h"
#include "core/base/input_error.h"
#include "core/coherence/protocol_phold.h"
#include "core/coherence/protocol_registry.h"
#include "core/gpu/cuda_devices.h"
#include "core/real/attention_bench.h"
#include "core/real/cache_displacer.h"
#include "core/real/copy_bench.h"
#include "core/real/gpu_attention_bench.h"
#include "core/real/gpu_copy_bench.h"
#include "core/scenario/scenario_loader.h"
#include "core/serving/serving_engine.h"
#include "core/sim/phold.h"
#include "core/tune/study_parser.h"
#include "core/tune/tune_bench.h"
#include "core/workload/workload_builder.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <sys/resource.h>

namespace coh::cli {
namespace {

// "medians of 15 rounds", or for one, what it is: "one round".
std::string mediansOf(int rounds)
{
    return rounds == 1 ? std::string("one round") : fmt::format("medians of {} rounds", rounds);
}

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
    int copyRounds = 15;                             // bench copy --repeat
    int attentionRounds = 7;                         // bench attention --repeat
    std::uint32_t descriptorKib = 0;                 // bench copy --descriptor-kib
    bool leaveCaches = false;                        // bench copy --leave-caches (real-cpu)
    std::optional<std::uint32_t> attentionSequences; // default: 1 on the CPU, 64 on a GPU
    std::string attentionBackend = "real-cpu";       // bench attention --backend
    std::string attentionDtype = "fp16";             // bench attention --kv-dtype (real-cpu)
    std::vector<std::uint32_t> attentionContexts;    // bench attention --contexts; empty: the bench's own
    bool attentionWarm = false;                      // bench attention --warm (real-cpu)
    std::vector<std::uint32_t> attentionBetweenMib;  // bench attention --between-mib (real-cpu)
    std::string copyBackend = "real-cpu";            // bench copy --backend
    std::optional<std::string> copyPath;             // bench copy --path (real-cuda; none: gpu)
    std::string study;                               // bench tune
    unsigned tuneThreads = 0;                        // bench tune --threads (0: one per core)
    bool tuneNoStore = false;                        // bench tune --no-store
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
    const core::Workload workload = core::buildWorkload(scenario.workload, scenario.seed, scenario.sourcePath);
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

void benchCopy(const BenchOptions& options)
{
    core::real::CopyBenchOptions copy;
    copy.rounds = std::max(1, options.copyRounds);
    copy.descriptorBytes = std::size_t{options.descriptorKib} << 10;
    copy.leaveCaches = options.leaveCaches;
    const bool cuda = options.copyBackend == "real-cuda";
    if (cuda && options.leaveCaches)
        throw core::InputError("", "--leave-caches",
                               "a GPU's copies read and write device memory, which no CPU core caches",
                               "leave --leave-caches out, or measure real-cpu's copies (--backend real-cpu)");
    if (cuda)
        if (const core::GpuInventory gpus = core::probeGpus(); gpus.devices.empty())
            throw core::InputError(
                "", "--backend",
                fmt::format("bench copy --backend real-cuda needs a GPU and found none ({})", gpus.reason),
                "--backend real-cpu measures the CPU's copies");
    // real-cuda's paths (calibration.h): within and between GPUs, or a GPU's copies into and out of pinned host memory
    // (a CPU socket's node). real-cpu has one: every memory is the host's.
    if (!cuda && options.copyPath)
        throw core::InputError(
            "", "--path",
            fmt::format("real-cpu has one copy path, every memory being the host's, not \"{}\"", *options.copyPath),
            "leave --path out, or measure real-cuda's paths (--backend real-cuda)");
    const std::string pathName = options.copyPath.value_or("gpu");
    const bool toHost = pathName == "to-host", fromHost = pathName == "from-host";
    const auto rows =
        cuda ? core::real::runGpuCopyBench(copy, fromHost ? core::NodeKind::CpuSocket : core::NodeKind::Gpu,
                                           toHost ? core::NodeKind::CpuSocket : core::NodeKind::Gpu)
             : core::real::runCopyBench(copy);
    // real-cuda's plain side is one device copy of the whole region, where real-cpu's is memcpy.
    const std::string plain = cuda ? "device copy" : "memcpy";
    const std::string path = !cuda      ? std::string()
                             : toHost   ? " from a GPU into pinned host memory"
                             : fromHost ? " from pinned host memory into a GPU"
                                        : " within and between GPUs";
    if (options.json) {
        auto out = nlohmann::ordered_json::array();
        for (const auto& r : rows)
            out.push_back({{"bytes", r.bytes},
                           {"memcpy_ns", r.plainNs},
                           {"copy_ns", r.copyNs},
                           {"message_ns", r.messageNs},
                           {"descriptors", r.descriptors},
                           {"memcpy_gbps", r.plainGBps()},
                           {"copy_gbps", r.copyGBps()},
                           {"ratio", r.ratio()}});
        fmt::print("{}\n", nlohmann::ordered_json{{"benchmark", "copy"},
                                                  {"backend", options.copyBackend},
                                                  {"path", cuda ? pathName : std::string("host")},
                                                  {"plain", plain},
                                                  {"rounds", copy.rounds},
                                                  {"descriptor_bytes", copy.descriptorBytes},
                                                  {"leave_caches", copy.leaveCaches},
                                                  {"sizes", out}}
                               .dump(2));
        return;
    }
    fmt::print("{} copies{}{} against {}, alternating, {} ({} MiB walked per arena)\n", options.copyBackend, path,
               copy.descriptorBytes == 0 ? std::string()
               // runCopyRows copies whole what one descriptor holds: a descriptor the size of the arena holds all.
               : copy.descriptorBytes >= copy.arenaBytes
                   ? fmt::format(" whole (a descriptor of {} KiB holds the {} MiB arena)", copy.descriptorBytes >> 10,
                                 copy.arenaBytes >> 20)
                   : fmt::format(" in descriptors of {} KiB scattered over both arenas", copy.descriptorBytes >> 10),
               plain, mediansOf(copy.rounds), copy.arenaBytes >> 20);
    if (copy.leaveCaches)
        fmt::print("  the sealing and copying threads each read {} MiB of other memory before each copy, as a run's "
                   "traffic leaves their caches\n",
                   number(static_cast<double>(core::real::CacheDisplacer::defaultBytes()) / (1 << 20)));
    fmt::print("  {:>10}  {:>12}  {:>14}  {:>6}  {:>16}\n", "BYTES", cuda ? "DEVICE GB/s" : "MEMCPY GB/s",
               cuda ? "REAL-CUDA GB/s" : "REAL-CPU GB/s", "RATIO", "PER MESSAGE ns");
    for (const auto& r : rows)
        fmt::print("  {:>10}  {:>12}  {:>14}  {:>6}  {:>16}\n", r.bytes, number(r.plainGBps()), number(r.copyGBps()),
                   number(r.ratio()), number(r.messageNs));
    if (cuda)
        fmt::print("  (real-cuda: the copy between CUDA events, which a run's clock gets; per message: what the sender "
                   "waits, with the stamp read back from the device)\n");
    else
        fmt::print("  (real-cpu: the copy as its worker timed it, which a run's clock gets; per message: what the "
                   "sender waits, with the hand-over to the worker, its read-back of the stamp and the wake-up)\n");
}

// `bench attention --json`: the shape and rounds, then one entry per context; the CPU and the GPU kernel alike.
template <class Shape>
nlohmann::ordered_json attentionBenchJson(const Shape& shape, std::uint32_t sequences, int rounds,
                                          nlohmann::ordered_json contexts)
{
    return {{"benchmark", "attention"},  {"query_heads", shape.queryHeads},   {"kv_heads", shape.kvHeads},
            {"head_dim", shape.headDim}, {"block_tokens", shape.blockTokens}, {"sequences", sequences},
            {"rounds", rounds},          {"contexts", std::move(contexts)}};
}

void benchGpuAttention(const BenchOptions& options)
{
    if (options.attentionDtype != "fp16")
        throw core::InputError("", "--kv-dtype", "real-cuda's kernel reads fp16 K and V",
                               "leave --kv-dtype out, or bench real-cpu for fp32");
    const core::GpuInventory gpus = core::probeGpus();
    if (gpus.devices.empty())
        throw core::InputError(
            "", "--backend",
            fmt::format("bench attention --backend real-cuda needs a GPU and found none ({})", gpus.reason),
            "--backend real-cpu runs the CPU kernel");
    core::real::GpuAttentionBenchOptions bench;
    bench.rounds = std::max(1, options.attentionRounds);
    bench.sequences = options.attentionSequences.value_or(bench.sequences);
    if (!options.attentionContexts.empty())
        bench.contexts = options.attentionContexts;
    const auto rows = core::real::runGpuAttentionBench(bench);
    const auto& shape = bench.shape;
    const auto& gpu = gpus.devices.front();
    if (options.json) {
        auto out = nlohmann::ordered_json::array();
        for (const auto& r : rows)
            out.push_back({{"context", r.context},
                           {"kv_bytes", r.kvBytes},
                           {"attention_ms", r.attentionMs},
                           {"copy_ms", r.copyMs},
                           {"attention_gbps", r.attentionGBps()},
                           {"copy_gbps", r.copyGBps()}});
        auto json = attentionBenchJson(shape, bench.sequences, bench.rounds, std::move(out));
        json["backend"] = "real-cuda";
        json["kv_dtype"] = "fp16";
        json["device"] = gpu.name;
        fmt::print("{}\n", json.dump(2));
        return;
    }
    fmt::print("CUDA paged decode attention on {} ({} query heads, {} KV heads of {}, blocks of {} tokens, fp16 K/V, "
               "{} sequences per step) against a device-to-device copy of its K and V bytes, alternating, {}\n",
               gpu.name, shape.queryHeads, shape.kvHeads, shape.headDim, shape.blockTokens, bench.sequences,
               mediansOf(bench.rounds));
    fmt::print("  {:>8}  {:>10}  {:>12}  {:>14}  {:>12}  {:>8}\n", "CONTEXT", "KV BYTES", "ATTENTION us",
               "ATTENTION GB/s", "D2D COPY GB/s", "OF COPY");
    for (const auto& r : rows)
        fmt::print("  {:>8}  {:>10}  {:>12}  {:>14}  {:>12}  {:>7}%\n", r.context, scaled(r.kvBytes, "B"),
                   number(r.attentionMs * 1e3), number(r.attentionGBps()), number(r.copyGBps()),
                   number(100.0 * r.attentionGBps() / r.copyGBps()));
}

void benchAttention(const BenchOptions& options)
{
    if (options.attentionBackend == "real-cuda") {
        if (options.attentionWarm)
            throw core::InputError("", "--warm", "--warm measures the CPU kernel's re-reads",
                                   "leave --warm out with --backend real-cuda");
        if (!options.attentionBetweenMib.empty())
            throw core::InputError("", "--between-mib", "a GPU's kernel reads device memory, which no CPU core caches",
                                   "leave --between-mib out with --backend real-cuda");
        benchGpuAttention(options);
        return;
    }
    core::real::AttentionBenchOptions bench;
    bench.rounds = std::max(1, options.attentionRounds);
    bench.sequences = options.attentionSequences.value_or(1);
    bench.elementBytes = options.attentionDtype == "fp32" ? 4 : 2;
    bench.warm = options.attentionWarm;
    for (const std::uint32_t mib : options.attentionBetweenMib)
        bench.betweenBytes.push_back(std::size_t{mib} << 20);
    if (!options.attentionContexts.empty())
        bench.contexts = options.attentionContexts;
    // K and V of the longest context for every sequence (and as much again for the copy beside it).
    const std::uint32_t longest = *std::max_element(bench.contexts.begin(), bench.contexts.end());
    const double bytes =
        2.0 * bench.shape.kvBytes(std::uint64_t{bench.sequences} * longest, static_cast<double>(bench.elementBytes));
    constexpr double kBenchBytes = 4.0 * (1u << 30);
    if (bytes > kBenchBytes) {
        // What would fit, either way: as many sequences of this context, or this many sequences of a shorter one.
        const double perToken = 2.0 * bench.shape.kvBytes(1, static_cast<double>(bench.elementBytes));
        const auto sequencesThatFit = static_cast<std::uint64_t>(kBenchBytes / (perToken * longest));
        const auto contextThatFits = static_cast<std::uint64_t>(kBenchBytes / (perToken * bench.sequences));
        const std::string shorter =
            fmt::format("--contexts of at most {} tokens{}", contextThatFits,
                        bench.sequences > 1 ? fmt::format(" for {} sequences", bench.sequences) : "");
        const std::string fix =
            sequencesThatFit == 0
                ? "give " + shorter
                : fmt::format("give --sequences {}{}, or {}", sequencesThatFit,
                              options.attentionContexts.empty() ? " with the default contexts" : "", shorter);
        throw core::InputError("", options.attentionContexts.empty() ? "--sequences" : "--contexts",
                               fmt::format("{} sequence(s) of {} tokens need {} of memory, past the bench's 4 GiB",
                                           bench.sequences, longest, scaled(bytes, "B")),
                               fix);
    }
    const auto rows = core::real::runAttentionBench(bench);
    const auto& shape = bench.shape;
    if (options.json) {
        auto out = nlohmann::ordered_json::array();
        for (const auto& r : rows)
            out.push_back({{"context", r.context},
                           {"kv_bytes", r.kvBytes},
                           {"attention_ns", r.attentionNs},
                           {"copy_ns", r.copyNs},
                           {"attention_gbps", r.attentionGBps()},
                           {"copy_gbps", r.copyGBps()},
                           {"ns_per_token", r.nsPerToken()},
                           {"between_bytes", r.betweenBytes}});
        auto json = attentionBenchJson(shape, bench.sequences, bench.rounds, std::move(out));
        json["kv_dtype"] = options.attentionDtype;
        json["warm"] = bench.warm;
        json["between_bytes"] = bench.betweenBytes; // the amounts taken in turn; [] for none
        fmt::print("{}\n", json.dump(2));
        return;
    }
    fmt::print("CPU paged decode attention ({} query heads, {} KV heads of {}, blocks of {} tokens, {} K/V, {} "
               "sequence(s) per step) against a memcpy of its K and V bytes, {}, {}\n",
               shape.queryHeads, shape.kvHeads, shape.headDim, shape.blockTokens, options.attentionDtype,
               bench.sequences,
               bench.warm ? "every round over the same blocks (warm), the copies after" : "alternating",
               mediansOf(bench.rounds));
    const bool between = !bench.betweenBytes.empty();
    if (between)
        fmt::print("  other memory read before each round (BETWEEN), as a run's other traffic passes between an "
                   "instance's steps: {} MiB{}\n",
                   fmt::join(options.attentionBetweenMib, ", "),
                   bench.betweenBytes.size() > 1 ? ", in turn round by round" : "");
    fmt::print("  {:>8}  {}{:>10}  {:>12}  {:>14}  {:>12}  {:>8}\n", "CONTEXT", between ? "BETWEEN MiB  " : "",
               "KV BYTES", "ATTENTION us", "ATTENTION GB/s", "MEMCPY GB/s", "OF COPY");
    for (const auto& r : rows)
        fmt::print("  {:>8}  {}{:>10}  {:>12}  {:>14}  {:>12}  {:>7}%\n", r.context,
                   between ? fmt::format("{:>11}  ", r.betweenBytes >> 20) : std::string(), scaled(r.kvBytes, "B"),
                   number(r.attentionNs / 1e3), number(r.attentionGBps()), number(r.copyGBps()),
                   number(100.0 * r.attentionGBps() / r.copyGBps()));
}

void benchTune(const BenchOptions& options)
{
    const core::StudySpec study = core::loadStudyFile(options.study);
    core::TuneBenchOptions bench;
    bench.threads = {1, options.tuneThreads};
    bench.rounds = std::max(1, options.repeat);
    bench.store = !options.tuneNoStore;
    bench.folder = std::filesystem::temp_directory_path().string();
    const auto rows = core::runTuneBench(study, bench);
    const double base = rows.front().runsPerSecond();
    if (options.json) {
        auto out = nlohmann::ordered_json::array();
        for (const auto& r : rows)
            out.push_back({{"threads", r.threads},
                           {"runs", r.runs},
                           {"wall_s", r.wallSeconds},
                           {"median_s", r.medianSeconds()},
                           {"runs_per_s", r.runsPerSecond()},
                           {"speedup", base > 0 ? r.runsPerSecond() / base : 0.0}});
        fmt::print("{}\n", nlohmann::ordered_json{{"benchmark", "tune"},
                                                  {"study", study.name},
                                                  {"stored", bench.store},
                                                  {"rounds", bench.rounds},
                                                  {"rows", out}}
                               .dump(2));
        return;
    }
    fmt::print("{}: {} runs per study, {}; thread counts alternating, {}\n", study.name, rows.front().runs,
               bench.store ? "each round stored into a fresh database" : "nothing stored", mediansOf(bench.rounds));
    fmt::print("  {:>7}  {:>10}  {:>8}  {:>8}\n", "THREADS", "MEDIAN s", "RUNS/s", "SPEED-UP");
    for (const auto& r : rows)
        fmt::print("  {:>7}  {:>10}  {:>8}  {:>8}\n", r.threads, number(r.medianSeconds()), number(r.runsPerSecond()),
                   number(base > 0 ? r.runsPerSecond() / base : 0.0));
}

} // namespace

static const bool registered = registerCommand("bench", [](CLI::App& app, GlobalOptions&) {
    auto options = std::make_shared<BenchOptions>();
    auto* bench = app.add_subcommand(
        "bench", "Measure the event loop (PHOLD), a whole scenario, or the real backends' copies and attention");
    bench->require_subcommand(1);

    auto* phold = bench->add_subcommand("phold", "The standard PHOLD discrete-event benchmark");
    // About 800 bytes each: a million take 0.8 GB.
    phold->add_option("--lps", options->phold.lps, "Logical processes (16 pending events each), at most a million")
        ->check(CLI::Range(1u, 1'000'000u))
        ->capture_default_str();
    phold->add_option("--end", options->phold.endTime, "End time in model units (mean delay 1.0)")
        ->capture_default_str();
    phold->add_option("--seed", options->phold.seed, "Random seed")->transform(wholeNumber())->capture_default_str();
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
        ->check(repeatCount())
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
    scenario->add_option("--max-requests", options->maxRequests, "Limit the workload (0: every request)")
        ->transform(wholeNumber(std::numeric_limits<std::uint32_t>::max()));
    scenario->add_option("--repeat", options->repeat, "Runs; the best wall time is reported")
        ->check(repeatCount())
        ->capture_default_str();
    scenario->add_flag("--json", options->json, "Print JSON");
    scenario->callback([options] { benchScenario(*options); });

    auto* copy = bench->add_subcommand(
        "copy", "A real backend's copies against plain memcpy (real-cuda: one device copy), side by side");
    copy->add_option("--backend", options->copyBackend,
                     "real-cpu (worker copies against memcpy) or real-cuda (GPU partitions against one device copy)")
        ->check(CLI::IsMember({"real-cpu", "real-cuda"}))
        ->capture_default_str();
    copy->add_option("--path", options->copyPath,
                     "real-cuda's copy path: gpu (within and between GPUs), to-host or from-host (a GPU and pinned "
                     "host memory, as a CPU socket's node has); default: gpu")
        ->check(CLI::IsMember({"gpu", "to-host", "from-host"}));
    copy->add_option("--repeat", options->copyRounds, "Rounds per size (alternating); medians are reported")
        ->check(repeatCount())
        ->capture_default_str();
    copy->add_option("--descriptor-kib", options->descriptorKib,
                     "Copy in pieces of this many KiB scattered over both arenas, as a run does (0: whole)")
        ->capture_default_str()
        ->check(CLI::Range(0, 1 << 20));
    copy->add_flag("--leave-caches", options->leaveCaches,
                   "real-cpu: before each copy, the threads that seal and copy it read other memory of twice their "
                   "core's cache, as a run's traffic leaves them (calibration copies so)");
    copy->add_flag("--json", options->json, "Print JSON");
    copy->callback([options] { benchCopy(*options); });

    auto* attention =
        bench->add_subcommand("attention", "The paged decode attention against a copy of its KV, per context");
    attention
        ->add_option("--backend", options->attentionBackend,
                     "real-cpu (the CPU kernel against memcpy) or real-cuda (the CUDA kernel against a device copy)")
        ->check(CLI::IsMember({"real-cpu", "real-cuda"}))
        ->capture_default_str();
    attention
        ->add_option("--kv-dtype", options->attentionDtype,
                     "K and V elements on real-cpu: fp16 (as a model's cache holds them) or fp32; real-cuda reads fp16")
        ->check(CLI::IsMember({"fp16", "fp32"}))
        ->capture_default_str();
    attention
        ->add_option("--contexts", options->attentionContexts,
                     "Context lengths in tokens, e.g. 128,2048 (default 128,512,2048,8192,32768)")
        ->delimiter(',')
        ->check(CLI::Range(1u, 1u << 20));
    attention->add_option("--repeat", options->attentionRounds, "Rounds per context (alternating); medians")
        ->check(repeatCount())
        ->capture_default_str();
    attention
        ->add_option("--sequences", options->attentionSequences,
                     "Sequences per decode step (default 1 on the CPU, 64 on a GPU)")
        ->check(CLI::Range(1, 64));
    attention->add_flag("--warm", options->attentionWarm,
                        "real-cpu: every round re-reads the same blocks, as a run's steps re-read a sequence's own");
    attention
        ->add_option("--between-mib", options->attentionBetweenMib,
                     "real-cpu: read this many MiB of other memory before each round, as a run's copies and other "
                     "steps pass through the caches between an instance's steps; several (0,64,256) are taken in "
                     "turn, round by round, a row each")
        ->delimiter(',')
        ->check(CLI::Range(0, 4096));
    attention->add_flag("--json", options->json, "Print JSON");
    attention->callback([options] { benchAttention(*options); });

    auto* tune = bench->add_subcommand("tune", "A tuning study on one thread and on every core, side by side");
    tune->add_option("study", options->study, "Study JSON file (docs/tuning.md)")->required();
    tune->add_option("--threads", options->tuneThreads, "The thread count set against one (default: one per core)")
        ->check(CLI::Range(1, 1024));
    tune->add_option("--repeat", options->repeat, "Rounds (alternating thread counts); medians are reported")
        ->check(repeatCount())
        ->capture_default_str();
    tune->add_flag("--no-store", options->tuneNoStore, "Store nothing: the runs alone, without the writer");
    tune->add_flag("--json", options->json, "Print JSON");
    tune->callback([options] { benchTune(*options); });
});

} // namespace coh::cli
