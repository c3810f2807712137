// cohsim calibrate [SCENARIO]: measure what a real backend (real-cpu, real-cuda) costs on this machine and write it as
// a hardware profile; with a scenario, for its decode steps' attention shape, its model's K/V element and its copies'
// descriptors, as compare-real calibrates. With --from-run, the copies and attention are a stored real run's own.
#include "app/cohsim/calibrate_from_run.h"
#include "app/cohsim/command.h"
#include "app/cohsim/output_path.h"
#include "app/cohsim/summary_text.h"
#include "app/cohsim/terminal_text.h"
#include "core/base/input_error.h"
#include "core/gpu/cuda_devices.h"
#include "core/real/backend.h"
#include "core/real/calibration.h"
#include "core/scenario/scenario_loader.h"
#include "core/store/sim_vs_real.h"
#include "core/store/stored_run_costs.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <memory>
#include <optional>

namespace coh::cli {
namespace {

struct CalibrateOptions {
    std::string scenario; // empty: Llama-3-8B's decode shape, --kv-dtype and --descriptor-kib
    std::string backend = "real-cpu";
    bool backendGiven = false;
    std::optional<std::string> output; // -o, given (an empty path is refused, not taken as none)
    int rounds = 0;                    // 0: the defaults (15 per copy size, 5 per context)
    bool json = false;
    std::string dtype = "fp16";         // real-cpu's K/V element; a run holds its model's (kvElementBytes)
    std::uint32_t descriptorKib = 64;   // Llama-3-8B: 16 tokens x K and V x 8 heads x 128 x fp16
    std::optional<std::string> fromRun; // a stored real run whose own costs the profile takes
};

// `taken`: what a profile of a run's costs (--from-run) took from the run; null for a calibration.
void printProfile(const core::real::HardwareProfile& p, const core::real::OwnCostsTaken* taken)
{
    fmt::print("{} on {} ({}, {} cores)\n", p.backend, p.host, p.cpu.empty() ? std::string("CPU not known") : p.cpu,
               p.cores);
    // A figure a run fitted over its own copies or steps has no rows here.
    const auto source = [&p](bool fromRun, std::size_t rows, const char* what) {
        return fromRun ? fmt::format("run {}'s own", p.costsOfRun) : fmt::format("fit to {} {}", rows, what);
    };
    const bool curve = taken && taken->curvePoints > 0;
    // real-cuda has two copy paths (within and between GPUs; to and from pinned host memory), each named.
    const bool twoPaths = p.hostCopy.measured();
    fmt::print("  copy        {} ns + bytes / {} GB/s{} ({}); a message's hand-over and check add {} ns "
               "of wall time\n",
               number(p.copy.latencyNs), number(p.copy.bytesPerNs), twoPaths ? " within and between GPUs" : "",
               // real-cpu's copies are measured after other memory filled the copying threads' caches.
               source(taken && taken->copy, p.copy.rows.size(),
                      p.backend == "real-cpu" ? "sizes, the caches left as a run's traffic leaves them" : "sizes"),
               number(p.messageOverheadNs));
    if (twoPaths)
        fmt::print("  host copy   {} ns + bytes / {} GB/s between a GPU and pinned host memory ({}, both "
                   "ways)\n",
                   number(p.hostCopy.latencyNs), number(p.hostCopy.bytesPerNs),
                   source(taken && taken->hostCopy, p.hostCopy.rows.size() / 2, "sizes"));
    fmt::print("  attention   {} ns + K/V bytes / {} GB/s per layer ({} query heads, {} KV heads of {}, {} K/V; {})\n",
               number(p.attentionStepNs), number(p.attentionBytesPerNs), p.attentionShape.queryHeads,
               p.attentionShape.kvHeads, p.attentionShape.headDim, core::real::kvDtypeName(p.attentionElementBytes),
               curve && !taken->line ? std::string("calibrated here")
                                     : source(taken && taken->line, p.attentionRows.size(), "contexts"));
    for (const auto& r : p.attentionRows)
        fmt::print("    {:>6} tokens: {} us measured, {} us fitted\n", r.context, number(r.attentionNs / 1e3),
                   number(p.attentionNs(r.kvBytes) / 1e3));
    if (p.attentionWarmBytesPerNs > 0) {
        fmt::print("  warm steps  {} ns + K/V bytes / {} GB/s per layer where a layer reads at most {} KiB (the "
                   "core's cache), re-read step after step ({})\n",
                   number(p.attentionWarmStepNs), number(p.attentionWarmBytesPerNs), p.attentionWarmBytes >> 10,
                   source(taken && taken->warm, p.warmRows.size(), "contexts"));
        for (const auto& r : p.warmRows)
            fmt::print("    {:>6} tokens: {} us measured, {} us fitted, {} us out of memory\n", r.context,
                       number(r.attentionNs / 1e3), number(p.warmAttentionNs(r.kvBytes) / 1e3),
                       number(p.attentionNs(r.kvBytes) / 1e3));
    }
    if (p.attentionSequenceBytesPerNs > 0)
        fmt::print("  one sequence's K/V bytes / {} GB/s when alone ({} contexts): a step lasts at least its longest "
                   "sequence's\n",
                   number(p.attentionSequenceBytesPerNs), p.sequenceRows.size());
    if (p.descriptorBytes > 0 && taken && taken->copy)
        fmt::print("  descriptors in the bandwidth above: run {}'s copies were timed whole, each in pieces of {} B\n",
                   p.costsOfRun, p.descriptorBytes);
    else if (p.descriptorBytes > 0 && !p.copy.descriptorMeasured()) {
        std::size_t largest = 0;
        for (const auto& r : p.copy.rows)
            largest = std::max(largest, r.bytes);
        fmt::print("  descriptors none measured: a piece of {} B holds every size measured, the largest {} B, so what "
                   "each piece beyond a message's first adds is not known and counts as 0 ns{}\n",
                   p.descriptorBytes, largest, twoPaths ? " (on both paths: they copied the same sizes)" : "");
    } else if (p.descriptorBytes > 0)
        fmt::print("  descriptors each piece of {} B beyond a message's first adds {} ns: whole descriptors copy at {} "
                   "GB/s{}\n",
                   p.descriptorBytes, number(p.copy.descriptorNs), number(p.effectiveCopyBytesPerNs()),
                   twoPaths ? fmt::format(" within and between GPUs; {} ns and {} GB/s to and from host memory",
                                          number(p.hostCopy.descriptorNs), number(p.effectiveHostCopyBytesPerNs()))
                            : std::string());
}

void runCalibrate(const GlobalOptions& global, const CalibrateOptions& options)
{
    const std::optional<core::StoredRunCosts> run =
        options.fromRun
            ? std::optional<core::StoredRunCosts>(storedRunCosts(
                  global, *options.fromRun,
                  options.backendGiven ? std::optional<std::string>(options.backend) : std::nullopt, options.scenario))
            : std::nullopt;
    const std::string backend = run ? run->backend : core::canonicalBackendName(options.backend);
    if (backend == "simulated")
        throw core::InputError("", "--backend", fmt::format("there is nothing to calibrate on \"{}\"", options.backend),
                               "calibrate real-cpu or real-cuda (--backend real-cpu)");
    if (backend == "real-cuda" && options.dtype != "fp16")
        throw core::InputError("", "--kv-dtype", "real-cuda's kernel reads fp16 K and V",
                               "leave --kv-dtype out, or calibrate real-cpu for fp32");
    if (run)
        core::checkCalibratesHere(*run, "--from-run"); // before any other check, as for --backend real-cuda
    else if (backend == "real-cuda")
        if (const core::GpuInventory gpus = core::probeGpus(); gpus.devices.empty())
            throw core::InputError("", "--backend",
                                   fmt::format("real-cuda needs a GPU, and there is none here: {}", gpus.reason),
                                   "calibrate on a machine with an NVIDIA GPU and a CUDA build, or calibrate real-cpu");
    if (options.output)
        checkOutputPath(*options.output, "-o");
    std::optional<core::Scenario> scenario;
    if (!options.scenario.empty())
        scenario = core::loadScenarioFile(options.scenario);
    else if (run)
        scenario = run->scenario; // read, or storedRunCosts refused the run
    std::optional<int> rounds;
    if (options.rounds > 0)
        rounds = options.rounds;
    core::real::HardwareProfile profile;
    std::optional<core::real::OwnCostsTaken> taken;
    if (run) {
        core::ScenarioCalibration how;
        how.rounds = rounds;
        core::RunCostsProfile made = core::calibrateWithRunCosts(*run, *scenario, options.scenario, "--from-run", how);
        profile = std::move(made.profile);
        taken = made.taken;
    } else if (scenario) {
        core::BackendOptions realRun;
        realRun.name = backend;
        // What the backend could not run (a head too large for the CUDA kernel, memories past the machine's) is
        // refused as a run would refuse it.
        core::checkBackendRuns(realRun, *scenario);
        core::ScenarioCalibration how;
        how.rounds = rounds;
        profile = core::calibrateFor(*scenario, backend, realRun.realCpu, how);
    } else {
        core::real::CalibrationOptions calibration;
        calibration.backend = backend;
        calibration.attention.elementBytes = options.dtype == "fp32" ? 4 : 2;
        calibration.descriptorBytes = std::size_t{options.descriptorKib} << 10;
        if (rounds)
            calibration.copy.rounds = calibration.attention.rounds = *rounds;
        profile = core::real::calibrate(calibration);
    }
    const auto json = core::real::toJson(profile);
    if (options.output) {
        // Flushed and closed before it counts as written: a full disk shows only there for a profile this small.
        std::ofstream out(*options.output);
        errno = 0;
        const bool written = out && (out << json.dump(2) << '\n') && out.flush() && (out.close(), !out.fail());
        if (!written) {
            const std::string reason = errno != 0 ? fmt::format(" ({})", std::strerror(errno)) : std::string();
            fmt::print("{}\n", json.dump(2)); // the minutes measured are not lost with the file
            throw core::InputError(*options.output, "-o",
                                   fmt::format("cannot write the profile there{}; it is printed on standard output "
                                               "instead",
                                               reason),
                                   "free some space, or give a path in a folder you can write");
        }
    }
    if (options.json)
        fmt::print("{}\n", json.dump(2));
    else
        printProfile(profile, taken ? &*taken : nullptr);
    if (run)
        printRunCosts(profile, *run, options.json);
    if (options.output && !options.json)
        fmt::print("profile written to {}; `cohsim compare-real {} --backend {} --profile {}` uses it\n",
                   *options.output, options.scenario.empty() ? std::string("SCENARIO") : options.scenario, backend,
                   *options.output);
}

} // namespace

static const bool registered = registerCommand("calibrate", [](CLI::App& app, GlobalOptions& global) {
    auto options = std::make_shared<CalibrateOptions>();
    auto* cmd = app.add_subcommand(
        "calibrate", "Measure a real backend's copies and attention on this machine and fit a hardware profile");
    cmd->add_option("scenario", options->scenario,
                    "Calibrate for this scenario: its decode steps' attention shape, its model's K/V element and its "
                    "copies' descriptors, as compare-real does (default: Llama-3-8B's, --kv-dtype, --descriptor-kib)");
    auto* backend =
        cmd->add_option("--backend", options->backend, "The backend to measure: real-cpu or real-cuda (needs a GPU)")
            ->capture_default_str();
    cmd->add_option("-o,--output", options->output, "Write the profile (JSON) here");
    auto* dtype =
        cmd->add_option("--kv-dtype", options->dtype,
                        "K and V elements real-cpu's attention is measured over: fp16 (a run of a model of 2 bytes) or "
                        "fp32 (a model of 4-byte elements); real-cuda reads fp16")
            ->check(CLI::IsMember({"fp16", "fp32"}))
            ->capture_default_str();
    cmd->add_option("--rounds", options->rounds, "Rounds per size and context (medians; default 15 and 5)")
        ->check(CLI::Range(1, 1000));
    auto* descriptor = cmd->add_option("--descriptor-kib", options->descriptorKib,
                                       "The piece a run copies in, in KiB (one layer's K and V of a block; 0: do not "
                                       "measure)")
                           ->capture_default_str()
                           ->check(CLI::Range(0, 1 << 20));
    auto* fromRun = cmd->add_option("--from-run", options->fromRun,
                                    "Take the copies' and the attention's costs from this stored real run's own (what "
                                    "they cost under its traffic), for its scenario (or the one given), its backend");
    // A scenario says both: its model's element and its blocks' layer pieces; so does a run's.
    dtype->excludes("scenario");
    descriptor->excludes("scenario");
    dtype->excludes(fromRun);
    descriptor->excludes(fromRun);
    cmd->add_flag("--json", options->json, "Print the profile as JSON");
    cmd->callback([&global, options, backend] {
        options->backendGiven = backend->count() > 0;
        runCalibrate(global, *options);
    });
});

} // namespace coh::cli
