// Reads /workload: a synthetic arrival process with length distributions, or a trace to replay.
#include "core/scenario/datasets_dir.h"
#include "core/scenario/input_limits.h"
#include "core/scenario/scenario_sections.h"

#include <fmt/format.h>

#include <filesystem>

namespace coh::core {

using nlohmann::json;
namespace fs = std::filesystem;

namespace {

constexpr const char* kLengthExample = R"({ "dist": "uniform", "min": 64, "max": 512 })";

void checkBounds(ObjectReader& r, LengthDistribution& d)
{
    if (d.min > d.max)
        r.problem("max", fmt::format("max ({}) is below min ({})", d.max, d.min), "make max at least min");
}

LengthDistribution readLength(ObjectReader& parent, std::string_view key)
{
    LengthDistribution d;
    const json* value = parent.get(key, requiredAs(kLengthExample));
    if (!value)
        return d;
    ObjectReader r(parent.problems(), *value, parent.pointerTo(key), kLengthExample);
    auto kind = r.enumeration<LengthKind>("dist", requiredAs("\"uniform\""));
    if (!kind)
        return d; // which keys belong depends on the dist: report only the dist until it is known
    d.kind = *kind;
    switch (d.kind) {
    case LengthKind::Fixed:
        d.value = r.count("value", requiredAs("512"), 1).value_or(1);
        r.rejectKeys({"median", "sigma", "exponent", "min", "max"}, "is not used by dist 'fixed' (only \"value\")");
        break;
    case LengthKind::Uniform:
        d.min = r.count("min", requiredAs("64"), 1).value_or(1);
        d.max = r.count("max", requiredAs("512"), 1).value_or(d.min);
        r.rejectKeys({"value", "median", "sigma", "exponent"}, "is not used by dist 'uniform' (only \"min\", \"max\")");
        checkBounds(r, d);
        break;
    case LengthKind::Lognormal:
        d.median = r.positive("median", requiredAs("1024")).value_or(1);
        d.sigma = r.nonNegative("sigma", requiredAs("0.8")).value_or(0);
        d.min = r.count("min", kOptional, 1).value_or(1);
        d.max = r.count("max", kOptional, 1).value_or(1'000'000);
        r.rejectKeys({"value", "exponent"}, "is not used by dist 'lognormal'");
        checkBounds(r, d);
        break;
    case LengthKind::Zipf:
        d.min = r.count("min", requiredAs("16"), 1).value_or(1);
        d.max = r.count("max", requiredAs("4096"), 1).value_or(d.min);
        d.exponent = r.positive("exponent").value_or(1.0);
        r.rejectKeys({"value", "median", "sigma"}, "is not used by dist 'zipf'");
        checkBounds(r, d);
        break;
    }
    r.finish();
    return d;
}

void readSynthetic(ObjectReader& r, SyntheticWorkload& w)
{
    // Bounded before any is generated (input_limits.h).
    if (auto requests = r.integer("requests", kOptional, 1, kMaxRequests))
        w.requests = static_cast<std::uint32_t>(*requests);
    constexpr const char* kArrivalExample = R"({ "process": "poisson", "rate": 4.0 })";
    if (const json* arrival = r.get("arrival", requiredAs(kArrivalExample))) {
        ObjectReader a(r.problems(), *arrival, r.pointerTo("arrival"), kArrivalExample);
        w.arrival = a.enumeration<ArrivalProcess>("process").value_or(ArrivalProcess::Poisson);
        w.ratePerSec = a.positive("rate", requiredAs("4.0")).value_or(w.ratePerSec);
        if (w.arrival == ArrivalProcess::Gamma)
            w.cv = a.positive("cv").value_or(w.cv);
        else
            a.rejectKeys({"cv"}, "is only used by \"process\": \"gamma\"");
        a.finish();
    }
    w.prompt = readLength(r, "prompt");
    w.output = readLength(r, "output");
    r.rejectKeys({"format", "path", "time_scale", "max_requests"}, "is only used by \"type\": \"trace\"");
}

// Relative paths: the scenario's folder first, then the datasets folder. Returns the absolute path found.
std::optional<std::string> resolveTrace(const std::string& path, const std::string& scenarioDir,
                                        std::vector<std::string>& tried)
{
    std::vector<fs::path> candidates;
    if (fs::path(path).is_absolute()) {
        candidates.emplace_back(path);
    } else {
        candidates.push_back(fs::path(scenarioDir) / path);
        candidates.push_back(fs::path(datasetsDir()) / path);
    }
    for (const auto& candidate : candidates) {
        std::error_code ec;
        fs::path absolute = fs::absolute(candidate, ec).lexically_normal();
        tried.push_back(absolute.string());
        if (fs::is_regular_file(absolute, ec))
            return absolute.string();
    }
    return std::nullopt;
}

void readTrace(ObjectReader& r, const std::string& scenarioDir, TraceWorkload& t)
{
    t.format = r.enumeration<TraceFormat>("format", requiredAs("\"azure\"")).value_or(TraceFormat::Azure);
    auto path = r.string("path", requiredAs("\"traces/azure_llm_2023/AzureLLMInferenceTrace_conv.csv\""));
    t.timeScale = r.positive("time_scale").value_or(1.0);
    t.maxRequests = r.count("max_requests").value_or(0);
    r.rejectKeys({"requests", "arrival", "prompt", "output"}, "is only used by \"type\": \"synthetic\"");
    if (!path)
        return;
    t.path = *path;
    if (path->empty()) {
        r.problem("path", "trace path is empty", "name the trace file, e.g. \"traces/azure_llm_2023/...csv\"");
        return;
    }
    std::vector<std::string> tried;
    if (auto resolved = resolveTrace(*path, scenarioDir, tried)) {
        t.resolvedPath = *resolved;
        return;
    }
    std::string list;
    for (const auto& p : tried) {
        // One that is there but is not a file (a folder, a device) is named as such: "not found" would mislead.
        std::error_code ec;
        if (fs::exists(p, ec)) {
            r.problem("path",
                      fmt::format("trace path '{}' is {}, not a trace file", p,
                                  fs::is_directory(p, ec) ? "a folder" : "a device or a pipe"),
                      "name the trace file itself, e.g. \"traces/azure_llm_2023/AzureLLMInferenceTrace_conv.csv\"");
            return;
        }
        list += (list.empty() ? "" : ", ") + p;
    }
    r.problem("path", fmt::format("trace file '{}' not found; tried: {}", *path, list),
              fmt::format("check the path: relative paths are tried against the scenario's folder, then the "
                          "datasets folder ({}; set COH_DATASETS_DIR to move it)",
                          datasetsDir()));
}

} // namespace

void readWorkload(ObjectReader& top, const std::string& scenarioDir, WorkloadSpec& workload)
{
    constexpr const char* kExample = R"({ "type": "synthetic", "requests": 100, "arrival": { ... }, ... })";
    const json* value = top.get("workload", requiredAs(kExample));
    if (!value)
        return;
    ObjectReader r(top.problems(), *value, top.pointerTo("workload"), kExample);
    auto kind = r.enumeration<WorkloadKind>("type", requiredAs("\"synthetic\""));
    if (!kind)
        return; // which keys are allowed depends on the type: say nothing more until it is known
    workload.kind = *kind;
    switch (workload.kind) {
    case WorkloadKind::Synthetic:
        readSynthetic(r, workload.synthetic);
        break;
    case WorkloadKind::Trace:
        readTrace(r, scenarioDir, workload.trace);
        break;
    }
    r.finish();
}

} // namespace coh::core
