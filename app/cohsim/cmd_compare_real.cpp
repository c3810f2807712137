// cohsim compare-real SCENARIO: run a scenario on a real backend (real-cpu, real-cuda) and on the simulator with this
// machine's calibrated profile of it, store both, and report the simulator's error against what was measured.
#include "app/cohsim/command.h"
#include "app/cohsim/option_checks.h"
#include "app/cohsim/store_access.h"
#include "app/cohsim/summary_text.h"
#include "core/base/printable_text.h"
#include "core/compare/run_comparison.h"
#include "core/real/calibration.h"
#include "core/scenario/json_reader.h"
#include "core/scenario/scenario_loader.h"
#include "core/serving/own_costs_text.h"
#include "core/serving/replayed_routes.h"
#include "core/serving/serving_engine.h"
#include "core/store/run_and_store.h"
#include "core/store/sim_vs_real.h"
#include "core/workload/workload_builder.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <memory>
#include <optional>

namespace coh::cli {
namespace {

struct CompareRealOptions {
    std::string scenario;
    std::string backend = "real-cpu";
    std::optional<std::string> profile; // none: calibrate now
    std::optional<std::uint64_t> seed;
    std::optional<std::uint32_t> maxRequests;
    std::uint32_t arenaMib = 64;
    std::optional<std::uint32_t> poolMib; // none: as large as its memory leaves room for
    std::uint32_t layers = 1;
    bool json = false;
    bool noStore = false;
    bool realRoutes = false;   // the simulator routes each request where the real run did
    int repeat = 1;            // real runs, median
    double sensitivityPct = 5; // the simulator again with its costs moved this far either way
};

// A row's figure without its unit: "TTFT p50 (ms)" is Compare's "TTFT p50".
std::string figureName(const core::SimVsRealRow& row)
{
    return row.metric.substr(0, row.metric.find(" (ms)"));
}

// Half the real run's 95% interval of a row's percentile (order statistics, as Compare takes it), as a share of the
// real figure: an error inside it is no finding yet. 0 for counts, and where the run has no samples of it.
double realNoisePct(const core::SimVsRealRow& row, const core::RunResult& real)
{
    if (row.count || row.real == 0)
        return 0;
    const std::string label = figureName(row);
    for (const core::MetricSpec& spec : core::comparedMetrics())
        if (spec.label == label && spec.sample) {
            std::vector<double> samples;
            for (const core::RequestMetrics& r : real.requests)
                samples.push_back(spec.sample(r));
            return 100 * core::quantileNoise(samples, spec.quantile) / std::abs(row.real);
        }
    return 0;
}

// "a", "a and b", "a, b and c".
std::string inWords(const std::vector<std::string>& items)
{
    if (items.size() <= 1)
        return items.empty() ? std::string() : items.front();
    return fmt::format("{} and {}", fmt::join(items.begin(), items.end() - 1, ", "), items.back());
}

// Bytes as a curve's point holds them (a mean: any number): KiB below a MiB, MiB with a decimal from there.
std::string memoryText(double bytes)
{
    return bytes >= 1024.0 * 1024 ? fmt::format("{:.1f} MiB", bytes / (1024.0 * 1024))
                                  : fmt::format("{:.0f} KiB", bytes / 1024);
}

// The profiles' copy and attention costs; over several, each figure's range (how far the machine moved).
std::string profileCosts(const std::vector<core::real::HardwareProfile>& profiles)
{
    using Profile = core::real::HardwareProfile;
    // `text` writes a figure: as cohsim prints figures, or a factor to two decimals.
    const auto range = [&](auto of, auto text) {
        double lo = of(profiles.front()), hi = lo;
        for (const auto& p : profiles) {
            lo = std::min(lo, of(p));
            hi = std::max(hi, of(p));
        }
        return lo == hi ? text(lo) : fmt::format("{} to {}", text(lo), text(hi));
    };
    const auto figure = [&](auto of) { return range(of, [](double v) { return number(v); }); };
    const auto factor = [&](auto of) { return range(of, [](double v) { return fmt::format("{:.2f}", v); }); };
    // Warm steps where every profile has them (a run that had none keeps its calibration's).
    const bool warm =
        std::all_of(profiles.begin(), profiles.end(), [](const Profile& p) { return p.attentionWarmBytesPerNs > 0; });
    // A run's copies are in descriptors: the bandwidth the simulator then gives them, where measured.
    const bool pieces =
        std::all_of(profiles.begin(), profiles.end(), [](const Profile& p) { return p.descriptorBytes > 0; });
    // A run's own costs cost attention on its steps' curve (real::ownCostProfile), every size apart.
    const bool curve =
        std::all_of(profiles.begin(), profiles.end(), [](const Profile& p) { return !p.attentionCurve.empty(); });
    // The copies as the simulator pays them, whichever way attention is costed.
    const std::string copies =
        fmt::format("copies {} ns + bytes / {} GB/s{}{}", figure([](const Profile& p) { return p.copy.latencyNs; }),
                    figure([](const Profile& p) { return p.copy.bytesPerNs; }),
                    pieces ? fmt::format(" ({} GB/s in descriptors of {} KiB)",
                                         figure([](const Profile& p) { return p.effectiveCopyBytesPerNs(); }),
                                         profiles.front().descriptorBytes >> 10)
                           : std::string(),
                    profiles.front().hostCopy.measured()
                        ? fmt::format(" ({} ns + bytes / {} GB/s to and from host memory)",
                                      figure([](const Profile& p) { return p.hostCopy.latencyNs; }),
                                      figure([](const Profile& p) { return p.hostCopy.bytesPerNs; }))
                        : std::string());
    if (curve) {
        std::size_t fewest = profiles.front().attentionCurve.size(), most = fewest;
        double smallest = profiles.front().attentionCurve.front().bytes, largest = smallest;
        for (const auto& p : profiles) {
            fewest = std::min(fewest, p.attentionCurve.size());
            most = std::max(most, p.attentionCurve.size());
            smallest = std::min(smallest, p.attentionCurve.front().bytes);
            largest = std::max(largest, p.attentionCurve.back().bytes);
        }
        const std::string sizes = fewest == most ? std::to_string(fewest) : fmt::format("{} to {}", fewest, most);
        // The factors after other traffic, where every profile has them (real::ownAttention).
        const bool traffic = std::all_of(profiles.begin(), profiles.end(),
                                         [](const Profile& p) { return !p.attentionAfterTraffic.empty(); });
        return fmt::format(
            "{}; attention per layer on a curve of {} step size{} ({} to {} a layer{}){}", copies, sizes,
            most == 1 ? "" : "s", memoryText(smallest), memoryText(largest), traffic ? "" : ", the mean of each",
            traffic ? fmt::format(", times {} after no traffic to {} after the most",
                                  factor([](const Profile& p) { return p.trafficFactor(0); }),
                                  factor([](const Profile& p) { return p.attentionAfterTraffic.back().factor; }))
                    : std::string());
    }
    return fmt::format(
        "{}; attention {} ns + bytes / {} GB/s per layer{}", copies,
        figure([](const Profile& p) { return p.attentionStepNs; }),
        figure([](const Profile& p) { return p.attentionBytesPerNs; }),
        warm ? fmt::format(", {} ns + bytes / {} GB/s where a layer reads at most {} KiB (in cache)",
                           figure([](const Profile& p) { return p.attentionWarmStepNs; }),
                           figure([](const Profile& p) { return p.attentionWarmBytesPerNs; }),
                           figure([](const Profile& p) { return static_cast<double>(p.attentionWarmBytes >> 10); }))
             : std::string());
}

// A row's figure: a count whole ("470", not "470.0") where it is whole.
std::string rowFigure(const core::SimVsRealRow& row, double v)
{
    return row.count && std::isfinite(v) && v == std::floor(v) ? fmt::format("{:.0f}", v) : number(v);
}

// The simulator's error on the real runs' own costs: a count's own figure when it differs.
std::string ownCostCell(const core::SimVsRealRow& row)
{
    if (std::isnan(row.ownCostSimulated))
        return "";
    if (row.count)
        return row.ownCostEveryRunEqual && row.ownCostSimulated == row.real ? "equal"
                                                                            : rowFigure(row, row.ownCostSimulated);
    const double error = row.ownCostErrorPct();
    return std::isnan(error) ? std::string("n/a") : fmt::format("{:+.1f}%", error);
}

// The simulator's error with its costs moved (SimVsRealRow::movedCostsLowPct): "-24.1 to +13.9%".
std::string movedCostsCell(const core::SimVsRealRow& row)
{
    if (!row.movedCosts())
        return "n/a"; // an error was NaN (a real figure of 0)
    // Counts do not move with costs unless transfers race: a range of none says so plainly, as Compare does.
    if (row.movedCostsLowPct == 0 && row.movedCostsHighPct == 0)
        return "none";
    return fmt::format("{:+.1f} to {:+.1f}%", row.movedCostsLowPct, row.movedCostsHighPct);
}

// TTFT's mean part by part (core/engine/ttft_parts.h): its difference is the sum of the parts', so this says where
// TTFT's error comes from (waiting for the step in progress, the first step, the transfer, ...).
void printTtftParts(const core::SimVsReal& result, const std::string& realHeader)
{
    std::vector<std::vector<std::string>> table{{"  TTFT MEAN BY PART (ms)", realHeader, "SIMULATED", "DIFFERENCE"}};
    for (std::size_t i = 0; i < result.ttftParts.size(); ++i) {
        const core::SimVsRealPart& p = result.ttftParts[i];
        table.push_back({std::string(i == 0 ? "  " : "    ") + p.part, number(p.real), number(p.simulated),
                         fmt::format("{:+.3f}", p.differenceMs())});
    }
    printTable(table, 1);
    fmt::print("  (the parts add up to TTFT's mean on each side, and so do the differences{})\n",
               result.paired         ? "; each side the mean of its runs', each difference the mean of the pairs'"
               : result.realRuns > 1 ? "; the real side the mean of its runs'"
                                     : "");
}

// The real runs' decode steps by the bytes a layer read, against the profile's cost for the same steps: the
// attention's model alone, size by size (core/store/attention_by_size.h).
void printAttentionBySize(const core::SimVsReal& result)
{
    if (result.attentionBySize.empty())
        return;
    const bool own = std::all_of(result.attentionBySize.begin(), result.attentionBySize.end(),
                                 [](const core::AttentionSizeRow& r) { return r.ownLineCoversAll(); });
    std::vector<std::string> header{
        "  ATTENTION BY STEP SIZE", "STEPS", "REAL (us)", "REAL GB/s", "PROFILE (us)", "ERROR"};
    if (own)
        header.push_back("RUN'S LINE");
    std::vector<std::vector<std::string>> table{header};
    for (const core::AttentionSizeRow& r : result.attentionBySize) {
        const auto steps = static_cast<double>(r.steps);
        std::vector<std::string> row{fmt::format("    {} to {}{}", core::stepSizeBound(r.fromBytes),
                                                 core::stepSizeBound(2 * r.fromBytes), r.inCache ? ", in cache" : ""),
                                     std::to_string(r.steps),
                                     number(r.realNs / steps / 1e3),
                                     number(r.realGBps()),
                                     number(r.profileNs / steps / 1e3),
                                     fmt::format("{:+.1f}%", r.profileErrorPct())};
        if (own)
            row.push_back(fmt::format("{:+.1f}%", r.ownLineErrorPct()));
        table.push_back(std::move(row));
    }
    printTable(table, 1);
    fmt::print("  (one layer of a decode step, by the K/V bytes it read: the {} mean time and what the "
               "simulator's attention costs{} for the same steps, apart from when they ran{})\n",
               result.realRuns > 1 ? "real runs'" : "real run's",
               result.paired ? " on each run's profile" : " on the profile",
               own ? "; RUN'S LINE: on the line each run fitted over its own steps, where ON OWN COSTS takes the "
                     "steps' own time at each size"
                   : "");
}

void runCompareReal(const GlobalOptions& global, const CompareRealOptions& options)
{
    core::Scenario scenario = core::loadScenarioFile(options.scenario);
    if (options.seed)
        scenario.seed = *options.seed;
    if (options.maxRequests)
        core::limitRequests(scenario.workload, *options.maxRequests);
    const core::Workload workload = core::buildWorkload(scenario.workload, scenario.seed, scenario.sourcePath);

    core::SimVsRealOptions compare;
    compare.backend = options.backend;
    compare.realCpu.arenaBytes = std::size_t{options.arenaMib} << 20;
    compare.realCpu.layers = options.layers;
    if (options.poolMib)
        compare.realCpu.poolMaxBytes = std::size_t{*options.poolMib} << 20;
    compare.realRuns = options.repeat;
    compare.costSensitivity = options.sensitivityPct / 100;
    compare.realRoutes = options.realRoutes;
    if (options.profile) {
        if (options.profile->empty())
            throw core::InputError("", "--profile", "the path is empty",
                                   "name the profile `cohsim calibrate -o FILE` wrote, or leave --profile out to "
                                   "calibrate now");
        compare.profile = core::real::readProfile(*options.profile);
    }
    compare.stage = [&](const std::string& stage) {
        if (global.quiet)
            return;
        if (stage.rfind("Running", 0) == 0)
            fmt::print(stderr, "{} ({} requests, seed {})\n", stage, workload.requests.size(), scenario.seed);
        else if (stage.rfind("Calibrating", 0) == 0)
            fmt::print(stderr, "{} (`cohsim calibrate {} -o FILE` keeps a profile)\n", stage, options.scenario);
        else
            fmt::print(stderr, "{}\n", stage);
    };
    std::unique_ptr<core::RunStore> store;
    if (!options.noStore)
        store = openRunStore(global);
    const core::SimVsReal result = core::runSimVsReal(store.get(), scenario, workload, compare);
    const auto& rows = result.rows;
    const auto& profile = result.profile;
    // A profile given that another machine measured: its costs are that machine's (a calibration here is this one's).
    const std::string otherMachine = options.profile ? core::real::otherMachine(profile) : std::string();
    const std::int64_t realId = result.realId, simId = result.simulatedId;
    const bool countsEqual = result.countsEqual();
    const std::string base = core::defaultRunName(scenario);

    if (options.json) {
        auto metrics = nlohmann::ordered_json::array();
        const auto numberOrNull = [](double v) {
            return std::isnan(v) ? nlohmann::ordered_json() : nlohmann::ordered_json(v);
        };
        for (const auto& r : rows) {
            nlohmann::ordered_json metric = {{"metric", r.metric},
                                             {"real", r.real},
                                             {"simulated", r.simulated},
                                             {"error_pct", numberOrNull(r.errorPct())},
                                             {"within_goal", r.withinGoal()},
                                             {"real_noise_pct", realNoisePct(r, result.real)}};
            if (!r.count)
                metric["judged"] = r.measured; // false: no request on one side to take it from
            metric["own_costs_simulated"] = numberOrNull(r.ownCostSimulated);
            metric["own_costs_error_pct"] = numberOrNull(r.ownCostErrorPct());
            if (!r.ownCostErrorsPct.empty()) {
                auto errors = nlohmann::ordered_json::array();
                for (const double e : r.ownCostErrorsPct)
                    errors.push_back(numberOrNull(e));
                metric["own_costs_errors_pct"] = std::move(errors);
            }
            metric["moved_costs_error_pct"] =
                r.movedCosts() ? nlohmann::ordered_json::array({r.movedCostsLowPct, r.movedCostsHighPct})
                               : nlohmann::ordered_json();
            if (!r.pairErrorsPct.empty()) {
                auto pairs = nlohmann::ordered_json::array();
                for (const double e : r.pairErrorsPct)
                    pairs.push_back(numberOrNull(e));
                metric["pair_errors_pct"] = std::move(pairs);
            }
            metrics.push_back(std::move(metric));
        }
        auto profiles = nlohmann::ordered_json::array();
        for (const auto& p : result.profiles)
            profiles.push_back(core::real::toJson(p));
        auto ownCosts = nlohmann::ordered_json::array();
        for (const auto& p : result.ownCostProfiles)
            ownCosts.push_back(core::real::toJson(p));
        auto parts = nlohmann::ordered_json::array();
        for (const auto& p : result.ttftParts) {
            nlohmann::ordered_json part = {{"part", p.key},
                                           {"real_ms", p.real},
                                           {"simulated_ms", p.simulated},
                                           {"difference_ms", p.differenceMs()}};
            if (!p.pairRealMs.empty())
                part["pair_differences_ms"] = p.pairDifferencesMs();
            parts.push_back(std::move(part));
        }
        auto bySize = nlohmann::ordered_json::array();
        for (const core::AttentionSizeRow& r : result.attentionBySize) {
            nlohmann::ordered_json row = {{"from_bytes", r.fromBytes},
                                          {"to_bytes", 2 * r.fromBytes},
                                          {"in_cache", r.inCache},
                                          {"steps", r.steps},
                                          {"bytes", r.bytes},
                                          {"real_ns", r.realNs},
                                          {"real_gbps", r.realGBps()},
                                          {"profile_ns", r.profileNs},
                                          {"profile_error_pct", r.profileErrorPct()}};
            if (r.ownLineCoversAll()) {
                row["own_line_ns"] = r.ownLineNs;
                row["own_line_error_pct"] = r.ownLineErrorPct();
            }
            bySize.push_back(std::move(row));
        }
        const auto id = [&](std::int64_t v) { return store ? nlohmann::ordered_json(v) : nlohmann::ordered_json(); };
        const nlohmann::ordered_json out = {
            {"scenario", scenario.name},
            {"seed", scenario.seed},
            {"requests", workload.requests.size()},
            {"backend", profile.backend},
            {"real_run_id", id(realId)},
            {"real_runs", result.realRuns},
            {"real_run_ids", store ? nlohmann::ordered_json(result.realIds) : nlohmann::ordered_json::array()},
            {"simulated_run_id", id(simId)},
            {"cost_sensitivity_pct", 100 * result.costSensitivity},
            {"paired", result.paired},
            {"real_routes", options.realRoutes},
            {"routes_replayed", result.simulated.summary.replayedRoutes.replayed},
            {"routes_routed_anew", result.simulated.summary.replayedRoutes.routedAnew},
            {"simulated_run_ids",
             store ? nlohmann::ordered_json(result.simulatedIds) : nlohmann::ordered_json::array()},
            {"profile", core::real::toJson(profile)},
            {"profile_of_this_machine", otherMachine.empty()},
            {"profiles", std::move(profiles)},
            {"counts_equal", countsEqual},
            {"real_runs_with_other_counts", result.realRunsWithOtherCounts},
            {"own_costs_profiles", std::move(ownCosts)},
            {"own_costs_runs_with_other_counts", result.ownCostRunsWithOtherCounts},
            {"metrics", metrics},
            {"ttft_parts", std::move(parts)},
            {"attention_by_size", std::move(bySize)}};
        fmt::print("{}\n", out.dump(2));
        return;
    }
    const std::string realRuns =
        result.realRuns > 1 ? fmt::format(" (the median of {} runs{})", result.realRuns,
                                          store ? fmt::format(": {}", fmt::join(result.realIds, ", ")) : std::string())
                            : (store ? fmt::format(" (run {})", realId) : std::string());
    if (result.paired)
        fmt::print("{} on {}{}, each against the simulator on a profile of this machine taken just before it{}\n", base,
                   profile.backend, realRuns,
                   store ? fmt::format(" (runs {})", fmt::join(result.simulatedIds, ", ")) : std::string());
    else
        fmt::print("{} on {}{} against the simulator on this machine's profile{}\n", base, profile.backend, realRuns,
                   store ? fmt::format(" (run {})", simId) : std::string());
    // A profile of a stored run's own costs (`calibrate --from-run`) says whose.
    fmt::print("  {}: {}{}\n",
               result.paired ? fmt::format("profiles ({})", result.profiles.size()) : std::string("profile"),
               profileCosts(result.profiles),
               !result.paired && profile.costsOfRun > 0
                   ? fmt::format(" (the costs of real run {}, `cohsim calibrate --from-run`)", profile.costsOfRun)
                   : std::string());
    if (!otherMachine.empty())
        fmt::print("  the profile was measured on {}: the simulator runs on that machine's costs, so its error here is "
                   "partly the two machines' difference; calibrate here for this one\n",
                   otherMachine);
    if (const std::string alone = options.profile ? core::real::copiesMeasuredAlone(profile) : std::string();
        !alone.empty())
        fmt::print("  the profile: {}\n", alone);
    // What the real runs' own copies and steps cost, fitted (the OWN COSTS column's simulator).
    if (!result.ownCostProfiles.empty()) {
        const core::BackendSummary& b = result.real.summary.backend;
        // A cost the run gave too little to fit (no decode step read beyond the cache, say) stays the calibration's:
        // say which, rather than call every figure fitted.
        std::vector<std::string> fitted, kept;
        const auto part = [&](bool plausible, std::uint64_t points, const char* what, const char* name) {
            if (plausible)
                fitted.push_back(fmt::format("{} {}", points, what));
            else
                kept.push_back(name);
        };
        part(core::real::plausibleFit(b.copyFit) || core::real::plausibleFit(b.hostCopyFit),
             b.copyFit.points + b.hostCopyFit.points, "copies", "copies");
        part(core::real::plausibleFit(b.attentionFit), b.attentionFit.points, "decode steps out of cache",
             "attention out of cache");
        if (result.ownCostProfiles.front().attentionWarmBytes > 0 || b.attentionWarmFit.points > 0)
            part(core::real::plausibleWarmFit(b.attentionWarmBytes, b.attentionWarmFit), b.attentionWarmFit.points,
                 "decode steps in cache", "attention in cache");
        fmt::print("  {}: {} ({}{}{})\n", result.realRuns > 1 ? "the real runs' own costs" : "the real run's own costs",
                   profileCosts(result.ownCostProfiles),
                   fitted.empty() ? std::string()
                                  : fmt::format("fitted over {} {}", result.realRuns > 1 ? "the first run's" : "its",
                                                inWords(fitted)),
                   fitted.empty() || kept.empty() ? "" : "; ",
                   kept.empty() ? std::string()
                                : fmt::format("{} as calibrated, the run giving too little to fit", inWords(kept)));
    }
    if (options.realRoutes) {
        fmt::print("  routes: the simulator routed as the real run{} did{}: {}\n",
                   result.paired ? " it is set against" : (result.realRuns > 1 ? " first" : ""),
                   result.paired ? " (the first pair)" : "",
                   core::describeReplayedRoutes(result.simulated.summary.replayedRoutes));
    }
    std::string realHeader = profile.backend;
    std::transform(realHeader.begin(), realHeader.end(), realHeader.begin(),
                   [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
    // The goal (sim_vs_real.h): latencies within 10% of what was measured, counts equal.
    // The real run's own uncertainty beside it: a percentile of a few requests moves by more than the goal.
    // Beside the error, how far it moves with the simulator's costs moved as far as a calibration drifts.
    const bool moved = result.costSensitivity > 0;
    const std::string movedHeader = fmt::format("AT COSTS ±{:g}%", 100 * result.costSensitivity);
    std::vector<std::string> header{"  METRIC", realHeader, "REAL ±95%", "SIMULATED", "ERROR"};
    if (moved)
        header.push_back(movedHeader);
    header.insert(header.end(), {"GOAL", "ON OWN COSTS"});
    std::vector<std::vector<std::string>> table{header};
    const std::string goal = fmt::format("within ±{:g}%", 100 * core::kSimulatorErrorGoal);
    int judged = 0, within = 0;
    std::vector<std::string> inNoise, notMeasured;
    for (const auto& r : rows) {
        const double noise = realNoisePct(r, result.real);
        std::vector<std::string> line{"  " + r.metric, rowFigure(r, r.real),
                                      noise > 0 ? fmt::format("±{:.1f}%", noise) : "", rowFigure(r, r.simulated),
                                      std::isnan(r.errorPct()) || (!r.count && !r.measured)
                                          ? std::string("n/a")
                                          : fmt::format("{:+.1f}%", r.errorPct())};
        if (moved)
            line.push_back(movedCostsCell(r));
        line.insert(line.end(), {r.count          ? (r.withinGoal() ? "equal" : "differs")
                                 : !r.measured    ? "not judged"
                                 : r.withinGoal() ? goal
                                                  : "beyond",
                                 ownCostCell(r)});
        table.push_back(std::move(line));
        if (!r.count && !r.measured)
            notMeasured.push_back(figureName(r));
        if (r.count || !r.measured)
            continue;
        ++judged;
        within += r.withinGoal() ? 1 : 0;
        // One run's interval says nothing of a median's error: only a single real run's error is excused by it.
        if (result.realRuns == 1 && !r.withinGoal() && std::abs(r.errorPct()) <= noise)
            inNoise.push_back(figureName(r));
    }
    printTable(table, 1);
    const std::vector<std::string> inMovedCosts = result.latenciesReachedByMovedCosts();
    fmt::print("  {}{}{}\n",
               judged > 0 ? fmt::format("{} of {} latencies {}", within, judged, goal) : "no latency judged",
               inNoise.empty() ? std::string()
                               : fmt::format("; beyond it but within the real run's own 95% interval: {} (more "
                                             "requests would tell)",
                                             fmt::join(inNoise, ", ")),
               inMovedCosts.empty()
                   ? std::string()
                   : fmt::format("; beyond it but reached by the simulator with its costs moved {:g}% or less: {} "
                                 "(its error there is not told apart from the calibration's own uncertainty)",
                                 100 * result.costSensitivity, fmt::join(inMovedCosts, ", ")));
    if (!notMeasured.empty())
        fmt::print("  not judged: {}: {} (a latency is judged once both sides take it from a request)\n",
                   fmt::join(notMeasured, ", "),
                   result.real.summary.completed == 0        ? "the real run completed no request"
                   : result.simulated.summary.completed == 0 ? "the simulator completed no request"
                                                             : "no request on one side had a second token");
    if (countsEqual)
        fmt::print("  messages, flows and bytes are equal on both{}\n",
                   result.realRuns > 1 ? ", in every real run" : "");
    else
        fmt::print("  messages, flows or bytes differ from the simulator's in {} of {} real run(s): transfers raced, "
                   "and the order of events followed measured times{}\n",
                   result.realRunsWithOtherCounts, result.realRuns,
                   result.paired         ? " (the table's figures are medians)"
                   : result.realRuns > 1 ? " (the table's real figures are medians)"
                                         : "");
    if (store && result.paired) {
        std::vector<std::string> others;
        for (std::size_t k = 0; k < result.realIds.size(); ++k) {
            if (k > 0)
                others.push_back(std::to_string(result.realIds[k]));
            others.push_back(std::to_string(result.simulatedIds[k]));
        }
        fmt::print("  `cohsim report {} --compare {}`, or Compare in the desktop app over these {} runs, shows every "
                   "pair with the median of their errors\n",
                   realId, fmt::join(others, " "), 2 * result.realIds.size());
    } else if (store)
        fmt::print("  `cohsim runs show {}` and `cohsim runs show {}`, or Compare in the desktop app, show both{}\n",
                   realId, simId,
                   result.realRuns > 1
                       ? fmt::format(" (Compare takes run {}, the first real run, not the median)", realId)
                       : std::string());
    if (result.paired)
        fmt::print("  {} and SIMULATED are the medians of {} runs each; ERROR is the median of the {} pairs' errors, "
                   "each real run against the simulator on the profile taken just before it\n",
                   realHeader, result.realRuns, result.realRuns);
    if (result.realRuns > 1)
        fmt::print("  REAL ±95% is of one real run (the first): a median of {} is steadier\n", result.realRuns);
    if (!result.ownCostProfiles.empty())
        fmt::print("  ON OWN COSTS is the simulator's error{} with its copies costing what the real run's own copies "
                   "fitted and its attention what the run's steps took at each size{}, instead of calibrated before "
                   "it{}: what is left of ERROR once the machine's drift since the calibration is out of it{}\n",
                   result.realRuns > 1 ? " (the median over the real runs)" : "",
                   std::any_of(result.ownCostProfiles.begin(), result.ownCostProfiles.end(),
                               [](const auto& p) { return !p.attentionAfterTraffic.empty(); })
                       ? " and after each amount of other traffic"
                       : "",
                   store ? " (kept with the real run, not as a run)" : "",
                   result.ownCostRunsWithOtherCounts > 0
                       ? fmt::format("; its counts differ in {} of {} run(s)", result.ownCostRunsWithOtherCounts,
                                     result.realRuns)
                       : std::string());
    if (moved)
        fmt::print("  {} is the simulator's error{} with every cost it took from the calibration {:g}% and {:g}% "
                   "shorter and longer{}: how far its figures move with a cost a calibration holds no better; a "
                   "range that takes in 0 cannot tell the error from that\n",
                   movedHeader, result.paired ? " (each end the median of the pairs')" : "",
                   50 * result.costSensitivity, 100 * result.costSensitivity,
                   store ? " (kept with the simulated run, not as runs)" : "");
    printTtftParts(result, realHeader);
    printAttentionBySize(result);
}

} // namespace

static const bool registered = registerCommand("compare-real", [](CLI::App& app, GlobalOptions& global) {
    auto options = std::make_shared<CompareRealOptions>();
    auto* cmd = app.add_subcommand("compare-real", "Run a scenario on a real backend and on the simulator with this "
                                                   "machine's calibrated profile; report the error");
    cmd->add_option("scenario", options->scenario, "Scenario JSON file")->required();
    cmd->add_option("--backend", options->backend, "The real side: real-cpu, or real-cuda (needs a GPU)")
        ->capture_default_str();
    cmd->add_option("--profile", options->profile,
                    "A profile of the same backend from `cohsim calibrate -o FILE` (default: calibrate now)");
    cmd->add_option("--seed", options->seed, "Override the scenario's seed")->transform(wholeNumber());
    cmd->add_option("--max-requests", options->maxRequests, "Run at most this many requests (0: every one)")
        ->transform(wholeNumber(std::numeric_limits<std::uint32_t>::max()));
    cmd->add_option("--arena-mib", options->arenaMib, "the real backend: each node's memory, in MiB")
        ->capture_default_str()
        ->transform(wholeNumber(std::numeric_limits<std::uint32_t>::max()))
        ->check(CLI::Range(1, 4096));
    cmd->add_option("--pool-mib", options->poolMib,
                    "the real backend: the largest each decode node's K/V pool grows to, in MiB, from --arena-mib as "
                    "its free blocks run out (default: as large as the memory it lives in leaves room for: this "
                    "machine's, or on real-cuda a GPU's)")
        ->transform(wholeNumber(std::numeric_limits<std::uint32_t>::max()))
        ->check(CLI::Range(1, 1 << 20));
    cmd->add_option("--layers", options->layers, "the real backend: attention layers each decode step runs for real")
        ->capture_default_str()
        ->transform(wholeNumber(std::numeric_limits<std::uint32_t>::max()));
    cmd->add_option("--repeat", options->repeat,
                    "Real runs to take the median of (this machine's speed drifts). Without --profile each is "
                    "calibrated for just before it and set against the simulator on that profile, and the error is "
                    "the median of those pairs'; with one, the simulator runs once")
        ->capture_default_str()
        ->check(CLI::Range(1, 15));
    cmd->add_option("--sensitivity", options->sensitivityPct,
                    "Simulate again with every measured cost this many percent (and half as many) shorter and "
                    "longer, and show how far each error moves (0: do not)")
        ->capture_default_str()
        ->check(CLI::Range(0.0, 50.0));
    cmd->add_flag("--json", options->json, "Print JSON");
    cmd->add_flag("--no-store", options->noStore, "Do not store the two runs");
    cmd->add_flag("--real-routes", options->realRoutes,
                  "The simulator routes each request to the instances the real run routed it to, so that the two "
                  "differ in costs and not in routes a load-aware router took on the times it saw");
    cmd->callback([&global, options] { runCompareReal(global, *options); });
});

} // namespace coh::cli
