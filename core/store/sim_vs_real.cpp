#include "core/store/sim_vs_real.h"

#include "core/base/input_error.h"
#include "core/engine/traffic_counts.h"
#include "core/engine/ttft_parts.h"
#include "core/real/gpu_nodes.h"
#include "core/serving/measured_compute.h"
#include "core/serving/serving_engine.h"
#include "core/store/run_and_store.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>

namespace coh::core {

std::vector<SimVsRealRow> simVsRealRows(const RunSummary& real, const RunSummary& sim)
{
    const auto rt = trafficCounts(real), st = trafficCounts(sim);
    std::vector<SimVsRealRow> rows{
        {"TTFT p50 (ms)", real.ttftMs.p50, sim.ttftMs.p50},
        {"TTFT p99 (ms)", real.ttftMs.p99, sim.ttftMs.p99},
        {"TPOT p50 (ms)", real.tpotMs.p50, sim.tpotMs.p50},
        {"TPOT p99 (ms)", real.tpotMs.p99, sim.tpotMs.p99},
        {"KV transfer p50 (ms)", real.transferMs.p50, sim.transferMs.p50},
        {"KV transfer p99 (ms)", real.transferMs.p99, sim.transferMs.p99},
        {"messages", static_cast<double>(rt.messages), static_cast<double>(st.messages), true},
        {"flows", static_cast<double>(real.flows), static_cast<double>(sim.flows), true},
        {"coherence bytes", rt.dataBytes + rt.controlBytes, st.dataBytes + st.controlBytes, true}};
    // A latency neither side took from any request is no agreement: its 0 against 0 is not judged.
    const Distribution RunSummary::*const latencies[] = {&RunSummary::ttftMs, &RunSummary::tpotMs,
                                                         &RunSummary::transferMs};
    for (std::size_t i = 0; i < 6; ++i)
        rows[i].measured = (real.*latencies[i / 2]).count > 0 && (sim.*latencies[i / 2]).count > 0;
    return rows;
}

namespace {

// TTFT's mean and its parts' means, in kTtftParts' order after TTFT's own.
std::vector<double> ttftMeans(const RunSummary& s)
{
    std::vector<double> means{s.ttftMs.mean};
    for (const TtftPart& part : kTtftParts)
        means.push_back((s.*part.ms).mean);
    return means;
}

// Each real run against its simulated one (simOf), TTFT's mean and its parts': each side's mean over its runs (means
// add up, medians would not) and, paired, each pair's means.
std::vector<SimVsRealPart> ttftPartsAgainst(const std::vector<RunSummary>& reals, const std::vector<RunSummary>& sims,
                                            const std::vector<std::size_t>& simOf, bool paired)
{
    std::vector<SimVsRealPart> parts{{"TTFT", "ttft"}};
    for (const TtftPart& part : kTtftParts)
        parts.push_back({part.label, part.key});
    std::vector<std::vector<double>> realMeans(parts.size()), simMeans(parts.size());
    for (const RunSummary& sim : sims) {
        const auto means = ttftMeans(sim);
        for (std::size_t i = 0; i < parts.size(); ++i)
            simMeans[i].push_back(means[i]);
    }
    for (std::size_t k = 0; k < reals.size(); ++k) {
        const auto means = ttftMeans(reals[k]);
        for (std::size_t i = 0; i < parts.size(); ++i) {
            realMeans[i].push_back(means[i]);
            if (paired) {
                parts[i].pairRealMs.push_back(means[i]);
                parts[i].pairSimulatedMs.push_back(simMeans[i][simOf[k]]);
            }
        }
    }
    for (std::size_t i = 0; i < parts.size(); ++i) {
        parts[i].real = SimVsRealRow::mean(realMeans[i]);
        parts[i].simulated = SimVsRealRow::mean(simMeans[i]);
    }
    return parts;
}

// The shape real-cpu's decode steps attend with on the scenario's first decode instance: what to calibrate.
real::PagedKvShape decodeShape(const Scenario& s)
{
    std::size_t tp = 1;
    for (const auto& inst : s.serving.instances)
        if (inst.role != InstanceRole::Prefill) {
            tp = inst.nodes.size();
            break;
        }
    return decodeAttentionShape(s.model, s.serving.blockTokens, tp);
}

// The simulator on `profile`, with `options`' cancel flag, not stored as a run: a column of the comparison (own costs,
// moved costs), not a run of the scenario. A fraction of a second beside the real run, whose progress stands.
RunSummary simulateOnProfile(const Scenario& scenario, const Workload& workload, RunOptions options,
                             const real::HardwareProfile& profile)
{
    options.progress = nullptr;
    options.backend = {};
    options.backend.profile = profile;
    return runScenario(real::profiledScenario(scenario, profile), workload, options).summary;
}

// The simulator again on `profile` with every cost moved by each factor, in order.
std::vector<RunSummary> simulateWithMovedCosts(const Scenario& scenario, const Workload& workload,
                                               const RunOptions& options, const real::HardwareProfile& profile,
                                               const std::vector<double>& factors)
{
    std::vector<RunSummary> out;
    for (const double factor : factors)
        out.push_back(simulateOnProfile(scenario, workload, options, real::withCostsScaled(profile, factor)));
    return out;
}

// Per row of `rows`, the lowest and the highest of its error as taken (`error(row)`) and of the same error with each
// moved run's simulated figure in place of the row's, appended to `lows` and `highs`; NaN where any of them is.
template <class Error>
void addMovedCostErrors(const std::vector<SimVsRealRow>& rows, const std::vector<RunSummary>& moved, Error error,
                        std::vector<std::vector<double>>& lows, std::vector<std::vector<double>>& highs)
{
    std::vector<std::vector<double>> errors(rows.size());
    for (std::size_t i = 0; i < rows.size(); ++i)
        errors[i].push_back(error(rows[i]));
    for (const RunSummary& sim : moved) {
        // Only the simulated side of these rows is taken; the real side is `rows`'.
        const auto movedRows = simVsRealRows(sim, sim);
        for (std::size_t i = 0; i < rows.size(); ++i) {
            SimVsRealRow row = rows[i];
            row.simulated = movedRows[i].simulated;
            errors[i].push_back(error(row));
        }
    }
    lows.resize(rows.size());
    highs.resize(rows.size());
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const auto& e = errors[i];
        const bool nan = std::any_of(e.begin(), e.end(), [](double v) { return std::isnan(v); });
        lows[i].push_back(nan ? std::nan("") : *std::min_element(e.begin(), e.end()));
        highs[i].push_back(nan ? std::nan("") : *std::max_element(e.begin(), e.end()));
    }
}

} // namespace

