#include "core/compare/run_comparison.h"

#include "core/compare/compare_summary.h"
#include "core/compare/cost_variant_errors.h"
#include "core/engine/traffic_counts.h"
#include "core/engine/ttft_parts.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <set>
#include <string_view>
#include <utility>

namespace coh::core {

namespace {

using S = RunSummary;
using enum Better;
using enum MetricUnit;

// Latencies and rates are measured over a sample of requests: a 1% difference is within what another seed
// moves them by, so it is "about the same". Counts and bytes are exact outcomes of the protocol: any
// difference is a real one.
constexpr double kMeasured = 0.01;
constexpr double kExact = 0.0;
// 10 us: no one reads a latency, or a coherence stall per token, finer than a hundredth of a millisecond, and a
// stall of 0.001 ms against 0.00094 ms (+6%) is no finding. Other metrics need no floor beyond their display step.
constexpr double kLatencyFloorMs = 0.01;
constexpr double kNoFloor = 0.0;

double count(std::uint64_t v)
{
    return static_cast<double>(v);
}

double ttftOf(const RequestMetrics& r)
{
    return toMilliseconds(r.ttft());
}
double tpotOf(const RequestMetrics& r)
{
    return r.tpot() >= 0 ? toMilliseconds(r.tpot()) : std::nan("");
}
double e2eOf(const RequestMetrics& r)
{
    return toMilliseconds(r.e2e());
}
double transferOf(const RequestMetrics& r)
{
    return toMilliseconds(r.transfer());
}

// TTFT's mean and its parts' (core/engine/ttft_parts.h, kTtftPartsGroup): where a difference in TTFT comes from.
template <std::size_t Part> MetricSpec ttftPartMetric()
{
    return {kTtftPartsGroup, kTtftParts[Part].label, Milliseconds, Lower, kMeasured, kLatencyFloorMs, [](const S& s) {
                return (s.*kTtftParts[Part].ms).mean;
            }};
}
static_assert(std::size(kTtftParts) == 6, "kMetrics lists each of TTFT's parts");

const std::vector<MetricSpec> kMetrics = {
    {"Latency", "TTFT p50", Milliseconds, Lower, kMeasured, kLatencyFloorMs, [](const S& s) { return s.ttftMs.p50; },
     0.50, ttftOf},
    {"Latency", "TTFT p90", Milliseconds, Lower, kMeasured, kLatencyFloorMs, [](const S& s) { return s.ttftMs.p90; },
     0.90, ttftOf},
    {"Latency", "TTFT p99", Milliseconds, Lower, kMeasured, kLatencyFloorMs, [](const S& s) { return s.ttftMs.p99; },
     0.99, ttftOf},
    {"Latency", "TPOT p50", Milliseconds, Lower, kMeasured, kLatencyFloorMs, [](const S& s) { return s.tpotMs.p50; },
     0.50, tpotOf},
    {"Latency", "TPOT p90", Milliseconds, Lower, kMeasured, kLatencyFloorMs, [](const S& s) { return s.tpotMs.p90; },
     0.90, tpotOf},
    {"Latency", "TPOT p99", Milliseconds, Lower, kMeasured, kLatencyFloorMs, [](const S& s) { return s.tpotMs.p99; },
     0.99, tpotOf},
    {"Latency", "E2E p50", Milliseconds, Lower, kMeasured, kLatencyFloorMs, [](const S& s) { return s.e2eMs.p50; },
     0.50, e2eOf},
    {"Latency", "E2E p99", Milliseconds, Lower, kMeasured, kLatencyFloorMs, [](const S& s) { return s.e2eMs.p99; },
     0.99, e2eOf},
    {"Latency", "KV transfer p50", Milliseconds, Lower, kMeasured, kLatencyFloorMs,
     [](const S& s) { return s.transferMs.p50; }, 0.50, transferOf},
    {"Latency", "KV transfer p99", Milliseconds, Lower, kMeasured, kLatencyFloorMs,
     [](const S& s) { return s.transferMs.p99; }, 0.99, transferOf},
    {"Latency", "TPOT coherence stall (mean per token)", Milliseconds, Lower, kMeasured, kLatencyFloorMs,
     [](const S& s) { return s.tpotStallMs.mean; }},
    {kTtftPartsGroup, "TTFT mean", Milliseconds, Lower, kMeasured, kLatencyFloorMs,
     [](const S& s) { return s.ttftMs.mean; }},
    ttftPartMetric<0>(),
    ttftPartMetric<1>(),
    ttftPartMetric<2>(),
    ttftPartMetric<3>(),
    ttftPartMetric<4>(),
    ttftPartMetric<5>(),
    {"Throughput", "Throughput (tokens)", TokensPerSecond, Higher, kMeasured, kNoFloor,
     [](const S& s) { return s.throughputTokensPerSec; }},
    {"Throughput", "Throughput (requests)", RequestsPerSecond, Higher, kMeasured, kNoFloor,
     [](const S& s) { return s.throughputRequestsPerSec; }},
    {"Throughput", "Goodput", RequestsPerSecond, Higher, kMeasured, kNoFloor,
     [](const S& s) { return s.goodputRequestsPerSec; }},
    {"Throughput", "SLO attainment", Percent, Higher, kExact, kNoFloor,
     [](const S& s) { return 100.0 * s.sloAttainment; }},
    {"Throughput", "Makespan", Seconds, Lower, kMeasured, kNoFloor, [](const S& s) { return toSeconds(s.makespan); }},
    {"Traffic", "Messages", Count, Lower, kExact, kNoFloor,
     [](const S& s) { return count(trafficCounts(s).messages); }},
    {"Traffic", "Data messages", Count, Lower, kExact, kNoFloor,
     [](const S& s) { return count(trafficCounts(s).dataMessages); }},
    {"Traffic", "Control messages", Count, Lower, kExact, kNoFloor,
     [](const S& s) { return count(trafficCounts(s).controlMessages); }},
    {"Traffic", "Network flows", Count, Lower, kExact, kNoFloor, [](const S& s) { return count(s.flows); }},
    {"Traffic", "Data bytes", Bytes, Lower, kExact, kNoFloor, [](const S& s) { return trafficCounts(s).dataBytes; }},
    {"Traffic", "Control bytes", Bytes, Lower, kExact, kNoFloor,
     [](const S& s) { return trafficCounts(s).controlBytes; }},
    {"Coherence", "Invalidations", Count, Lower, kExact, kNoFloor,
     [](const S& s) { return count(trafficCounts(s).invalidations); }},
    {"Coherence", "Upgrades", Count, Lower, kExact, kNoFloor, [](const S& s) { return count(s.upgrades); }},
    {"Coherence", "Write-backs", Count, Lower, kExact, kNoFloor,
     [](const S& s) { return count(trafficCounts(s).writebacks); }},
    {"Coherence", "Bias flips", Count, Lower, kExact, kNoFloor,
     [](const S& s) { return count(trafficCounts(s).biasFlips); }},
    {"Coherence", "Migrations", Count, Lower, kExact, kNoFloor,
     [](const S& s) { return count(trafficCounts(s).migrations); }},
    {"Staleness", "Stale reads (of block reads)", Percent, Lower, kExact, kNoFloor,
     [](const S& s) { return staleReadPercent(s); }},
    {"Staleness", "Stale block reads", Count, Lower, kExact, kNoFloor,
     [](const S& s) { return count(s.staleness.staleReads); }},
    {"Staleness", "Reads that waited for the update", Count, Lower, kExact, kNoFloor,
     [](const S& s) { return count(s.staleness.readerWaits); }},
    {"Leases", "Reads after the lease expired", Count, Lower, kExact, kNoFloor,
     [](const S& s) { return count(s.lease.expiredReads); }},
    {"Leases", "Decode steps with such a read", Count, Lower, kExact, kNoFloor,
     [](const S& s) { return count(s.lease.expiredSteps); }},
    {"Leases", "Blocks decode fetched again at expiry", Count, Lower, kExact, kNoFloor,
     [](const S& s) { return count(s.lease.refetches); }},
    {"Prefix pool", "Prompt tokens from the pool", Percent, Higher, kExact, kNoFloor,
     [](const S& s) {
         const auto& p = s.prefixPool;
         return p.promptTokens ? 100.0 * count(p.hitTokens) / count(p.promptTokens) : 0.0;
     }},
    {"Shared prefix", "Prefix blocks decode found held", Percent, Higher, kExact, kNoFloor,
     [](const S& s) {
         const auto& p = s.sharedPrefix;
         return p.acquires ? 100.0 * count(p.acquireHits) / count(p.acquires) : 0.0;
     }},
    {"Shared prefix", "Shared block reads that waited", Count, Lower, kExact, kNoFloor,
     [](const S& s) { return count(s.sharedPrefix.readMisses); }},
    {"Shared prefix", "Shared block bytes across links", Bytes, Lower, kExact, kNoFloor,
     [](const S& s) { return s.sharedPrefix.bytes; }},
    {"KV tiers", "Sequences taken off HBM", Count, Lower, kExact, kNoFloor,
     [](const S& s) { return count(s.kvTiers.preemptions); }},
    {"KV tiers", "Time off HBM (summed)", Seconds, Lower, kMeasured, kNoFloor,
     [](const S& s) { return s.kvTiers.offHbmMs / 1000.0; }},
    {"KV tiers", "Tier messages", Count, Lower, kExact, kNoFloor,
     [](const S& s) {
         double n = 0;
         for (const auto& t : s.kvTiers.tiers)
             n += count(t.messages);
         return n;
     }},
    {"KV tiers", "Tier bytes (down + up)", Bytes, Lower, kExact, kNoFloor,
     [](const S& s) {
         double bytes = 0;
         for (const auto& t : s.kvTiers.tiers)
             bytes += t.bytesDown + t.bytesUp;
         return bytes;
     }},
    {"Failures", "Requests not completed", Count, Lower, kExact, kNoFloor,
     [](const S& s) { return count(s.requests - std::min(s.requests, s.completed)); }},
    {"Failures", "Requests a node failure hit", Count, Lower, kExact, kNoFloor,
     [](const S& s) { return count(s.failures.hits); }},
    {"Failures", "Requests given up after a failure", Count, Lower, kExact, kNoFloor,
     [](const S& s) { return count(s.failures.failed); }},
    {"Failures", "Recoveries from a surviving copy", Count, Higher, kExact, kNoFloor,
     [](const S& s) { return count(s.failures.fromCopy); }},
    {"Failures", "Tokens redone (prefilled or decoded again)", Count, Lower, kExact, kNoFloor,
     [](const S& s) { return count(s.failures.recomputedTokens); }},
    {"Failures", "Instance availability", Percent, Higher, kExact, kNoFloor,
     [](const S& s) { return 100.0 * s.failures.availability; }},
};

// A group shows when some run has something in it: a protocol for coherence, stale reads or waits for
// staleness, expiring leases, a pool, shared prefix blocks, decode KV tiers, node failures or requests that did not
// complete.
bool groupShown(std::string_view group, const std::vector<ComparedRun>& runs)
{
    const auto any = [&](const std::function<bool(const S&)>& has) {
        for (const auto& run : runs)
            if (has(*run.summary))
                return true;
        return false;
    };
    if (group == "Coherence")
        return any([](const S& s) { return s.protocol != "direct"; });
    if (group == "Staleness")
        return any([](const S& s) { return s.staleness.staleReads > 0 || s.staleness.readerWaits > 0; });
    if (group == "Leases")
        return any([](const S& s) { return s.lease.ttl >= 0; });
    if (group == "Prefix pool")
        return any([](const S& s) { return s.prefixPool.enabled; });
    if (group == "Shared prefix")
        return any([](const S& s) { return s.sharedPrefix.enabled; });
    if (group == "KV tiers")
        return any([](const S& s) { return s.kvTiers.enabled; });
    if (group == "Failures")
        return any([](const S& s) { return s.completed < s.requests || s.failures.enabled; });
    return true;
}

// The tolerance's share of the first run's value, the runs' noise or the metric's absolute allowance.
double allowanceOf(const MetricSpec& spec, double base, double noise)
{
    return std::max({spec.tolerance * std::fabs(base), noise, absoluteAllowance(spec)});
}

Verdict verdictOf(const MetricSpec& spec, double base, double value, double noise)
{
    if (aboutTheSame(spec, base, value, noise))
        return Verdict::Same;
    if (spec.better == Neither)
        return Verdict::Differs;
    return (value < base) == (spec.better == Lower) ? Verdict::Better : Verdict::Worse;
}

// The simulator's error against the real run it models: within its goal or beyond it (withinSimulatorGoal, as
// compare-real judges), and the amount allowed. A difference under half the row's last digit is no finding.
std::pair<Verdict, double> errorVerdictOf(const MetricSpec& spec, double real, double simulated)
{
    const double resolution = displayStep(spec.unit) / 2;
    const double allowed = mustEqual(spec) ? resolution : std::max(kSimulatorErrorGoal * std::fabs(real), resolution);
    return {withinSimulatorGoal(real, simulated, mustEqual(spec), resolution) ? Verdict::Within : Verdict::Beyond,
            allowed};
}

// One "what ran" row: its label, the words before its value in a run's title ("seed 7"), and the value every run
// leaving it at its default has (such a row says nothing unless the runs differ; nullptr: always shown).
struct PropertySpec {
    const char* label;
    const char* titlePrefix;
    const char* defaultValue;
    std::string (*value)(const ComparedRun&);
};

const PropertySpec kProperties[] = {
    {"Scenario", "", nullptr, [](const ComparedRun& r) { return r.info.scenarioName; }},
    {"Decode protocol", "", nullptr, [](const ComparedRun& r) { return r.summary->protocol; }},
    {"Prefill protocol", "prefill ", "direct", [](const ComparedRun& r) { return r.info.prefillProtocol; }},
    {"Tier protocols", "tiers ", "none",
     [](const ComparedRun& r) { return r.info.tierProtocols.empty() ? std::string("none") : r.info.tierProtocols; }},
    {"Backend", "", "simulated", [](const ComparedRun& r) { return r.info.backend; }},
    {"Seed", "seed ", nullptr, [](const ComparedRun& r) { return std::to_string(r.info.seed); }},
    {"Requests", "requests ", nullptr, [](const ComparedRun& r) { return std::to_string(r.summary->requests); }},
};

// A column's value of a property: its runs' distinct values, in run order, joined.
std::string columnValue(const PropertySpec& spec, const std::vector<ComparedRun>& runs,
                        const std::vector<std::size_t>& column)
{
    std::vector<std::string> distinct;
    for (std::size_t i : column)
        if (std::string v = spec.value(runs[i]); std::find(distinct.begin(), distinct.end(), v) == distinct.end())
            distinct.push_back(std::move(v));
    return fmt::format("{}", fmt::join(distinct, ", "));
}

std::vector<PropertyRow> propertiesOf(const std::vector<ComparedRun>& runs,
                                      const std::vector<std::vector<std::size_t>>& columns)
{
    std::vector<PropertyRow> rows;
    for (const PropertySpec& spec : kProperties) {
        PropertyRow row{spec.label, {}, false};
        bool allDefault = spec.defaultValue != nullptr;
        for (const auto& column : columns) {
            row.values.push_back(columnValue(spec, runs, column));
            row.differs = row.differs || row.values.back() != row.values.front();
            allDefault = allDefault && row.values.back() == spec.defaultValue;
        }
        if (row.differs || !allDefault)
            rows.push_back(std::move(row));
    }
    return rows;
}

// Each column is titled by the properties that differ between the columns; when none does (or two columns would
// read the same), by its first run's id and name.
std::vector<std::string> titlesOf(const std::vector<ComparedRun>& runs,
                                  const std::vector<std::vector<std::size_t>>& columns,
                                  const std::vector<PropertyRow>& properties)
{
    std::vector<std::string> titles(columns.size());
    for (const auto& p : properties) {
        if (!p.differs)
            continue;
        const auto spec = std::find_if(std::begin(kProperties), std::end(kProperties),
                                       [&](const PropertySpec& s) { return p.label == s.label; });
        for (std::size_t i = 0; i < columns.size(); ++i)
            titles[i] += (titles[i].empty() ? "" : ", ") + std::string(spec->titlePrefix) + p.values[i];
    }
    std::set<std::string> seen, repeated;
    for (const auto& t : titles)
        if (!seen.insert(t).second)
            repeated.insert(t);
    for (std::size_t i = 0; i < columns.size(); ++i) {
        const RunInfo& first = runs[columns[i].front()].info;
        const std::string id = fmt::format("#{} {}", first.id, first.name);
        if (titles[i].empty())
            titles[i] = id;
        else if (repeated.count(titles[i]))
            titles[i] += fmt::format(" (#{})", first.id);
    }
    return titles;
}

// Pairs of a real run and the one run that models it (RunInfo::modelsRun), in the order the real runs are given,
// when every run is in exactly one such pair; none otherwise (runs to choose between).
std::vector<std::pair<std::size_t, std::size_t>> simulatorPairs(const std::vector<ComparedRun>& runs)
{
    if (runs.size() < 2 || runs.size() % 2 != 0)
        return {};
    std::map<std::int64_t, std::size_t> realAt;
    for (std::size_t i = 0; i < runs.size(); ++i)
        if (runs[i].info.modelsRun == 0 && (runs[i].info.id == 0 || !realAt.emplace(runs[i].info.id, i).second))
            return {};
    if (2 * realAt.size() != runs.size())
        return {};
    std::map<std::size_t, std::size_t> modelOf; // the real run's place -> its model's
    for (std::size_t i = 0; i < runs.size(); ++i) {
        if (runs[i].info.modelsRun == 0)
            continue;
        const auto real = realAt.find(runs[i].info.modelsRun);
        if (real == realAt.end() || !modelOf.emplace(real->second, i).second)
            return {};
    }
    std::vector<std::pair<std::size_t, std::size_t>> pairs;
    for (std::size_t i = 0; i < runs.size(); ++i)
        if (runs[i].info.modelsRun == 0)
            pairs.emplace_back(i, modelOf.at(i));
    // Repeats of one comparison: each side's runs ran the same (scenario, protocols, seed, requests), or their
    // medians would mix unlike runs.
    for (const PropertySpec& spec : kProperties)
        for (const auto& [real, model] : pairs)
            if (spec.value(runs[real]) != spec.value(runs[pairs.front().first]) ||
                spec.value(runs[model]) != spec.value(runs[pairs.front().second]))
                return {};
    return pairs;
}

// The simulator's error over several pairs, as compare-real judges it (SimVsRealRow, one rule for both): each
// pair's, their median, and whether that is within the goal (a count: equal in every pair).
void judgePairs(MetricRow& row, const std::vector<double>& real, const std::vector<double>& simulated)
{
    const MetricSpec& spec = *row.spec;
    const double resolution = displayStep(spec.unit) / 2;
    SimVsRealRow judged;
    judged.real = row.values[0];
    judged.simulated = row.values[1];
    judged.count = mustEqual(spec);
    for (std::size_t p = 0; p < real.size(); ++p) {
        const double d = simulated[p] - real[p];
        row.pairDelta.push_back(d);
        judged.pairErrorsPct.push_back(SimVsRealRow::pairErrorPct(real[p], simulated[p], resolution));
        row.pairRelative.push_back(judged.pairErrorsPct.back() / 100);
        judged.everyRunEqual = judged.everyRunEqual && std::fabs(d) <= resolution;
    }
    // The error as a share, and as an amount of the real side's median: the median of the pairs' differences may
    // have the other sign than the median of their shares (two pairs of -1 ms on 1 ms and +10 ms on 1000 ms).
    row.relative = {0, judged.errorPct() / 100};
    row.delta = {0, SimVsRealRow::pairedDifference(judged.real, judged.errorPct(), row.pairDelta)};
    row.allowance = {0, judged.count ? resolution : std::max(kSimulatorErrorGoal * std::fabs(judged.real), resolution)};
    row.verdicts = {Verdict::Baseline, judged.withinGoal() ? Verdict::Within : Verdict::Beyond};
}

// quantileNoise() over values already sorted, without NaN.
double sortedQuantileNoise(const std::vector<double>& values, double quantile)
{
    const auto n = static_cast<double>(values.size());
    if (values.size() < 2)
        return 0;
    const double rank = quantile * (n - 1);
    const double spread = 1.96 * std::sqrt(n * quantile * (1 - quantile));
    const auto lo = static_cast<std::size_t>(std::max(0.0, std::floor(rank - spread)));
    const auto hi = static_cast<std::size_t>(std::min(n - 1, std::ceil(rank + spread)));
    return (values[hi] - values[lo]) / 2;
}

// A run's requests as one metric's samples, sorted, NaN left out.
std::vector<double> sortedSamples(const std::vector<RequestMetrics>& requests, double (*sample)(const RequestMetrics&))
{
    std::vector<double> values;
    values.reserve(requests.size());
    for (const RequestMetrics& r : requests)
        if (const double v = sample(r); !std::isnan(v))
            values.push_back(v);
    std::sort(values.begin(), values.end());
    return values;
}

} // namespace

double staleReadPercent(const RunSummary& s)
{
    return s.staleness.reads
               ? 100.0 * static_cast<double>(s.staleness.staleReads) / static_cast<double>(s.staleness.reads)
               : 0.0;
}

const std::vector<MetricSpec>& comparedMetrics()
{
    return kMetrics;
}

double displayStep(MetricUnit unit)
{
    switch (unit) {
    case Milliseconds:
    case Seconds:
    case Percent:
    case TokensPerSecond:
    case RequestsPerSecond:
        return 0.001;
    case Count:
    case Bytes:
        return 1;
    }
    return 0;
}

double absoluteAllowance(const MetricSpec& spec)
{
    return std::max(spec.floor, displayStep(spec.unit) / 2);
}

bool aboutTheSame(const MetricSpec& spec, double base, double value, double noise)
{
    if (std::isnan(base) || std::isnan(value))
        return std::isnan(base) && std::isnan(value);
    return std::fabs(value - base) <= allowanceOf(spec, base, noise);
}

double quantileNoise(std::vector<double> values, double quantile)
{
    std::erase_if(values, [](double v) { return std::isnan(v); });
    std::sort(values.begin(), values.end());
    return sortedQuantileNoise(values, quantile);
}

bool mustEqual(const MetricSpec& spec)
{
    return spec.unit == Count || spec.unit == Bytes;
}

bool pairDiffers(const MetricRow& row, std::size_t pair)
{
    return !(std::fabs(row.pairDelta[pair]) <= displayStep(row.spec->unit) / 2);
}

std::size_t pairsThatDiffer(const MetricRow& row)
{
    std::size_t differ = 0;
    for (std::size_t p = 0; p < row.pairDelta.size(); ++p)
        differ += pairDiffers(row, p) ? 1 : 0;
    return differ;
}

RunComparison compareRuns(const std::vector<ComparedRun>& runs)
{
    RunComparison c;
    if (runs.empty())
        return c;
    const auto pairs = simulatorPairs(runs);
    c.simulatorError = !pairs.empty();
    c.pairs = pairs.size();
    if (pairs.empty()) {
        for (std::size_t i = 0; i < runs.size(); ++i)
            c.columns.push_back({i});
    } else {
        c.columns.resize(2);
        for (const auto& [real, model] : pairs) {
            c.columns[0].push_back(real);
            c.columns[1].push_back(model);
        }
    }
    if (!c.simulatorError)
        for (const ComparedRun& run : runs) {
            const std::string backend = run.info.backend.empty() ? "simulated" : run.info.backend;
            if (std::find(c.backends.begin(), c.backends.end(), backend) == c.backends.end())
                c.backends.push_back(backend);
        }
    c.otherMachines = c.backends.size() > 1;
    if (!c.otherMachines)
        c.backends.clear();
    c.properties = propertiesOf(runs, c.columns);
    c.titles = titlesOf(runs, c.columns, c.properties);
    // Per run, each sampled metric's requests sorted once: its p50, p90 and p99 rows all read them.
    std::vector<std::map<double (*)(const RequestMetrics&), std::vector<double>>> sorted(runs.size());
    for (const MetricSpec& spec : kMetrics) {
        if (!groupShown(spec.group, runs))
            continue;
        MetricRow row;
        row.spec = &spec;
        std::vector<std::vector<double>> columnValues;
        for (const auto& column : c.columns) {
            auto& values = columnValues.emplace_back();
            for (std::size_t i : column)
                values.push_back(spec.value(*runs[i].summary));
            row.values.push_back(values.size() == 1 ? values.front() : SimVsRealRow::median(values));
            // A percentile's noise is one run's: a column of several runs has none (their median's is not it).
            double noise = 0;
            const std::size_t i = column.front();
            if (column.size() == 1 && spec.sample && runs[i].requests) {
                auto [samples, fresh] = sorted[i].try_emplace(spec.sample);
                if (fresh)
                    samples->second = sortedSamples(*runs[i].requests, spec.sample);
                noise = sortedQuantileNoise(samples->second, spec.quantile);
            }
            row.noise.push_back(noise);
        }
        if (c.pairs > 1) {
            judgePairs(row, columnValues[0], columnValues[1]);
            c.metrics.push_back(std::move(row));
            continue;
        }
        const double base = row.values.front();
        for (std::size_t i = 0; i < row.values.size(); ++i) {
            const double d = row.values[i] - base;
            const double noise = i == 0 ? 0 : std::max(row.noise[0], row.noise[i]);
            row.delta.push_back(d);
            row.relative.push_back(base != 0 ? d / std::fabs(base) : std::nan(""));
            if (i == 0) {
                row.allowance.push_back(0);
                row.verdicts.push_back(Verdict::Baseline);
            } else if (c.simulatorError) {
                const auto [verdict, allowed] = errorVerdictOf(spec, base, row.values[i]);
                row.allowance.push_back(allowed);
                row.verdicts.push_back(verdict);
            } else {
                row.allowance.push_back(allowanceOf(spec, base, noise));
                Verdict verdict = verdictOf(spec, base, row.values[i], noise);
                if (c.otherMachines && (verdict == Verdict::Better || verdict == Verdict::Worse))
                    verdict = Verdict::Differs;
                row.verdicts.push_back(verdict);
            }
        }
        c.metrics.push_back(std::move(row));
    }
    addCostVariantErrors(c, runs);
    c.summary = summarizeComparison(c);
    return c;
}

} // namespace coh::core
