// cohsim compare-real SCENARIO: run a scenario on real-cpu and on the simulator with this machine's calibrated
// profile, store both, and report the simulator's error against what real-cpu measured.
#include "app/cohsim/command.h"
#include "app/cohsim/store_access.h"
#include "app/cohsim/summary_text.h"
#include "core/engine/traffic_counts.h"
#include "core/real/backend.h"
#include "core/real/calibration.h"
#include "core/scenario/json_reader.h"
#include "core/scenario/scenario_loader.h"
#include "core/serving/measured_compute.h"
#include "core/serving/serving_engine.h"
#include "core/store/run_and_store.h"
#include "core/workload/workload_builder.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <memory>
#include <optional>

namespace coh::cli {
namespace {

struct CompareRealOptions {
    std::string scenario;
    std::string profile; // empty: calibrate now
    std::optional<std::uint64_t> seed;
    std::optional<std::uint32_t> maxRequests;
    std::uint32_t arenaMib = 64;
    std::uint32_t layers = 1;
    bool json = false;
    bool noStore = false;
};

struct Row {
    std::string metric;
    double real = 0, simulated = 0;
    double errorPct() const { return real != 0 ? 100.0 * (simulated - real) / real : 0.0; }
};

std::vector<Row> rowsOf(const core::RunSummary& real, const core::RunSummary& sim)
{
    const auto rt = core::trafficCounts(real), st = core::trafficCounts(sim);
    return {{"TTFT p50 (ms)", real.ttftMs.p50, sim.ttftMs.p50},
            {"TTFT p99 (ms)", real.ttftMs.p99, sim.ttftMs.p99},
            {"TPOT p50 (ms)", real.tpotMs.p50, sim.tpotMs.p50},
            {"TPOT p99 (ms)", real.tpotMs.p99, sim.tpotMs.p99},
            {"KV transfer p50 (ms)", real.transferMs.p50, sim.transferMs.p50},
            {"KV transfer p99 (ms)", real.transferMs.p99, sim.transferMs.p99},
            {"messages", static_cast<double>(rt.messages), static_cast<double>(st.messages)},
            {"flows", static_cast<double>(real.flows), static_cast<double>(sim.flows)},
            {"coherence bytes", rt.dataBytes + rt.controlBytes, st.dataBytes + st.controlBytes}};
}

// The shape real-cpu's decode steps attend with on the scenario's first decode instance: what to calibrate.
core::real::PagedKvShape decodeShape(const core::Scenario& s)
{
    std::size_t tp = 1;
    for (const auto& inst : s.serving.instances)
        if (inst.role != core::InstanceRole::Prefill) {
            tp = inst.nodes.size();
            break;
        }
    return core::decodeAttentionShape(s.model, s.serving.blockTokens, tp);
}

void runCompareReal(const GlobalOptions& global, const CompareRealOptions& options)
{
    core::Scenario scenario = core::loadScenarioFile(options.scenario);
    if (options.seed)
        scenario.seed = *options.seed;
    if (options.maxRequests)
        core::limitRequests(scenario.workload, *options.maxRequests);
    const core::Workload workload = core::buildWorkload(scenario.workload, scenario.seed);

    core::RunOptions real;
    real.backend.name = "real-cpu";
    real.backend.realCpu.arenaBytes = std::size_t{options.arenaMib} << 20;
    real.backend.realCpu.layers = options.layers;
    core::checkBackendRuns(real.backend, scenario);

    core::real::HardwareProfile profile;
    if (!options.profile.empty()) {
        profile = core::real::profileFromJson(core::readJsonFile(options.profile), options.profile);
    } else {
        if (!global.quiet)
            fmt::print(stderr, "Calibrating real-cpu on this machine (`cohsim calibrate -o FILE` keeps a profile)\n");
        core::real::CalibrationOptions calibration;
        calibration.attention.shape = decodeShape(scenario);
        // Copies walk, and attention reads, memories of the size the real run's nodes get.
        calibration.copy.arenaBytes = real.backend.realCpu.arenaBytes;
        calibration.attention.poolBytes = real.backend.realCpu.arenaBytes;
        profile = core::real::calibrate(calibration);
    }
    const core::Scenario simScenario = core::real::profiledScenario(scenario, profile);
    core::RunOptions sim;
    sim.backend.profile = profile;

    std::unique_ptr<core::RunStore> store;
    if (!options.noStore)
        store = openRunStore(global);
    const std::string base = core::defaultRunName(scenario);
    std::int64_t realId = 0, simId = 0;
    const auto runOne = [&](const core::Scenario& s, const core::RunOptions& o, const std::string& name,
                            std::int64_t& id) {
        if (!global.quiet)
            fmt::print(stderr, "Running {} ({} requests, seed {})\n", name, workload.requests.size(), s.seed);
        if (!store)
            return core::runScenario(s, workload, o);
        core::StoredRunHooks hooks;
        hooks.begun = [&id](std::int64_t begun) { id = begun; };
        return core::runAndStore(*store, s, workload, o, name, hooks);
    };
    const core::RunResult realRun = runOne(scenario, real, base + " \u00b7 real-cpu", realId);
    const core::RunResult simRun = runOne(simScenario, sim, base + " \u00b7 simulated on its profile", simId);
    const auto rows = rowsOf(realRun.summary, simRun.summary);
    const auto rt = core::trafficCounts(realRun.summary), st = core::trafficCounts(simRun.summary);
    const bool countsEqual = rt.messages == st.messages && realRun.summary.flows == simRun.summary.flows &&
                             rt.dataBytes + rt.controlBytes == st.dataBytes + st.controlBytes;

    if (options.json) {
        auto metrics = nlohmann::ordered_json::array();
        for (const auto& r : rows)
            metrics.push_back(
                {{"metric", r.metric}, {"real", r.real}, {"simulated", r.simulated}, {"error_pct", r.errorPct()}});
        const auto id = [&](std::int64_t v) { return store ? nlohmann::ordered_json(v) : nlohmann::ordered_json(); };
        const nlohmann::ordered_json out = {{"scenario", scenario.name},
                                            {"seed", scenario.seed},
                                            {"requests", workload.requests.size()},
                                            {"real_run_id", id(realId)},
                                            {"simulated_run_id", id(simId)},
                                            {"profile", core::real::toJson(profile)},
                                            {"counts_equal", countsEqual},
                                            {"metrics", metrics}};
        fmt::print("{}\n", out.dump(2));
        return;
    }
    fmt::print("{} on real-cpu{} against the simulator on this machine's profile{}\n", base,
               store ? fmt::format(" (run {})", realId) : std::string(),
               store ? fmt::format(" (run {})", simId) : std::string());
    fmt::print("  profile: copies {} ns + bytes / {} GB/s; attention {} ns + bytes / {} GB/s per layer\n",
               number(profile.copyLatencyNs), number(profile.copyBytesPerNs), number(profile.attentionStepNs),
               number(profile.attentionBytesPerNs));
    std::vector<std::vector<std::string>> table{{"  METRIC", "REAL-CPU", "SIMULATED", "ERROR"}};
    for (const auto& r : rows)
        table.push_back({"  " + r.metric, number(r.real), number(r.simulated), fmt::format("{:+.1f}%", r.errorPct())});
    printTable(table, 1);
    fmt::print("  messages, flows and bytes {}\n",
               countsEqual ? "are equal on both" : "differ: the order of events depended on measured times");
    if (store)
        fmt::print("  `cohsim runs show {}` and `cohsim runs show {}`, or Compare in the desktop app, show both\n",
                   realId, simId);
}

} // namespace

static const bool registered = registerCommand("compare-real", [](CLI::App& app, GlobalOptions& global) {
    auto options = std::make_shared<CompareRealOptions>();
    auto* cmd = app.add_subcommand(
        "compare-real",
        "Run a scenario on real-cpu and on the simulator with this machine's calibrated profile; report the error");
    cmd->add_option("scenario", options->scenario, "Scenario JSON file")->required();
    cmd->add_option("--profile", options->profile,
                    "A profile from `cohsim calibrate -o FILE` (default: calibrate now)");
    cmd->add_option("--seed", options->seed, "Override the scenario's seed");
    cmd->add_option("--max-requests", options->maxRequests, "Run at most this many requests");
    cmd->add_option("--arena-mib", options->arenaMib, "real-cpu: each node's memory, in MiB")
        ->capture_default_str()
        ->check(CLI::Range(1, 4096));
    cmd->add_option("--layers", options->layers, "real-cpu: attention layers each decode step runs for real")
        ->capture_default_str();
    cmd->add_flag("--json", options->json, "Print JSON");
    cmd->add_flag("--no-store", options->noStore, "Do not store the two runs");
    cmd->callback([&global, options] { runCompareReal(global, *options); });
});

} // namespace coh::cli