std::vector<SimVsRealRow> simVsRealRows(const RunSummary& real, const RunSummary& simulated,
                                        const std::vector<CostVariant>& realVariants,
                                        const std::vector<CostVariant>& simulatedVariants)
{
    std::vector<SimVsRealRow> rows = simVsRealRows(real, simulated);
    if (const CostVariant* ownCosts = ownCostsOf(realVariants)) {
        const auto own = simVsRealRows(real, ownCosts->summary);
        for (std::size_t i = 0; i < rows.size(); ++i) {
            rows[i].ownCostSimulated = own[i].simulated;
            rows[i].ownCostEveryRunEqual = own[i].real == own[i].simulated;
            if (!rows[i].count)
                rows[i].ownCostErrorsPct = {SimVsRealRow::pairErrorPct(own[i].real, own[i].simulated)};
        }
    }
    std::vector<RunSummary> moved;
    for (const CostVariant& v : simulatedVariants)
        if (v.kind == CostVariant::Kind::MovedCosts)
            moved.push_back(v.summary);
    if (moved.empty())
        return rows;
    std::vector<std::vector<double>> lows, highs;
    addMovedCostErrors(
        rows, moved, [](const SimVsRealRow& r) { return r.errorPct(); }, lows, highs);
    for (std::size_t i = 0; i < rows.size(); ++i) {
        rows[i].movedCostsLowPct = lows[i].front();
        rows[i].movedCostsHighPct = highs[i].front();
    }
    return rows;
}

