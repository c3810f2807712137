#include "core/store/run_export.h"

#include "core/store/run_serialization.h"

#include <fmt/format.h>

namespace coh::core {

namespace {

// The time columns of a request export, shared by CSV and JSON so the two always agree.
struct TimeColumn {
    const char* name;
    SimTime (*value)(const RequestMetrics&);
};

constexpr TimeColumn kTimeColumns[] = {
    {"arrival_ms", [](const RequestMetrics& r) { return r.arrival; }},
    {"ttft_ms", [](const RequestMetrics& r) { return r.ttft(); }},
    {"queue_ms", [](const RequestMetrics& r) { return r.queueing(); }},
    {"prefill_ms", [](const RequestMetrics& r) { return r.prefill(); }},
    {"admission_ms", [](const RequestMetrics& r) { return r.admission(); }},
    {"transfer_ms", [](const RequestMetrics& r) { return r.transfer(); }},
    {"load_ms", [](const RequestMetrics& r) { return r.load(); }},
    {"first_decode_ms", [](const RequestMetrics& r) { return r.firstDecode(); }},
    {"tpot_ms", [](const RequestMetrics& r) { return r.tpot(); }},
    {"e2e_ms", [](const RequestMetrics& r) { return r.e2e(); }},
    {"decode_compute_ms", [](const RequestMetrics& r) { return r.decodeCompute; }},
    {"decode_transfer_ms", [](const RequestMetrics& r) { return r.decodeTransfer; }},
    {"decode_stall_ms", [](const RequestMetrics& r) { return r.decodeStall; }},
};

// TPOT is undefined (-1) for a one-token request: an empty cell / null, not a negative time.
bool undefinedValue(const TimeColumn& column, SimTime value)
{
    return value < 0 && std::string_view(column.name) == "tpot_ms";
}

std::string instanceName(const RunResult& result, std::uint32_t index)
{
    return index < result.instanceIds.size() ? result.instanceIds[index] : std::to_string(index);
}

std::string csvField(const std::string& text)
{
    if (text.find_first_of(",\"\r\n") == std::string::npos)
        return text;
    std::string quoted = "\"";
    for (char c : text) {
        if (c == '"')
            quoted += '"';
        quoted += c;
    }
    return quoted + '"';
}

void flatten(const nlohmann::ordered_json& j, const std::string& prefix, std::ostream& out)
{
    for (const auto& [key, value] : j.items()) {
        const std::string name = prefix.empty() ? key : prefix + "." + key;
        if (value.is_object())
            flatten(value, name, out);
        else
            out << csvField(name) << ',' << (value.is_null() ? std::string{} : value.dump()) << '\n';
    }
}

} // namespace

std::string formatMilliseconds(SimTime ns)
{
    const bool negative = ns < 0;
    // Through unsigned so the most negative value has a magnitude too.
    const std::uint64_t magnitude = negative ? 0 - static_cast<std::uint64_t>(ns) : static_cast<std::uint64_t>(ns);
    std::string text = fmt::format("{}{}", negative ? "-" : "", magnitude / 1'000'000);
    if (const std::uint64_t fraction = magnitude % 1'000'000) {
        std::string digits = fmt::format("{:06}", fraction);
        digits.erase(digits.find_last_not_of('0') + 1);
        text += '.' + digits;
    }
    return text;
}

void writeRequestsCsv(std::ostream& out, const RunResult& result)
{
    // Runs with node failures add what the failures did to each request.
    const bool failures = result.summary.failures.enabled;
    out << "id,prompt_tokens,cached_tokens,output_tokens,prefill_instance,decode_instance";
    for (const auto& column : kTimeColumns)
        out << ',' << column.name;
    out << (failures ? ",failure_hits,restored_tokens,recomputed_tokens\n" : "\n");
    for (const auto& r : result.requests) {
        out << fmt::format("{},{},{},{},{},{}", r.id, r.promptTokens, r.cachedTokens, r.outputTokens,
                           csvField(instanceName(result, r.prefillInstance)),
                           csvField(instanceName(result, r.decodeInstance)));
        for (const auto& column : kTimeColumns) {
            const SimTime value = column.value(r);
            out << ',' << (undefinedValue(column, value) ? std::string{} : formatMilliseconds(value));
        }
        if (failures)
            out << fmt::format(",{},{},{}", r.failureHits, r.restoredTokens, r.recomputedTokens);
        out << '\n';
    }
}

void writeSummaryCsv(std::ostream& out, const RunSummary& summary)
{
    out << "key,value\n";
    flatten(toJson(summary), "", out);
}

nlohmann::ordered_json exportJson(const RunInfo& info, const std::string& scenarioJson, const RunResult& result,
                                  const std::vector<CostVariant>& costVariants)
{
    auto scenario = nlohmann::ordered_json::parse(scenarioJson, nullptr, /*allow_exceptions=*/false);
    if (scenario.is_discarded())
        scenario = scenarioJson; // keep what was stored, even if it is not JSON

    nlohmann::ordered_json run = toJson(info);
    run["messages_total"] = result.summary.flows; // the summary's flows, under the key exports have always had
    run["link_interval_ns"] = result.linkInterval;
    run["node_ids"] = result.nodeIds;
    run["link_ids"] = result.linkIds;
    run["instance_ids"] = result.instanceIds;
    run["scenario"] = std::move(scenario);

    auto requests = nlohmann::ordered_json::array();
    for (const auto& r : result.requests) {
        nlohmann::ordered_json row = {
            {"id", r.id},
            {"prompt_tokens", r.promptTokens},
            {"cached_tokens", r.cachedTokens},
            {"output_tokens", r.outputTokens},
            {"prefill_instance", instanceName(result, r.prefillInstance)},
            {"decode_instance", instanceName(result, r.decodeInstance)},
        };
        if (result.summary.failures.enabled) {
            row["failure_hits"] = r.failureHits;
            row["restored_tokens"] = r.restoredTokens;
            row["recomputed_tokens"] = r.recomputedTokens;
        }
        for (const auto& column : kTimeColumns) {
            const SimTime value = column.value(r);
            // Division (not * 1e-6) gives the nearest double to the exact millisecond value.
            row[column.name] = undefinedValue(column, value) ? nlohmann::ordered_json(nullptr)
                                                             : nlohmann::ordered_json(static_cast<double>(value) / 1e6);
        }
        requests.push_back(std::move(row));
    }
    // Per-bucket series, one bucket every run.link_interval_ns from time 0.
    auto links = nlohmann::ordered_json::array();
    for (const auto& series : result.linkSeries)
        links.push_back(
            {{"link", series.link < result.linkIds.size() ? result.linkIds[series.link] : std::to_string(series.link)},
             {"direction", series.forward ? "forward" : "reverse"},
             {"bandwidth_bytes_per_s", series.bandwidthBytesPerSec},
             {"total_bytes", series.totalBytes},
             {"bytes_per_bucket", series.bytesPerBucket}});
    auto nodeBlocks = nlohmann::ordered_json::array();
    for (const auto& series : result.nodeBlocks)
        nodeBlocks.push_back(
            {{"node", series.node < result.nodeIds.size() ? result.nodeIds[series.node] : std::to_string(series.node)},
             {"state", series.state},
             {"peak_blocks", series.peakBlocks},
             {"blocks_per_bucket", series.blocksPerBucket}});
    // The recorded decode iterations (all of them, or a sample of summary.decode_iterations), by start.
    auto iterations = nlohmann::ordered_json::array();
    const auto ms = [](SimTime ns) { return static_cast<double>(ns) / 1e6; };
    for (const DecodeIterationRecord& it : result.iterations)
        iterations.push_back({{"instance", instanceName(result, it.instance)},
                              {"start_ms", ms(it.start)},
                              {"compute_start_ms", ms(it.computeStart)},
                              {"end_ms", ms(it.end)},
                              {"sequences", it.sequences},
                              {"context_tokens", it.contextTokens}});
    nlohmann::ordered_json out = {{"run", std::move(run)},
                                  {"summary", toJson(result.summary)},
                                  {"requests", std::move(requests)},
                                  {"link_series", std::move(links)},
                                  {"node_blocks", std::move(nodeBlocks)},
                                  {"decode_iterations", std::move(iterations)}};
    if (!costVariants.empty())
        out["cost_variants"] = toJson(costVariants);
    return out;
}

} // namespace coh::core
