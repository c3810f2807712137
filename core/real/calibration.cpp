#include "core/real/calibration.h"

#include "core/base/printable_text.h"
#include "core/base/run_cancelled.h"
#include "core/gpu/cuda_devices.h"
#include "core/net/cost_fit.h"
#include "core/real/core_cache.h"
#include "core/real/gpu_attention_bench.h"
#include "core/real/gpu_copy_bench.h"
#include "core/real/gpu_nodes.h" // hostMemoryOnGpus

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <optional>
#include <thread>
#include <unistd.h>

namespace coh::core::real {

std::string thisHostName()
{
    char name[256] = {};
    return ::gethostname(name, sizeof name - 1) == 0 ? std::string(name) : std::string();
}

namespace {

std::string cpuModel()
{
    std::ifstream in("/proc/cpuinfo");
    for (std::string line; std::getline(in, line);)
        if (line.rfind("model name", 0) == 0)
            if (const auto colon = line.find(':'); colon != std::string::npos)
                return line.substr(line.find_first_not_of(' ', colon + 1));
    return {};
}

} // namespace

std::pair<double, double> fitLatencyBandwidth(const std::vector<std::pair<double, double>>& points)
{
    CostFitSums sums;
    for (const auto& [x, y] : points)
        sums.add(x, y);
    const CostFit fit = sums.relativeFit();
    return {fit.fixedNs, fit.bytesPerNs};
}

namespace {

// Per size cut into several pieces: what the pieces cost beyond the whole copy's fit, per piece after the first.
double descriptorCostOf(const std::vector<CopyBenchRow>& descriptorRows, double latencyNs, double bytesPerNs)
{
    std::vector<double> perPiece;
    for (const auto& r : descriptorRows)
        if (r.descriptors > 1 && bytesPerNs > 0)
            perPiece.push_back((r.copyNs - (latencyNs + static_cast<double>(r.bytes) / bytesPerNs)) /
                               static_cast<double>(r.descriptors - 1));
    if (perPiece.empty())
        return 0;
    std::sort(perPiece.begin(), perPiece.end());
    return std::max(0.0, perPiece[perPiece.size() / 2]);
}

std::vector<std::pair<double, double>> copyPoints(const std::vector<CopyBenchRow>& rows)
{
    std::vector<std::pair<double, double>> points;
    for (const auto& r : rows)
        points.emplace_back(static_cast<double>(r.bytes), r.copyNs);
    return points;
}

std::vector<std::pair<double, double>> attentionPoints(const std::vector<AttentionBenchRow>& rows)
{
    std::vector<std::pair<double, double>> points;
    for (const auto& r : rows)
        points.emplace_back(r.kvBytes, r.attentionNs);
    return points;
}

} // namespace

double descriptorCost(const CopyPathFit& path)
{
    return descriptorCostOf(path.descriptorRows, path.latencyNs, path.bytesPerNs);
}

namespace {

// Contexts whose K and V fill an eighth, a quarter, a half and seven eighths of a core's cache of `cache` bytes,
// whole blocks each, distinct; none where not even one block fits.
std::vector<std::uint32_t> warmContexts(const PagedKvShape& shape, double elementBytes, std::size_t cache)
{
    const double blockBytes = shape.kvBytes(shape.blockTokens, elementBytes);
    std::vector<std::uint32_t> contexts;
    for (const double share : {0.125, 0.25, 0.5, 0.875}) {
        const auto blocks = static_cast<std::uint32_t>(share * static_cast<double>(cache) / blockBytes);
        const std::uint32_t context = blocks * shape.blockTokens;
        if (blocks > 0 && (contexts.empty() || contexts.back() != context))
            contexts.push_back(context);
    }
    return contexts;
}

HardwareProfile withoutWarmSteps(HardwareProfile p)
{
    p.attentionWarmBytes = 0;
    p.attentionWarmStepNs = p.attentionWarmBytesPerNs = 0;
    p.warmRows.clear();
    return p;
}

// real-cuda's attention rows: the CUDA kernel over an fp16 pool of the same size, the batch's sequences at once.
std::vector<AttentionBenchRow> gpuAttentionRows(const CalibrationOptions& options, int device, std::uint32_t sequences)
{
    const PagedKvShape& shape = options.attention.shape;
    GpuAttentionBenchOptions gpu;
    gpu.shape = GpuKvShape{shape.queryHeads, shape.kvHeads, shape.headDim, shape.blockTokens};
    gpu.contexts = options.attention.contexts;
    gpu.sequences = std::max(1u, sequences);
    gpu.rounds = options.attention.rounds;
    gpu.poolBytes = std::max<std::size_t>(options.attention.poolBytes, 1);
    gpu.device = device;
    std::vector<AttentionBenchRow> rows;
    for (const GpuAttentionBenchRow& r : runGpuAttentionBench(gpu))
        rows.push_back({r.context, r.kvBytes, r.attentionMs * 1e6, r.copyMs * 1e6});
    return rows;
}

} // namespace

std::string otherMachine(const HardwareProfile& p)
{
    const std::string host = thisHostName();
    const std::string cpu = p.cpu.empty() ? std::string() : fmt::format(" ({})", terminalSafe(p.cpu));
    if (!p.host.empty() && p.host != host)
        return fmt::format("{}{}, not on this machine ({})", terminalSafe(p.host), cpu, terminalSafe(host));
    const unsigned cores = std::thread::hardware_concurrency();
    if (p.cores > 0 && cores > 0 && p.cores != cores)
        return fmt::format("{}{} with {} cores, not on this machine ({}, {} cores)", terminalSafe(p.host), cpu, p.cores,
                           terminalSafe(host), cores);
    // real-cuda's profile names its GPU there, not the CPU.
    if (p.backend != "real-cpu" || p.cpu.empty())
        return {};
    if (const std::string model = cpuModel(); !model.empty() && p.cpu != model)
        return fmt::format("{}{}, not on this machine ({}, {})", terminalSafe(p.host), cpu, terminalSafe(host),
                           terminalSafe(model));
    return {};
}

std::string copiesMeasuredAlone(const HardwareProfile& p)
{
    if (p.backend != "real-cpu" || !p.copy.measured() || p.copiesCachesLeft || p.costsOfRun > 0)
        return {};
    return "its copies were measured as a lone bench leaves the caches (a profile made before 2026-12-07), faster than "
           "a run's copies, so the simulator's KV transfers come out short; calibrate again";
}

HardwareProfile calibrate(const CalibrationOptions& options)
{
    HardwareProfile p;
    p.backend = options.backend;
    p.host = thisHostName();
    p.cpu = cpuModel();
    p.cores = std::thread::hardware_concurrency();
    const bool cuda = options.backend == "real-cuda";
    const bool pieces = options.descriptorBytes > 0;
    const std::size_t cache = cuda ? 0 : options.warmBytes.value_or(coreCacheBytes());
    // The measurements in order, each told and cancellable before it starts: a GPU's batch and lone sequence, or the
    // CPU's steps and warm steps; the copies whole and in pieces; a GPU's host path both ways, whole and in pieces.
    const int copies = pieces ? 2 : 1;
    const int measurements = (cuda ? 2 + copies + 2 * copies : (cache > 0 ? 2 : 1) + copies);
    int measured = 0;
    const auto measure = [&](const std::string& what) {
        if (options.cancel && options.cancel->load())
            throw RunCancelled();
        if (options.progress)
            options.progress(static_cast<double>(measured) / measurements, what);
        ++measured;
    };
    const auto copyBench = [cuda](const CopyBenchOptions& o) { return cuda ? runGpuCopyBench(o) : runCopyBench(o); };
    if (cuda) {
        const GpuInventory gpus = probeGpus();
        if (gpus.devices.empty())
            throw GpuError("real-cuda: there is no GPU to calibrate: " + gpus.reason);
        p.cpu = gpus.devices.front().name;
        p.attentionElementBytes = 2;
        measure("attention, a batch of sequences");
        p.attentionRows = gpuAttentionRows(options, gpus.devices.front().index, options.cudaSequences);
        measure("attention, one sequence");
        p.sequenceRows = gpuAttentionRows(options, gpus.devices.front().index, 1);
    } else {
        p.attentionElementBytes = static_cast<double>(options.attention.elementBytes);
        measure("attention");
        p.attentionRows = runAttentionBench(options.attention);
        if (cache > 0) {
            measure("attention, warm steps");
            AttentionBenchOptions warm = options.attention;
            warm.warm = true;
            // A step's tokens are its sequences' together.
            warm.contexts =
                warmContexts(warm.shape, static_cast<double>(warm.elementBytes), cache / std::max(1u, warm.sequences));
            if (!warm.contexts.empty()) {
                p.warmRows = runAttentionBench(warm);
                p.attentionWarmBytes = cache;
            }
        }
    }
    CopyBenchOptions whole = options.copy;
    whole.descriptorBytes = 0;
    CopyBenchOptions inPieces = options.copy;
    inPieces.descriptorBytes = options.descriptorBytes;
    measure("copies");
    p.copy.rows = copyBench(whole);
    p.copiesCachesLeft = !cuda && whole.leaveCaches;
    if (pieces) {
        measure("copies in descriptors");
        p.copy.descriptorRows = copyBench(inPieces);
    }
    if (cuda) {
        // The host path, both ways: a GPU pushing into pinned host memory, and one reading from it.
        for (const auto& [from, to] :
             {std::pair{NodeKind::Gpu, NodeKind::CpuSocket}, std::pair{NodeKind::CpuSocket, NodeKind::Gpu}}) {
            const std::string way = from == NodeKind::Gpu ? "to host memory" : "from host memory";
            measure("copies " + way);
            for (const CopyBenchRow& r : runGpuCopyBench(whole, from, to))
                p.hostCopy.rows.push_back(r);
            if (pieces) {
                measure("copies in descriptors " + way);
                for (const CopyBenchRow& r : runGpuCopyBench(inPieces, from, to))
                    p.hostCopy.descriptorRows.push_back(r);
            }
        }
        std::tie(p.hostCopy.latencyNs, p.hostCopy.bytesPerNs) = fitLatencyBandwidth(copyPoints(p.hostCopy.rows));
        // Without it, compare-real would refuse the very profile made for it: say why now.
        if (!p.hostCopy.measured())
            throw GpuError("real-cuda: copies to and from pinned host memory fitted no bandwidth (the larger ones were "
                           "not slower): calibrate again, with more --rounds");
        p.hostCopy.descriptorNs = descriptorCost(p.hostCopy);
    }
    p.attentionShape = options.attention.shape;

    std::tie(p.copy.latencyNs, p.copy.bytesPerNs) = fitLatencyBandwidth(copyPoints(p.copy.rows));
    std::tie(p.attentionStepNs, p.attentionBytesPerNs) = fitLatencyBandwidth(attentionPoints(p.attentionRows));
    if (!p.warmRows.empty()) {
        std::tie(p.attentionWarmStepNs, p.attentionWarmBytesPerNs) = fitLatencyBandwidth(attentionPoints(p.warmRows));
        // A flat line (no bandwidth to tell its steps by), or figures a profile may not hold: every step on one line.
        if (!plausibleWarmFit(p.attentionWarmBytes,
                              {p.attentionWarmStepNs, p.attentionWarmBytesPerNs, p.warmRows.size()}))
            p = withoutWarmSteps(std::move(p));
    }
    if (!p.sequenceRows.empty()) {
        // The fixed cost is a lone sequence's (a launch); the batch's rows give the bandwidth of all side by side.
        std::tie(p.attentionStepNs, p.attentionSequenceBytesPerNs) =
            fitLatencyBandwidth(attentionPoints(p.sequenceRows));
    }
    if (!p.copy.rows.empty())
        // The two are medians of separate rounds: a hand-over cheaper than the noise comes out below 0, and is 0.
        p.messageOverheadNs = std::max(0.0, p.copy.rows.front().messageNs - p.copy.rows.front().copyNs);
    p.copy.descriptorNs = descriptorCost(p.copy);
    p.descriptorBytes = p.copy.descriptorRows.empty() ? 0 : options.descriptorBytes;
    // A fit that a profile file could not hold (a flat line's bandwidth past any memory's) is refused now, not when
    // the file is read back.
    profileFromJson(nlohmann::json(toJson(p)), "this machine's calibration");
    return p;
}

bool plausibleFit(const CostFit& fit)
{
    return fit.points > 0 && std::isfinite(fit.fixedNs) && fit.fixedNs >= 0 && fit.fixedNs < kMaxProfileNs &&
           std::isfinite(fit.bytesPerNs) && fit.bytesPerNs >= kMinProfileGBps && fit.bytesPerNs <= kMaxProfileGBps;
}

bool plausibleWarmFit(std::uint64_t warmBytes, const CostFit& fit)
{
    return warmBytes > 0 && warmBytes <= kMaxWarmBytes && plausibleFit(fit);
}

namespace {

// The fits a run's own costs take, each where the run measured it (plausibleFit), and the cache size its curve's
// points are then sided by (`warmBytes`: the run's where its warm line is taken, else the calibration's).
OwnCostsTaken takenFits(const BackendSummary& run, std::size_t calibratedWarmBytes, std::size_t& warmBytes)
{
    OwnCostsTaken taken;
    taken.copy = plausibleFit(run.copyFit);
    taken.hostCopy = plausibleFit(run.hostCopyFit);
    taken.line = plausibleFit(run.attentionFit);
    taken.warm = plausibleWarmFit(run.attentionWarmBytes, run.attentionWarmFit);
    warmBytes = taken.warm ? static_cast<std::size_t>(run.attentionWarmBytes) : calibratedWarmBytes;
    return taken;
}

} // namespace

bool fittedOwnCosts(const BackendSummary& run)
{
    // Without the traffic fit: a curve of means is there exactly where a fitted one could be.
    std::size_t warmBytes = 0;
    return takenFits(run, run.attentionWarmBytes, warmBytes).any() || !ownAttentionCurve(run, warmBytes).empty();
}

OwnCostsTaken ownCostsTaken(const BackendSummary& run, std::size_t calibratedWarmBytes)
{
    std::size_t warmBytes = 0;
    OwnCostsTaken taken = takenFits(run, calibratedWarmBytes, warmBytes);
    // What ownCostProfile makes of its steps, as it makes it.
    const OwnAttention own = ownAttention(run, warmBytes);
    taken.curvePoints = own.curve.size();
    taken.quietCurve = own.quiet;
    taken.trafficPoints = own.factors.size();
    return taken;
}

HardwareProfile ownCostProfile(const HardwareProfile& calibrated, const BackendSummary& run)
{
    // The fits alone: the attention's curve and factors are made once, below.
    std::size_t warmBytes = 0;
    const OwnCostsTaken taken = takenFits(run, calibrated.attentionWarmBytes, warmBytes);
    HardwareProfile p = calibrated;
    if (taken.copy)
        p.copy = CopyPathFit{.latencyNs = run.copyFit.fixedNs, .bytesPerNs = run.copyFit.bytesPerNs};
    if (taken.hostCopy)
        p.hostCopy = CopyPathFit{.latencyNs = run.hostCopyFit.fixedNs, .bytesPerNs = run.hostCopyFit.bytesPerNs};
    if (taken.line) {
        p.attentionStepNs = run.attentionFit.fixedNs;
        p.attentionBytesPerNs = run.attentionFit.bytesPerNs;
        p.attentionSequenceBytesPerNs = 0;
        p.attentionRows.clear();
        p.sequenceRows.clear();
    }
    // The steps that read from the core's cache, where the run had any.
    if (taken.warm) {
        p.attentionWarmBytes = static_cast<std::size_t>(run.attentionWarmBytes);
        p.attentionWarmStepNs = run.attentionWarmFit.fixedNs;
        p.attentionWarmBytesPerNs = run.attentionWarmFit.bytesPerNs;
        p.warmRows.clear();
    }
    // Its steps' own time at each size, which the lines above only approach: the simulator on its own costs then
    // leaves out the attention's model too, and what is left of its error is the rest's. Each point's side of the
    // cache is the profile's (the run told its steps apart by its own, the same on this machine unless told).
    // Where the run kept its steps by the traffic before them, what each amount did to them apart (ownAttention).
    OwnAttention own = ownAttention(run, warmBytes);
    p.attentionCurve = std::move(own.curve);
    if (!p.attentionCurve.empty()) {
        p.attentionSequenceBytesPerNs = 0; // the steps measured already lasted their longest sequence
        p.attentionRows.clear();
        p.sequenceRows.clear();
    }
    p.attentionAfterTraffic = std::move(own.factors);
    return p;
}

HardwareProfile profileOfRun(const HardwareProfile& measured, const BackendSummary& run, std::uint64_t runId)
{
    HardwareProfile p = ownCostProfile(measured, run);
    p.costsOfRun = runId;
    return p;
}

HardwareProfile withCostsScaled(HardwareProfile p, double factor)
{
    // A bandwidth of 0 (not measured) stays 0.
    for (CopyPathFit* path : {&p.copy, &p.hostCopy}) {
        path->latencyNs *= factor;
        path->bytesPerNs /= factor;
        path->descriptorNs *= factor;
    }
    p.attentionStepNs *= factor;
    p.attentionBytesPerNs /= factor;
    p.attentionSequenceBytesPerNs /= factor;
    p.attentionWarmStepNs *= factor;
    p.attentionWarmBytesPerNs /= factor;
    for (AttentionCurvePoint& point : p.attentionCurve)
        point.ns *= factor;
    return p;
}

Topology profiledTopology(const Topology& topology, const HardwareProfile& profile)
{
    Topology t;
    t.nodes = topology.nodes;
    std::vector<std::uint32_t> ends;
    for (std::uint32_t n = 0; n < t.nodes.size(); ++n)
        if (t.nodes[n].kind != NodeKind::Switch)
            ends.push_back(n);
    for (std::size_t i = 0; i < ends.size(); ++i)
        for (std::size_t j = i + 1; j < ends.size(); ++j) {
            Link l;
            l.a = t.nodes[ends[i]].id;
            l.b = t.nodes[ends[j]].id;
            l.id = l.a + "~" + l.b;
            l.kind = LinkKind::OnChip;
            // A copy to or from pinned host memory crosses the bus: the host path's figures, where measured.
            const bool host = profile.hostCopy.measured() &&
                              (hostMemoryOnGpus(t.nodes[ends[i]].kind) || hostMemoryOnGpus(t.nodes[ends[j]].kind));
            l.latency = roundToSimTime(host ? profile.hostCopy.latencyNs : profile.copy.latencyNs,
                                       "a profiled copy's fixed cost");
            l.bandwidthBytesPerSec =
                (host ? profile.effectiveHostCopyBytesPerNs() : profile.effectiveCopyBytesPerNs()) * 1e9;
            l.source = "cohsim calibrate: a " + profile.backend +
                       (host ? " copy to or from host memory on " : " copy on ") +
                       (profile.host.empty() ? std::string("this machine") : profile.host);
            t.links.push_back(std::move(l));
        }
    return t;
}

Scenario profiledScenario(const Scenario& scenario, const HardwareProfile& profile)
{
    Scenario s = scenario;
    s.topology = profiledTopology(scenario.topology, profile);
    // The stored scenario says what ran: the replay draws these links, and running it again runs them.
    nlohmann::json root = nlohmann::json::parse(scenario.json, nullptr, false);
    if (root.is_object() && root.contains("topology") && root["topology"].is_object()) {
        auto links = nlohmann::json::array();
        for (const auto& l : s.topology.links)
            links.push_back({{"id", l.id},
                             {"a", l.a},
                             {"b", l.b},
                             {"kind", "on_chip"},
                             {"latency", fmt::format("{} ns", l.latency)},
                             {"bandwidth", fmt::format("{:.6g} GB/s", l.bandwidthBytesPerSec * 1e-9)},
                             {"source", l.source}});
        root["topology"]["links"] = std::move(links);
        s.json = root.dump(2);
    }
    return s;
}

} // namespace coh::core::real