std::vector<std::string> SimVsReal::latenciesReachedByMovedCosts() const
{
    std::vector<std::string> names;
    for (const SimVsRealRow& row : rows)
        if (!row.count && row.measured && !row.withinGoal() && row.movedCostsReachReal())
            names.push_back(row.metric.substr(0, row.metric.find(" (ms)")));
    return names;
}

std::vector<double> movedCostFactors(double sensitivity)
{
    if (!(sensitivity >= 0 && sensitivity <= 0.5))
        throw InputError("", "--sensitivity",
                         fmt::format("costs moved by {:g}% cannot be simulated", 100 * sensitivity),
                         "move them by 0 to 50%");
    if (sensitivity == 0)
        return {};
    return {1 - sensitivity, 1 - sensitivity / 2, 1 + sensitivity / 2, 1 + sensitivity};
}

real::CalibrationOptions calibrationFor(const Scenario& scenario, const std::string& backend,
                                        const real::RealCpuOptions& realCpu)
{
    real::CalibrationOptions calibration;
    calibration.backend = backend;
    calibration.attention.shape = decodeShape(scenario);
    calibration.attention.elementBytes = real::kvElementBytes(backend, scenario.model.dtypeBytes);
    // The pieces a real run copies in: one layer's K and V of a block unless told otherwise.
    calibration.descriptorBytes = realCpu.descriptorBytes > 0 ? realCpu.descriptorBytes : descriptorBytesFor(scenario);
    // Copies walk, and attention reads, memories of the size the real run's nodes get.
    calibration.copy.arenaBytes = realCpu.arenaBytes;
    calibration.attention.poolBytes = realCpu.arenaBytes;
    return calibration;
}

real::HardwareProfile calibrateFor(const Scenario& scenario, const std::string& backend,
                                   const real::RealCpuOptions& realCpu, const ScenarioCalibration& how)
{
    real::CalibrationOptions calibration = calibrationFor(scenario, backend, realCpu);
    if (how.rounds)
        calibration.copy.rounds = calibration.attention.rounds = std::max(1, *how.rounds);
    calibration.progress = how.progress;
    calibration.cancel = how.cancel;
    return real::calibrate(calibration);
}

std::string simVsRealRunName(const Scenario& scenario, bool real, int run, int runs, const std::string& backend)
{
    if (!real)
        return defaultRunName(scenario) + " \u00b7 simulated on its profile" +
               (runs > 1 ? fmt::format(" {}/{}", run, runs) : "");
    return defaultRunName(scenario) + " \u00b7 " + backend + (runs > 1 ? fmt::format(" {}/{}", run, runs) : "");
}

