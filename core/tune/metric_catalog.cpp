#include "core/tune/metric_catalog.h"

#include "core/engine/traffic_counts.h"

#include <algorithm>
#include <stdexcept>

namespace coh::core {

namespace {

double coherenceBytes(const RunSummary& s)
{
    const TrafficCounts t = trafficCounts(s);
    return t.dataBytes + t.controlBytes;
}

double perToken(double value, const RunSummary& s)
{
    return s.outputTokens > 0 ? value / static_cast<double>(s.outputTokens) : 0.0;
}

} // namespace

const std::vector<MetricInfo>& metricCatalog()
{
    using D = Direction;
    static const std::vector<MetricInfo> catalog = {
        {"ttft_p50_ms", "ms", D::Minimize, "time to first token, median",
         [](const RunSummary& s) { return s.ttftMs.p50; }},
        {"ttft_p90_ms", "ms", D::Minimize, "time to first token, 90th percentile",
         [](const RunSummary& s) { return s.ttftMs.p90; }},
        {"ttft_p99_ms", "ms", D::Minimize, "time to first token, 99th percentile",
         [](const RunSummary& s) { return s.ttftMs.p99; }},
        {"tpot_p50_ms", "ms", D::Minimize, "time per output token, median",
         [](const RunSummary& s) { return s.tpotMs.p50; }},
        {"tpot_p90_ms", "ms", D::Minimize, "time per output token, 90th percentile",
         [](const RunSummary& s) { return s.tpotMs.p90; }},
        {"tpot_p99_ms", "ms", D::Minimize, "time per output token, 99th percentile",
         [](const RunSummary& s) { return s.tpotMs.p99; }},
        {"itl_p99_ms", "ms", D::Minimize, "gap between two output tokens, 99th percentile",
         [](const RunSummary& s) { return s.itlMs.p99; }},
        {"e2e_p99_ms", "ms", D::Minimize, "request latency, 99th percentile",
         [](const RunSummary& s) { return s.e2eMs.p99; }},
        {"throughput_tok_s", "tokens/s", D::Maximize, "output tokens per second",
         [](const RunSummary& s) { return s.throughputTokensPerSec; }},
        {"goodput_req_s", "requests/s", D::Maximize, "requests per second that met both SLOs",
         [](const RunSummary& s) { return s.goodputRequestsPerSec; }},
        {"slo_attainment", "fraction", D::Maximize, "share of requests that met both SLOs",
         [](const RunSummary& s) { return s.sloAttainment; }},
        {"coherence_bytes_per_token", "bytes/token", D::Minimize,
         "bytes of every KV and coherence message (data and control) per output token",
         [](const RunSummary& s) { return perToken(coherenceBytes(s), s); }},
        {"coherence_messages_per_token", "messages/token", D::Minimize, "KV and coherence messages per output token",
         [](const RunSummary& s) { return perToken(static_cast<double>(trafficCounts(s).messages), s); }},
        {"stale_reads", "reads", D::Minimize, "decode block reads that returned an older version",
         [](const RunSummary& s) { return static_cast<double>(s.staleness.staleReads); }},
        {"prefix_stale_reads", "reads", D::Minimize, "shared prefix block reads that returned an older version",
         [](const RunSummary& s) { return static_cast<double>(s.sharedPrefix.staleReads); }},
        {"failed_requests", "requests", D::Minimize, "requests given up after a failure",
         [](const RunSummary& s) { return static_cast<double>(s.failures.failed); }},
        {"availability", "fraction", D::Maximize, "instance time up over instance time",
         [](const RunSummary& s) { return s.failures.availability; }},
        {"capacity_at_slo", "x offered load", D::Maximize,
         "the highest load meeting the SLO attainment of the study's \"capacity\", as a multiple of the scenario's",
         nullptr},
    };
    return catalog;
}

const MetricInfo* findMetric(std::string_view name)
{
    const auto& catalog = metricCatalog();
    const auto it = std::find_if(catalog.begin(), catalog.end(), [&](const MetricInfo& m) { return m.name == name; });
    return it == catalog.end() ? nullptr : &*it;
}

std::size_t metricIndex(std::string_view name)
{
    if (const MetricInfo* metric = findMetric(name))
        return static_cast<std::size_t>(metric - metricCatalog().data());
    throw std::out_of_range("unknown metric " + std::string(name));
}

std::vector<double> readMetrics(const RunSummary& summary)
{
    std::vector<double> values;
    for (const auto& m : metricCatalog())
        values.push_back(m.read ? m.read(summary) : 0.0);
    return values;
}

std::vector<std::string> metricNames()
{
    std::vector<std::string> names;
    for (const auto& m : metricCatalog())
        names.emplace_back(m.name);
    return names;
}

} // namespace coh::core
