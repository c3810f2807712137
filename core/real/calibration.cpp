#include "core/real/calibration.h"

#include "core/base/input_error.h"
#include "core/gpu/cuda_devices.h"
#include "core/net/cost_fit.h"
#include "core/real/core_cache.h"
#include "core/real/gpu_attention_bench.h"
#include "core/real/gpu_copy_bench.h"
#include "core/real/gpu_nodes.h"       // hostMemoryOnGpus
#include "core/scenario/json_reader.h" // closestName, readJsonFile

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <optional>
#include <thread>
#include <unistd.h>

namespace coh::core::real {

namespace {

std::string hostName()
{
    char name[256] = {};
    return ::gethostname(name, sizeof name - 1) == 0 ? std::string(name) : std::string();
}

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

HardwareProfile calibrate(const CalibrationOptions& options)
{
    HardwareProfile p;
    p.backend = options.backend;
    p.host = hostName();
    p.cpu = cpuModel();
    p.cores = std::thread::hardware_concurrency();
    const bool cuda = options.backend == "real-cuda";
    const auto copyBench = [cuda](const CopyBenchOptions& o) { return cuda ? runGpuCopyBench(o) : runCopyBench(o); };
    if (cuda) {
        const GpuInventory gpus = probeGpus();
        if (gpus.devices.empty())
            throw GpuError("real-cuda: there is no GPU to calibrate: " + gpus.reason);
        p.cpu = gpus.devices.front().name;
        p.attentionElementBytes = 2;
        p.attentionRows = gpuAttentionRows(options, gpus.devices.front().index, options.cudaSequences);
        p.sequenceRows = gpuAttentionRows(options, gpus.devices.front().index, 1);
    } else {
        p.attentionElementBytes = static_cast<double>(options.attention.elementBytes);
        p.attentionRows = runAttentionBench(options.attention);
        if (const std::size_t cache = options.warmBytes.value_or(coreCacheBytes()); cache > 0) {
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
    p.copy.rows = copyBench(whole);
    if (options.descriptorBytes > 0) {
        CopyBenchOptions pieces = options.copy;
        pieces.descriptorBytes = options.descriptorBytes;
        p.copy.descriptorRows = copyBench(pieces);
    }
    if (cuda) {
        // The host path, both ways: a GPU pushing into pinned host memory, and one reading from it.
        for (const auto& [from, to] :
             {std::pair{NodeKind::Gpu, NodeKind::CpuSocket}, std::pair{NodeKind::CpuSocket, NodeKind::Gpu}}) {
            for (const CopyBenchRow& r : runGpuCopyBench(whole, from, to))
                p.hostCopy.rows.push_back(r);
            if (options.descriptorBytes > 0) {
                CopyBenchOptions pieces = options.copy;
                pieces.descriptorBytes = options.descriptorBytes;
                for (const CopyBenchRow& r : runGpuCopyBench(pieces, from, to))
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

namespace {

nlohmann::ordered_json copyRowsJson(const std::vector<CopyBenchRow>& rows)
{
    auto out = nlohmann::ordered_json::array();
    for (const auto& r : rows)
        out.push_back(
            {{"bytes", r.bytes}, {"copy_ns", r.copyNs}, {"memcpy_ns", r.plainNs}, {"message_ns", r.messageNs}});
    return out;
}

nlohmann::ordered_json descriptorRowsJson(const std::vector<CopyBenchRow>& rows)
{
    auto out = nlohmann::ordered_json::array();
    for (const auto& r : rows)
        out.push_back({{"bytes", r.bytes}, {"descriptors", r.descriptors}, {"copy_ns", r.copyNs}});
    return out;
}

} // namespace

nlohmann::ordered_json toJson(const HardwareProfile& p)
{
    const auto copies = copyRowsJson(p.copy.rows);
    const auto pieces = descriptorRowsJson(p.copy.descriptorRows);
    const auto rowsJson = [](const std::vector<AttentionBenchRow>& rows) {
        auto out = nlohmann::ordered_json::array();
        for (const auto& r : rows)
            out.push_back({{"context", r.context}, {"kv_bytes", r.kvBytes}, {"attention_ns", r.attentionNs}});
        return out;
    };
    const auto steps = rowsJson(p.attentionRows);
    const auto sequenceSteps = rowsJson(p.sequenceRows);
    nlohmann::ordered_json out = {{"profile", p.backend},
                                  {"host", p.host},
                                  {"cpu", p.cpu},
                                  {"cores", p.cores},
                                  {"copy",
                                   {{"latency_ns", p.copy.latencyNs},
                                    {"bandwidth_gbps", p.copy.bytesPerNs},
                                    {"message_overhead_ns", p.messageOverheadNs},
                                    {"descriptor_bytes", p.descriptorBytes},
                                    {"descriptor_ns", p.copy.descriptorNs},
                                    {"measured", copies},
                                    {"measured_in_descriptors", pieces}}},
                                  {"attention",
                                   {{"query_heads", p.attentionShape.queryHeads},
                                    {"kv_heads", p.attentionShape.kvHeads},
                                    {"head_dim", p.attentionShape.headDim},
                                    {"block_tokens", p.attentionShape.blockTokens},
                                    {"element_bytes", p.attentionElementBytes},
                                    {"sequence_bandwidth_gbps", p.attentionSequenceBytesPerNs},
                                    {"measured_one_sequence", sequenceSteps},
                                    {"step_ns", p.attentionStepNs},
                                    {"bandwidth_gbps", p.attentionBytesPerNs},
                                    {"measured", steps}}}};
    if (p.attentionWarmBytes > 0) {
        auto& attention = out["attention"];
        attention["warm_bytes"] = p.attentionWarmBytes;
        attention["warm_step_ns"] = p.attentionWarmStepNs;
        attention["warm_bandwidth_gbps"] = p.attentionWarmBytesPerNs;
        attention["measured_warm"] = rowsJson(p.warmRows);
    }
    if (p.hostCopy.measured())
        out["host_copy"] = {{"latency_ns", p.hostCopy.latencyNs},
                            {"bandwidth_gbps", p.hostCopy.bytesPerNs},
                            {"descriptor_ns", p.hostCopy.descriptorNs},
                            {"measured", copyRowsJson(p.hostCopy.rows)},
                            {"measured_in_descriptors", descriptorRowsJson(p.hostCopy.descriptorRows)}};
    return out;
}

namespace {

// The keys a profile holds, per section ("" the top level), as toJson writes them. A key outside these is a typo
// (`bandwith_gbps`) or a hand edit that would otherwise be read as if it were not there.
void refuseUnknownKeys(const nlohmann::json& j, const std::string& file, const std::string& fix,
                       std::vector<InputProblem>& problems)
{
    static const std::vector<std::pair<const char*, std::vector<std::string>>> kKeys = {
        {"", {"profile", "host", "cpu", "cores", "copy", "attention", "host_copy"}},
        {"copy",
         {"latency_ns", "bandwidth_gbps", "message_overhead_ns", "descriptor_bytes", "descriptor_ns", "measured",
          "measured_in_descriptors"}},
        {"host_copy", {"latency_ns", "bandwidth_gbps", "descriptor_ns", "measured", "measured_in_descriptors"}},
        {"attention",
         {"query_heads", "kv_heads", "head_dim", "block_tokens", "element_bytes", "sequence_bandwidth_gbps",
          "measured_one_sequence", "step_ns", "bandwidth_gbps", "measured", "warm_bytes", "warm_step_ns",
          "warm_bandwidth_gbps", "measured_warm"}},
    };
    for (const auto& [section, known] : kKeys) {
        const nlohmann::json* object = &j;
        if (*section) {
            const auto it = j.find(section);
            if (it == j.end() || !it->is_object())
                continue;
            object = &*it;
        }
        for (const auto& [key, value] : object->items()) {
            if (std::find(known.begin(), known.end(), key) != known.end())
                continue;
            const std::string field = *section ? fmt::format("/{}/{}", section, key) : "/" + key;
            if (const auto near = closestName(key, known))
                problems.push_back({file, field, fmt::format("unknown key '{}'; did you mean '{}'?", key, *near),
                                    fmt::format("rename it to \"{}\"", *near)});
            else
                problems.push_back({file, field, fmt::format("unknown key '{}'", key),
                                    fmt::format("remove it; keys allowed here: {}; or {}", joinNames(known), fix)});
        }
    }
}

} // namespace

HardwareProfile profileFromJson(const nlohmann::json& j, const std::string& file)
{
    if (!j.is_object())
        throw InputError(file, "", "a hardware profile is a JSON object", "make it with `cohsim calibrate -o FILE`");
    // A scenario given where a profile goes would be refused field by field, none of which says what is wrong.
    if (!j.contains("copy") && !j.contains("attention") && (j.contains("topology") || j.contains("workload")))
        throw InputError(file, "", "this is a scenario, not a hardware profile",
                         "give --profile the file `cohsim calibrate -o FILE` wrote, and the scenario as the argument");
    std::vector<InputProblem> problems;
    const std::string fix = "make the profile again with `cohsim calibrate -o FILE`";
    const auto member = [&](const char* section, const char* key) -> const nlohmann::json* {
        const auto s = j.find(section);
        if (s == j.end() || !s->is_object())
            return nullptr;
        const auto v = s->find(key);
        return v == s->end() ? nullptr : &*v;
    };
    // A figure: a number in [lo, hi], both within what a memory or a copy engine measures. A time past `hi` or a
    // bandwidth outside its range is no measurement of this machine, and would carry the simulator's clock past
    // its end (or leave a run with nothing to do for years of simulated time).
    // None, with the problem recorded, when it is missing or out of range (the profile is then refused below, so the
    // fields take 0).
    const auto inRange = [&](const char* section, const char* key, double lo, double hi,
                             const char* what) -> std::optional<double> {
        const std::string field = fmt::format("/{}/{}", section, key);
        const nlohmann::json* v = member(section, key);
        if (!v || !v->is_number()) {
            problems.push_back({file, field, "the profile has no number here", fix});
            return std::nullopt;
        }
        const double x = v->get<double>();
        if (!std::isfinite(x) || x < lo || x > hi) {
            problems.push_back({file, field, fmt::format("{:g} is not {} ({:g} to {:g})", x, what, lo, hi), fix});
            return std::nullopt;
        }
        return x;
    };
    const auto time = [&](const char* section, const char* key) {
        return inRange(section, key, 0, kMaxProfileNs, "a time a copy or a step takes, in ns");
    };
    const auto bandwidth = [&](const char* section, const char* key) {
        return inRange(section, key, kMinProfileGBps, kMaxProfileGBps, "a bandwidth in GB/s");
    };
    // A count of the attention shape: a positive integer.
    const auto count = [&](const char* key) {
        const nlohmann::json* v = member("attention", key);
        if (!v || !v->is_number_unsigned() || v->get<std::uint64_t>() == 0 || v->get<std::uint64_t>() > 1u << 20) {
            problems.push_back(
                {file, fmt::format("/attention/{}", key), "the profile has no positive count here", fix});
            return 1u;
        }
        return static_cast<unsigned>(v->get<std::uint64_t>());
    };
    const auto text = [&](const char* key) {
        const auto it = j.find(key);
        return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
    };
    HardwareProfile p;
    // Profiles made before real-cuda name no backend: they are real-cpu's.
    if (const auto it = j.find("profile"); it != j.end()) {
        if (it->is_string() && (*it == "real-cpu" || *it == "real-cuda"))
            p.backend = it->get<std::string>();
        else
            problems.push_back({file, "/profile", "a profile is of \"real-cpu\" or \"real-cuda\"", fix});
    }
    p.attentionElementBytes = p.backend == "real-cuda" ? 2 : 4;
    if (const nlohmann::json* v = member("attention", "element_bytes")) {
        if (v->is_number() && (v->get<double>() == 2 || v->get<double>() == 4))
            p.attentionElementBytes = v->get<double>();
        else
            problems.push_back(
                {file, "/attention/element_bytes", "K and V elements are of 2 (fp16) or 4 (fp32) bytes", fix});
    }
    p.host = text("host");
    p.cpu = text("cpu");
    // The cores are informative (no figure of the simulator's): anything but a count reads as not known.
    if (const auto it = j.find("cores"); it != j.end() && it->is_number_unsigned())
        p.cores = static_cast<unsigned>(std::min<std::uint64_t>(it->get<std::uint64_t>(), 1u << 20));
    // A control message's hand-over is shown as a measured time: an absurd one is no measurement. Profiles written
    // before it was clamped at 0 may hold a small negative (two medians' noise): that reads as 0.
    if (const nlohmann::json* v = member("copy", "message_overhead_ns")) {
        if (v->is_number() && std::isfinite(v->get<double>()) && std::abs(v->get<double>()) <= kMaxProfileNs)
            p.messageOverheadNs = std::max(0.0, v->get<double>());
        else
            problems.push_back({file, "/copy/message_overhead_ns",
                                fmt::format("the profile has no time here ({:g} to {:g} ns)", 0.0, kMaxProfileNs),
                                fix});
    }
    // The descriptor size is the profile's; the descriptor cost came later: a profile without it copies whole.
    const bool descriptors = member("copy", "descriptor_bytes") != nullptr;
    if (descriptors) {
        const nlohmann::json* d = member("copy", "descriptor_bytes");
        if (d->is_number_integer() && d->get<std::int64_t>() >= 0 &&
            static_cast<std::uint64_t>(d->get<std::int64_t>()) <= kMaxDescriptorBytes)
            p.descriptorBytes = static_cast<std::size_t>(d->get<std::int64_t>());
        else
            problems.push_back({file, "/copy/descriptor_bytes",
                                fmt::format("the profile has no byte count here (0 to {})", kMaxDescriptorBytes), fix});
    }
    // A copy path's figures, read alike for every path: its fit and descriptor cost, which must leave its copies a
    // bandwidth (when both were figures).
    // `descriptorCost`: the path must have one (the host path always does; the copies' came later, with the size).
    const auto readPath = [&](const char* section, CopyPathFit& path, bool descriptorCost) {
        path.latencyNs = time(section, "latency_ns").value_or(0);
        const auto pathBandwidth = bandwidth(section, "bandwidth_gbps");
        path.bytesPerNs = pathBandwidth.value_or(0);
        if (!descriptorCost)
            return;
        const auto descriptorNs = time(section, "descriptor_ns");
        path.descriptorNs = descriptorNs.value_or(0);
        if (pathBandwidth && descriptorNs && p.descriptorBytes > 0 &&
            path.effectiveBytesPerNs(p.descriptorBytes) < kMinProfileGBps)
            problems.push_back({file, fmt::format("/{}/descriptor_ns", section),
                                fmt::format("{:g} ns per descriptor of {} B leaves copies at {:.3g} GB/s, below {:g} "
                                            "GB/s",
                                            path.descriptorNs, p.descriptorBytes,
                                            path.effectiveBytesPerNs(p.descriptorBytes), kMinProfileGBps),
                                fix});
    };
    readPath("copy", p.copy, descriptors);
    // The host path (real-cuda's copies to and from pinned host memory), where the profile has one.
    if (j.contains("host_copy")) {
        readPath("host_copy", p.hostCopy, true);
        if (p.backend != "real-cuda")
            problems.push_back({file, "/host_copy",
                                "only a real-cuda profile has a host path: on real-cpu every memory is the host's",
                                fix});
    }
    p.attentionStepNs = time("attention", "step_ns").value_or(0);
    // 0: none measured (real-cpu, one thread).
    if (const nlohmann::json* v = member("attention", "sequence_bandwidth_gbps"); v && !(v->is_number() && *v == 0))
        p.attentionSequenceBytesPerNs = bandwidth("attention", "sequence_bandwidth_gbps").value_or(0);
    p.attentionBytesPerNs = bandwidth("attention", "bandwidth_gbps").value_or(0);
    // Warm steps came later: a profile without them costs every step on the line above.
    if (const nlohmann::json* v = member("attention", "warm_bytes"); v && !(v->is_number() && *v == 0)) {
        if (v->is_number_unsigned() && v->get<std::uint64_t>() <= kMaxWarmBytes)
            p.attentionWarmBytes = static_cast<std::size_t>(v->get<std::uint64_t>());
        else
            problems.push_back({file, "/attention/warm_bytes",
                                fmt::format("the profile has no cache size here (0 to {} bytes)", kMaxWarmBytes), fix});
        p.attentionWarmStepNs = time("attention", "warm_step_ns").value_or(0);
        p.attentionWarmBytesPerNs = bandwidth("attention", "warm_bandwidth_gbps").value_or(0);
        if (p.backend != "real-cpu")
            problems.push_back({file, "/attention/warm_bytes",
                                "only a real-cpu profile has warm steps: a GPU's cache is not modelled", fix});
    }
    refuseUnknownKeys(j, file, fix, problems);
    p.attentionShape.queryHeads = count("query_heads");
    p.attentionShape.kvHeads = count("kv_heads");
    p.attentionShape.headDim = count("head_dim");
    p.attentionShape.blockTokens = count("block_tokens");
    if (!problems.empty())
        throw InputError(std::move(problems));
    return p;
}

HardwareProfile readProfile(const std::string& path)
{
    nlohmann::json j;
    try {
        j = readJsonFile(path);
    } catch (const InputError& e) {
        std::vector<InputProblem> problems = e.problems();
        for (InputProblem& p : problems)
            if (p.field.empty())
                p.fix = "give the profile `cohsim calibrate -o FILE` wrote (a JSON object of a few KiB)";
        throw InputError(std::move(problems));
    }
    return profileFromJson(j, path);
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

bool fittedOwnCosts(const BackendSummary& run)
{
    return plausibleFit(run.copyFit) || plausibleFit(run.hostCopyFit) || plausibleFit(run.attentionFit) ||
           plausibleWarmFit(run.attentionWarmBytes, run.attentionWarmFit);
}

HardwareProfile ownCostProfile(const HardwareProfile& calibrated, const BackendSummary& run)
{
    HardwareProfile p = calibrated;
    const auto take = [](CopyPathFit& path, const CostFit& fit) {
        if (plausibleFit(fit))
            path = CopyPathFit{.latencyNs = fit.fixedNs, .bytesPerNs = fit.bytesPerNs};
    };
    take(p.copy, run.copyFit);
    take(p.hostCopy, run.hostCopyFit);
    if (plausibleFit(run.attentionFit)) {
        p.attentionStepNs = run.attentionFit.fixedNs;
        p.attentionBytesPerNs = run.attentionFit.bytesPerNs;
        p.attentionSequenceBytesPerNs = 0;
        p.attentionRows.clear();
        p.sequenceRows.clear();
    }
    // The steps that read from the core's cache, where the run had any.
    if (plausibleWarmFit(run.attentionWarmBytes, run.attentionWarmFit)) {
        p.attentionWarmBytes = static_cast<std::size_t>(run.attentionWarmBytes);
        p.attentionWarmStepNs = run.attentionWarmFit.fixedNs;
        p.attentionWarmBytesPerNs = run.attentionWarmFit.bytesPerNs;
        p.warmRows.clear();
    }
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