void checkProfileFits(const real::HardwareProfile& profile, const std::string& backend, const Scenario& scenario,
                      const real::RealCpuOptions& realCpu)
{
    // A profile fits when it measured what calibrating for this run would measure.
    const real::CalibrationOptions wanted = calibrationFor(scenario, backend, realCpu);
    // Every refusal has one fix: a profile measured for this scenario on this backend.
    const std::string fix =
        fmt::format("calibrate for this scenario (`cohsim calibrate {} --backend {} -o FILE`), or run without "
                    "--profile to calibrate now",
                    scenario.sourcePath.empty() ? std::string("SCENARIO") : scenario.sourcePath, backend);
    const auto refuse = [&fix](std::string what) { throw InputError("", "--profile", std::move(what), fix); };
    if (profile.backend != backend)
        refuse(fmt::format("the profile measured {}, and the real side runs on {}", profile.backend, backend));
    const real::PagedKvShape& shape = wanted.attention.shape;
    if (!real::sameShape(profile.attentionShape, shape))
        refuse(fmt::format("the profile measured attention of {} query heads over {} KV heads of {} in blocks of {} "
                           "tokens, and this scenario's decode steps attend with {}, {}, {} and {}",
                           profile.attentionShape.queryHeads, profile.attentionShape.kvHeads,
                           profile.attentionShape.headDim, profile.attentionShape.blockTokens, shape.queryHeads,
                           shape.kvHeads, shape.headDim, shape.blockTokens));
    const std::size_t element = wanted.attention.elementBytes;
    if (profile.attentionElementBytes != static_cast<double>(element))
        refuse(fmt::format("the profile measured attention over {} K/V, and this scenario's model ({}) is held in {} "
                           "on {}",
                           real::kvDtypeName(profile.attentionElementBytes), scenario.model.name,
                           real::kvDtypeName(static_cast<double>(element)), backend));
    // real-cuda places CPU sockets, CXL memory and storage in pinned host memory: their copies cross the bus, and a
    // profile without the host path would price them as copies within the GPUs.
    if (backend == "real-cuda" && !profile.hostCopy.measured())
        for (const Node& n : scenario.topology.nodes)
            if (real::hostMemoryOnGpus(n.kind))
                refuse(
                    fmt::format("the profile measured no copies to or from host memory, and on real-cuda node \"{}\" "
                                "is pinned host memory",
                                n.id));
    // A descriptor's cost is paid per piece: measured on other pieces, it is another cost per byte. A profile made
    // before descriptors were measured (0) copies whole, as it always did.
    if (profile.descriptorBytes > 0 && profile.descriptorBytes != wanted.descriptorBytes)
        refuse(fmt::format("the profile measured copies in descriptors of {} B, and this run copies in descriptors of "
                           "{} B (one layer's K and V of a block of {})",
                           profile.descriptorBytes, wanted.descriptorBytes, scenario.model.name));
}

SimVsReal runSimVsReal(RunStore* store, const Scenario& scenario, const Workload& workload,
                       const SimVsRealOptions& options)
{
    RunOptions real;
    real.cancel = options.cancel;
    real.progress = options.progress;
    real.backend.name = canonicalBackendName(options.backend);
    if (real.backend.name == "simulated")
        throw InputError("", "--backend", "the simulator cannot stand for the real side of a comparison",
                         "compare against real-cpu or real-cuda");
    real.backend.realCpu = options.realCpu;
    // Its times are the comparison: no second read of each block for its seal (RealCpuOptions::sumSeals).
    real.backend.realCpu.sumSeals = false;
    checkBackendRuns(real.backend, scenario);
    if (options.profile)
        checkProfileFits(*options.profile, real.backend.name, scenario, real.backend.realCpu);
    const std::vector<double> movedFactors = movedCostFactors(options.costSensitivity);
    SimVsReal out;
    out.costSensitivity = options.costSensitivity;
    out.realRuns = std::max(1, options.realRuns);
    out.paired = !options.profile && out.realRuns > 1;
    const auto cancelled = [&] { return options.cancel && options.cancel->load(); };
    // A profile of this machine now, for the scenario's decode shape.
    const auto calibrateNow = [&] {
        if (options.stage)
            options.stage("Calibrating " + real.backend.name + " on this machine");
        ScenarioCalibration how;
        how.rounds = options.calibrationRounds;
        how.cancel = options.cancel;
        return calibrateFor(scenario, real.backend.name, real.backend.realCpu, how);
    };
    const auto runOne = [&](const Scenario& s, const RunOptions& o, const std::string& name, std::int64_t& id) {
        if (options.stage)
            options.stage("Running " + name);
        if (!store)
            return runScenario(s, workload, o);
        StoredRunHooks hooks;
        hooks.begun = [&id](std::int64_t begun) { id = begun; };
        return runAndStore(*store, s, workload, o, name, hooks);
    };
    // Paired: calibrate, run real, simulate on that profile, once per real run, so that each real run is set against
    // a profile of the machine as it was minutes before. Else: one profile, every real run, one simulated run.
    std::vector<RunSummary> reals, sims;
    std::vector<std::vector<RunSummary>> movedSims; // per simulated run: the simulator with its costs moved
    std::vector<std::size_t> simOf;                 // per real run: the simulated run it is set against
    // Per real run: the simulator on its own costs, if it fitted any.
    std::vector<std::optional<RunSummary>> ownCostSims;
    const int simRuns = out.paired ? out.realRuns : 1;
    for (int k = 1; k <= out.realRuns; ++k) {
        const bool newProfile = out.paired || k == 1;
        if (newProfile) {
            out.profiles.push_back(options.profile ? *options.profile : calibrateNow());
            if (cancelled())
                throw RunCancelled();
        }
        std::int64_t id = 0;
        RunResult r = runOne(scenario, real, simVsRealRunName(scenario, true, k, out.realRuns, real.backend.name), id);
        out.realIds.push_back(id);
        reals.push_back(r.summary);
        // The simulator again, on the costs this run measured (not a run of its own, and quick: no stage); its error
        // is the model's alone.
        if (cancelled())
            throw RunCancelled();
        // Every run of the simulator set against this one routes its requests as it did, where asked.
        RunOptions routed = real;
        if (options.realRoutes)
            routed.routes = routesOf(r);
        const bool ownCosts = real::fittedOwnCosts(r.summary.backend);
        if (ownCosts) {
            out.ownCostProfiles.push_back(real::ownCostProfile(out.profiles.back(), r.summary.backend));
            ownCostSims.emplace_back(simulateOnProfile(scenario, workload, routed, out.ownCostProfiles.back()));
            // Kept with the real run, so that Compare and reports of it show the column too.
            if (store && id != 0)
                store->storeCostVariants(id, {{CostVariant::Kind::OwnCosts, 1, *ownCostSims.back()}});
        } else
            ownCostSims.emplace_back();
        // Beside the profile, the line the run fitted over its own steps: how far a line, even its own, is from them.
        std::optional<real::HardwareProfile> ownLine;
        if (ownCosts) {
            ownLine = out.ownCostProfiles.back();
            ownLine->attentionCurve.clear();
        }
        addAttentionBySize(out.attentionBySize, r.summary.backend.attentionBySize, out.profiles.back(),
                           ownLine ? &*ownLine : nullptr);
        if (k == 1) {
            out.real = std::move(r);
            out.realId = id;
        }
        if (newProfile) {
            RunOptions sim = routed;
            sim.backend = {};
            sim.backend.profile = out.profiles.back();
            std::int64_t simId = 0;
            RunResult simulated = runOne(real::profiledScenario(scenario, out.profiles.back()), sim,
                                         simVsRealRunName(scenario, false, k, simRuns), simId);
            // The simulated run names the real run it models: a report of either shows the simulator's error.
            if (store && simId != 0 && id != 0)
                store->setModelsRun(simId, id);
            out.simulatedIds.push_back(simId);
            sims.push_back(simulated.summary);
            if (cancelled())
                throw RunCancelled();
            if (!movedFactors.empty() && options.stage)
                options.stage(
                    fmt::format("Simulating with its costs moved {:g}% either way", 100 * options.costSensitivity));
            movedSims.push_back(simulateWithMovedCosts(scenario, workload, sim, out.profiles.back(), movedFactors));
            if (store && simId != 0 && !movedFactors.empty()) {
                std::vector<CostVariant> moved;
                for (std::size_t f = 0; f < movedFactors.size(); ++f)
                    moved.push_back({CostVariant::Kind::MovedCosts, movedFactors[f], movedSims.back()[f]});
                store->storeCostVariants(simId, moved);
            }
            if (k == 1) {
                out.simulated = std::move(simulated);
                out.simulatedId = simId;
            }
        }
        simOf.push_back(sims.size() - 1);
    }
    out.profile = out.profiles.front();
    // Each metric's figures are their medians over the runs; the counts must be equal in every pair.
    std::vector<std::vector<double>> realFigures, simFigures, ownFigures, movedLows, movedHighs;
    for (std::size_t k = 0; k < reals.size(); ++k) {
        const RunSummary& sim = sims[simOf[k]];
        const auto rows = simVsRealRows(reals[k], sim);
        // Paired, each pair's range, taken as its error is (below, unpaired: against the real median).
        if (out.paired)
            addMovedCostErrors(
                rows, movedSims[simOf[k]],
                [](const SimVsRealRow& r) { return SimVsRealRow::pairErrorPct(r.real, r.simulated); }, movedLows,
                movedHighs);
        if (out.rows.empty())
            out.rows = rows;
        for (std::size_t i = 0; i < rows.size(); ++i)
            out.rows[i].measured = out.rows[i].measured && rows[i].measured;
        realFigures.resize(rows.size());
        simFigures.resize(rows.size());
        bool countsDiffer = false;
        for (std::size_t i = 0; i < rows.size(); ++i) {
            realFigures[i].push_back(rows[i].real);
            simFigures[i].push_back(rows[i].simulated);
            if (rows[i].count) {
                if (rows[i].real != rows[i].simulated) {
                    out.rows[i].everyRunEqual = false;
                    countsDiffer = true;
                }
            } else if (out.paired) // a difference under the last digit shown is no finding, as unpaired
                out.rows[i].pairErrorsPct.push_back(SimVsRealRow::pairErrorPct(rows[i].real, rows[i].simulated));
        }
        // The count rows are the messages, flows and coherence bytes.
        out.realRunsWithOtherCounts += countsDiffer ? 1 : 0;
        if (!ownCostSims[k])
            continue;
        const auto own = simVsRealRows(reals[k], *ownCostSims[k]);
        ownFigures.resize(own.size());
        bool ownCountsDiffer = false;
        for (std::size_t i = 0; i < own.size(); ++i) {
            ownFigures[i].push_back(own[i].simulated);
            if (!own[i].count)
                out.rows[i].ownCostErrorsPct.push_back(SimVsRealRow::pairErrorPct(own[i].real, own[i].simulated));
            else if (own[i].real != own[i].simulated) {
                out.rows[i].ownCostEveryRunEqual = false;
                ownCountsDiffer = true;
            }
        }
        out.ownCostRunsWithOtherCounts += ownCountsDiffer ? 1 : 0;
    }
    for (std::size_t i = 0; i < out.rows.size(); ++i) {
        out.rows[i].real = SimVsRealRow::median(realFigures[i]);
        out.rows[i].simulated = SimVsRealRow::median(simFigures[i]);
        if (i < ownFigures.size())
            out.rows[i].ownCostSimulated = SimVsRealRow::median(ownFigures[i]);
    }
    // Unpaired, one simulated run and its moved ones against the real median, as ERROR is taken.
    if (!out.paired)
        addMovedCostErrors(
            out.rows, movedSims.front(), [](const SimVsRealRow& r) { return r.errorPct(); }, movedLows, movedHighs);
    if (!movedFactors.empty())
        for (std::size_t i = 0; i < out.rows.size(); ++i) {
            out.rows[i].movedCostsLowPct = SimVsRealRow::median(movedLows[i]);
            out.rows[i].movedCostsHighPct = SimVsRealRow::median(movedHighs[i]);
        }
    out.ttftParts = ttftPartsAgainst(reals, sims, simOf, out.paired);
    return out;
}

} // namespace coh::core
