#include "core/store/run_serialization.h"

#include "core/engine/traffic_counts.h"
#include "core/store/backend_json.h"
#include "core/store/failures_json.h"
#include "core/store/iteration_rows.h"
#include "core/store/kv_tiers_json.h"
#include "core/store/lease_json.h"
#include "core/store/legacy_traffic.h"
#include "core/store/shared_prefix_json.h"

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Statement.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <optional>

namespace coh::core {

namespace {

// nlohmann writes NaN and infinities as null; read null back as NaN rather than failing.
double readNumber(const nlohmann::ordered_json& j, const char* key)
{
    const auto it = j.find(key);
    if (it == j.end())
        return 0;
    if (it->is_null())
        return std::numeric_limits<double>::quiet_NaN();
    return it->get<double>();
}

std::uint64_t readCount(const nlohmann::ordered_json& j, const char* key)
{
    const auto it = j.find(key);
    return it == j.end() || it->is_null() ? 0 : it->get<std::uint64_t>();
}

// SQLite stores a NaN REAL as NULL.
double columnDouble(const SQLite::Column& c)
{
    return c.isNull() ? std::numeric_limits<double>::quiet_NaN() : c.getDouble();
}

std::int64_t i64(std::uint32_t v)
{
    return static_cast<std::int64_t>(v);
}

std::uint32_t u32(const SQLite::Column& c)
{
    return static_cast<std::uint32_t>(c.getInt64());
}

struct NamedDistribution {
    const char* key;
    Distribution RunSummary::*member;
};

constexpr NamedDistribution kDistributions[] = {
    {"ttft_ms", &RunSummary::ttftMs},
    {"tpot_ms", &RunSummary::tpotMs},
    {"e2e_ms", &RunSummary::e2eMs},
    {"itl_ms", &RunSummary::itlMs},
    {"queue_ms", &RunSummary::queueMs},
    {"prefill_ms", &RunSummary::prefillMs},
    {"admission_ms", &RunSummary::admissionMs},
    {"transfer_ms", &RunSummary::transferMs},
    {"load_ms", &RunSummary::loadMs},
    {"first_decode_ms", &RunSummary::firstDecodeMs},
    {"tpot_compute_ms", &RunSummary::tpotComputeMs},
    {"tpot_transfer_ms", &RunSummary::tpotTransferMs},
    {"tpot_stall_ms", &RunSummary::tpotStallMs},
};

} // namespace

nlohmann::ordered_json toJson(const Distribution& d)
{
    return {{"count", d.count}, {"mean", d.mean}, {"p50", d.p50}, {"p90", d.p90}, {"p99", d.p99}, {"max", d.max}};
}

Distribution distributionFromJson(const nlohmann::ordered_json& j)
{
    Distribution d;
    d.count = readCount(j, "count");
    d.mean = readNumber(j, "mean");
    d.p50 = readNumber(j, "p50");
    d.p90 = readNumber(j, "p90");
    d.p99 = readNumber(j, "p99");
    d.max = readNumber(j, "max");
    return d;
}

nlohmann::ordered_json toJson(const RunSummary& s)
{
    nlohmann::ordered_json j = {
        {"requests", s.requests},
        {"completed", s.completed},
        {"output_tokens", s.outputTokens},
        {"makespan_ns", s.makespan},
    };
    for (const auto& [key, member] : kDistributions)
        j[key] = toJson(s.*member);
    j["throughput_tok_s"] = s.throughputTokensPerSec;
    j["throughput_req_s"] = s.throughputRequestsPerSec;
    j["goodput_req_s"] = s.goodputRequestsPerSec;
    j["slo_attainment"] = s.sloAttainment;
    j["kv_transfers"] = s.kvTransfers;
    j["kv_bytes"] = s.kvBytes;
    // The traffic counts are written for readers of the JSON; reading computes them again from the kinds.
    const TrafficCounts traffic = trafficCounts(s);
    j["messages"] = traffic.messages;
    j["flows"] = s.flows;
    j["decode_iterations"] = s.decodeIterations;
    j["protocol"] = s.protocol;
    j["data_messages"] = traffic.dataMessages;
    j["control_messages"] = traffic.controlMessages;
    j["control_bytes"] = traffic.controlBytes;
    j["data_bytes"] = traffic.dataBytes;
    auto kinds = nlohmann::ordered_json::array();
    for (const auto& k : s.messagesByKind)
        kinds.push_back({{"name", k.name}, {"data", k.data}, {"count", k.count}, {"bytes", k.bytes}, {"role", k.role}});
    j["messages_by_kind"] = std::move(kinds);
    j["invalidations"] = traffic.invalidations;
    j["upgrades"] = s.upgrades;
    j["writebacks"] = traffic.writebacks;
    j["bias_flips"] = traffic.biasFlips;
    j["migrations"] = traffic.migrations;
    j["staleness"] = toJson(s.staleness);
    // Only runs whose leases expire (coherence.lease) carry the block.
    if (s.lease.ttl >= 0)
        j["lease"] = toJson(s.lease);
    j["prefix_pool"] = toJson(s.prefixPool);
    // Only runs that shared prefix blocks (serving.shared_prefix) carry the block.
    if (s.sharedPrefix.enabled)
        j["shared_prefix"] = toJson(s.sharedPrefix);
    // Only runs that kept local prefix caches carry the key, so every other run's summary reads as before.
    if (s.localPrefix.enabled)
        j["local_prefix_cache"] = toJson(s.localPrefix);
    // Only replicated runs carry the block: a summary without one is factor 1 (runs stored before it, too).
    if (s.replication.factor > 1)
        j["replication"] = toJson(s.replication);
    if (s.kvTiers.enabled)
        j["kv_tiers"] = toJson(s.kvTiers);
    if (s.failures.enabled)
        j["failures"] = toJson(s.failures);
    // Only runs on a real backend, or simulated on a calibrated profile, carry the block: a summary without one was
    // simulated on the scenario's own figures.
    if (s.backend.real() || !s.backend.scaledDown.empty())
        j["backend"] = toJson(s.backend);
    auto links = nlohmann::ordered_json::array();
    for (const auto& l : s.links)
        links.push_back({{"link", l.link},
                         {"direction", l.forward ? "forward" : "reverse"},
                         {"bytes", l.bytes},
                         {"mean_utilization", l.meanUtilization},
                         {"peak_utilization", l.peakUtilization}});
    j["links"] = std::move(links);
    if (s.replayedRoutes.on)
        j["replayed_routes"] = {{"replayed", s.replayedRoutes.replayed}, {"routed_anew", s.replayedRoutes.routedAnew}};
    j["events_executed"] = s.eventsExecuted;
    j["wall_s"] = s.wallSeconds;
    j["events_per_s"] = s.eventsPerSecond;
    return j;
}

nlohmann::ordered_json toJson(const StalenessSummary& s)
{
    return {{"reads", s.reads},
            {"stale_reads", s.staleReads},
            {"reader_waits", s.readerWaits},
            {"decode_steps", s.decodeSteps},
            {"stale_steps", s.staleSteps},
            {"reads_by_versions_behind", s.readsByVersionsBehind},
            {"stale_age_us", toJson(s.staleAgeUs)},
            {"bound_versions", s.boundVersions},
            {"bound_age_ns", s.boundAge}};
}

StalenessSummary stalenessFromJson(const nlohmann::ordered_json& j)
{
    StalenessSummary s;
    s.reads = readCount(j, "reads");
    s.staleReads = readCount(j, "stale_reads");
    s.readerWaits = readCount(j, "reader_waits");
    s.decodeSteps = readCount(j, "decode_steps");
    s.staleSteps = readCount(j, "stale_steps");
    if (const auto it = j.find("reads_by_versions_behind"); it != j.end() && it->is_array())
        for (const auto& v : *it)
            s.readsByVersionsBehind.push_back(v.get<std::uint64_t>());
    if (const auto it = j.find("stale_age_us"); it != j.end() && it->is_object())
        s.staleAgeUs = distributionFromJson(*it);
    s.boundVersions = j.value("bound_versions", std::int64_t{-1});
    s.boundAge = j.value("bound_age_ns", SimTime{-1});
    return s;
}

nlohmann::ordered_json toJson(const PrefixPoolSummary& p)
{
    return {{"enabled", p.enabled},
            {"protocol", p.protocol},
            {"prompt_tokens", p.promptTokens},
            {"hit_tokens", p.hitTokens},
            {"load_bytes", p.loadBytes},
            {"store_bytes", p.storeBytes},
            {"capacity_blocks", p.capacityBlocks},
            {"blocks_held", p.blocksHeld},
            {"evictions", p.evictions}};
}

nlohmann::ordered_json toJson(const LocalPrefixSummary& p)
{
    return {{"prompt_tokens", p.promptTokens},
            {"hit_tokens", p.hitTokens},
            {"capacity_blocks", p.capacityBlocks},
            {"blocks_held", p.blocksHeld},
            {"evictions", p.evictions}};
}

LocalPrefixSummary localPrefixFromJson(const nlohmann::ordered_json& j)
{
    LocalPrefixSummary p;
    p.enabled = true;
    p.promptTokens = readCount(j, "prompt_tokens");
    p.hitTokens = readCount(j, "hit_tokens");
    p.capacityBlocks = readCount(j, "capacity_blocks");
    p.blocksHeld = readCount(j, "blocks_held");
    p.evictions = readCount(j, "evictions");
    return p;
}

nlohmann::ordered_json toJson(const ReplicationSummary& r)
{
    return {{"factor", r.factor},
            {"placement", r.placement},
            {"nodes", r.nodes},
            {"messages", r.messages},
            {"data_messages", r.dataMessages},
            {"data_bytes", r.dataBytes},
            {"control_bytes", r.controlBytes},
            {"fetches", r.fetches},
            {"refetches", r.refetches}};
}

ReplicationSummary replicationFromJson(const nlohmann::ordered_json& j)
{
    ReplicationSummary r;
    r.factor = static_cast<std::uint32_t>(std::max<std::uint64_t>(1, readCount(j, "factor")));
    if (const auto it = j.find("placement"); it != j.end() && it->is_string())
        r.placement = it->get<std::string>();
    if (const auto it = j.find("nodes"); it != j.end())
        r.nodes = stringsFromJson(*it);
    r.messages = readCount(j, "messages");
    r.dataMessages = readCount(j, "data_messages");
    r.dataBytes = readNumber(j, "data_bytes");
    r.controlBytes = readNumber(j, "control_bytes");
    r.fetches = readCount(j, "fetches");
    r.refetches = readCount(j, "refetches");
    return r;
}

PrefixPoolSummary prefixPoolFromJson(const nlohmann::ordered_json& j)
{
    PrefixPoolSummary p;
    p.enabled = j.value("enabled", false);
    // Summaries stored before the pool's protocol was have none: completePoolProtocol() reads it from the scenario.
    const auto protocol = j.find("protocol");
    p.protocol = protocol != j.end() && protocol->is_string() ? protocol->get<std::string>() : std::string();
    p.promptTokens = readCount(j, "prompt_tokens");
    p.hitTokens = readCount(j, "hit_tokens");
    p.loadBytes = readNumber(j, "load_bytes");
    p.storeBytes = readNumber(j, "store_bytes");
    p.capacityBlocks = readCount(j, "capacity_blocks");
    p.blocksHeld = readCount(j, "blocks_held");
    p.evictions = readCount(j, "evictions");
    return p;
}

RunSummary summaryFromJson(const nlohmann::ordered_json& j)
{
    RunSummary s;
    s.requests = readCount(j, "requests");
    s.completed = readCount(j, "completed");
    s.outputTokens = readCount(j, "output_tokens");
    s.makespan = j.value("makespan_ns", SimTime{0});
    for (const auto& [key, member] : kDistributions) {
        const auto it = j.find(key);
        if (it != j.end())
            s.*member = distributionFromJson(*it);
    }
    s.throughputTokensPerSec = readNumber(j, "throughput_tok_s");
    s.throughputRequestsPerSec = readNumber(j, "throughput_req_s");
    s.goodputRequestsPerSec = readNumber(j, "goodput_req_s");
    s.sloAttainment = readNumber(j, "slo_attainment");
    s.kvTransfers = readCount(j, "kv_transfers");
    s.kvBytes = readNumber(j, "kv_bytes");
    s.flows = readCount(j, "flows");
    s.decodeIterations = readCount(j, "decode_iterations");
    s.protocol = j.value("protocol", std::string("direct"));
    if (const auto it = j.find("messages_by_kind"); it != j.end() && it->is_array())
        for (const auto& k : *it)
            s.messagesByKind.push_back({k.value("name", std::string()), k.value("data", false),
                                        k.value("count", std::uint64_t{0}), k.value("bytes", 0.0),
                                        k.value("role", std::string("data"))});
    s.upgrades = readCount(j, "upgrades");
    if (isLegacyTrafficSummary(j))
        upgradeLegacyTraffic(j, s);
    if (const auto it = j.find("staleness"); it != j.end() && it->is_object())
        s.staleness = stalenessFromJson(*it);
    if (const auto it = j.find("lease"); it != j.end() && it->is_object())
        s.lease = leaseFromJson(*it);
    if (const auto it = j.find("prefix_pool"); it != j.end() && it->is_object())
        s.prefixPool = prefixPoolFromJson(*it);
    if (const auto it = j.find("shared_prefix"); it != j.end() && it->is_object())
        s.sharedPrefix = sharedPrefixFromJson(*it);
    if (const auto it = j.find("local_prefix_cache"); it != j.end() && it->is_object())
        s.localPrefix = localPrefixFromJson(*it);
    if (const auto it = j.find("replication"); it != j.end() && it->is_object())
        s.replication = replicationFromJson(*it);
    if (const auto it = j.find("kv_tiers"); it != j.end() && it->is_object())
        s.kvTiers = kvTiersFromJson(*it);
    if (const auto it = j.find("failures"); it != j.end() && it->is_object())
        s.failures = failuresFromJson(*it);
    if (const auto it = j.find("backend"); it != j.end() && it->is_object())
        s.backend = backendFromJson(*it);
    if (const auto it = j.find("links"); it != j.end() && it->is_array())
        for (const auto& l : *it)
            s.links.push_back({l.value("link", std::string()), l.value("direction", std::string()) != "reverse",
                               l.value("bytes", 0.0), l.value("mean_utilization", 0.0),
                               l.value("peak_utilization", 0.0)});
    // Counts a run could have made: a hand edit or damage past them (a negative, 2^64) reads as no replay, as a block
    // of another type does.
    if (const auto it = j.find("replayed_routes"); it != j.end() && it->is_object()) {
        constexpr std::uint64_t kMostDecisions = std::uint64_t{1} << 40;
        const auto count = [&](const char* key) -> std::optional<std::uint64_t> {
            const auto v = it->find(key);
            if (v == it->end() || !v->is_number_unsigned() || v->get<std::uint64_t>() > kMostDecisions)
                return std::nullopt;
            return v->get<std::uint64_t>();
        };
        if (const auto replayed = count("replayed"), anew = count("routed_anew"); replayed && anew)
            s.replayedRoutes = {true, *replayed, *anew};
    }
    s.eventsExecuted = readCount(j, "events_executed");
    s.wallSeconds = readNumber(j, "wall_s");
    s.eventsPerSecond = readNumber(j, "events_per_s");
    return s;
}

nlohmann::ordered_json toJson(const std::vector<CostVariant>& variants)
{
    auto out = nlohmann::ordered_json::array();
    for (const CostVariant& v : variants)
        out.push_back({{"kind", toString(v.kind)}, {"factor", v.factor}, {"summary", toJson(v.summary)}});
    return out;
}

nlohmann::ordered_json toJson(const RunInfo& info)
{
    const auto summaryValue = [&](auto value) {
        return info.hasSummary ? nlohmann::ordered_json(value) : nlohmann::ordered_json();
    };
    return {
        {"id", info.id},
        {"name", info.name},
        {"scenario_name", info.scenarioName},
        {"seed", info.seed},
        {"version", info.version},
        {"backend", info.backend},
        {"decode_protocol", info.decodeProtocol},
        {"prefill_protocol", info.prefillProtocol},
        {"tier_protocols", info.tierProtocols},
        {"status", toString(info.status)},
        {"error", info.error.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(info.error)},
        {"created_at", info.createdAt},
        {"finished_at", info.finishedAt.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(info.finishedAt)},
        {"pid", info.pid},
        {"host", info.host},
        {"requests", summaryValue(info.requests)},
        {"ttft_p50_ms", summaryValue(info.ttftP50Ms)},
        {"ttft_p99_ms", summaryValue(info.ttftP99Ms)},
        {"tpot_p50_ms", summaryValue(info.tpotP50Ms)},
        {"tpot_p99_ms", summaryValue(info.tpotP99Ms)},
        {"throughput_tok_s", summaryValue(info.throughputTokensPerSec)},
        {"goodput_req_s", summaryValue(info.goodputRequestsPerSec)},
        {"events", summaryValue(info.events)},
        {"wall_s", summaryValue(info.wallSeconds)},
        {"messages", summaryValue(info.messages)},
        {"flows", summaryValue(info.flows)},
        {"models_run", info.modelsRun != 0 ? nlohmann::ordered_json(info.modelsRun) : nlohmann::ordered_json()},
    };
}

nlohmann::ordered_json toJson(const std::vector<PathRecord>& paths)
{
    auto j = nlohmann::ordered_json::array();
    for (const auto& p : paths)
        j.push_back({{"links", p.links}, {"forward", p.forward}});
    return j;
}

std::vector<PathRecord> pathsFromJson(const nlohmann::ordered_json& j)
{
    std::vector<PathRecord> paths;
    for (const auto& p : j) {
        PathRecord path;
        path.links = p.at("links").get<std::vector<std::uint32_t>>();
        path.forward = p.at("forward").get<std::vector<bool>>();
        paths.push_back(std::move(path));
    }
    return paths;
}

std::vector<std::string> stringsFromJson(const nlohmann::ordered_json& j)
{
    return j.is_null() ? std::vector<std::string>{} : j.get<std::vector<std::string>>();
}

namespace {

// The blobs' one word format: 8 bytes, least significant first, whatever the host's byte order.
void putWord(std::string& bytes, std::size_t at, std::uint64_t word)
{
    for (std::size_t b = 0; b < 8; ++b)
        bytes[at + b] = static_cast<char>((word >> (8 * b)) & 0xFF);
}

std::uint64_t getWord(const unsigned char* bytes, std::size_t at)
{
    std::uint64_t word = 0;
    for (std::size_t b = 0; b < 8; ++b)
        word |= std::uint64_t{bytes[at + b]} << (8 * b);
    return word;
}

} // namespace

std::string encodeDoubles(const std::vector<double>& values)
{
    std::string bytes(values.size() * 8, '\0');
    for (std::size_t i = 0; i < values.size(); ++i)
        putWord(bytes, i * 8, std::bit_cast<std::uint64_t>(values[i]));
    return bytes;
}

std::vector<double> decodeDoubles(const void* data, std::size_t size)
{
    const auto* bytes = static_cast<const unsigned char*>(data);
    std::vector<double> values(size / 8);
    for (std::size_t i = 0; i < values.size(); ++i)
        values[i] = std::bit_cast<double>(getWord(bytes, i * 8));
    return values;
}

std::string encodeSteps(const std::vector<BlockCountStep>& steps)
{
    std::string bytes(steps.size() * 16, '\0');
    for (std::size_t i = 0; i < steps.size(); ++i) {
        putWord(bytes, i * 16, static_cast<std::uint64_t>(steps[i].at));
        putWord(bytes, i * 16 + 8, std::bit_cast<std::uint64_t>(steps[i].blocks));
    }
    return bytes;
}

std::vector<BlockCountStep> decodeSteps(const void* data, std::size_t size)
{
    const auto* bytes = static_cast<const unsigned char*>(data);
    std::vector<BlockCountStep> steps(size / 16);
    for (std::size_t i = 0; i < steps.size(); ++i)
        steps[i] = {static_cast<SimTime>(getWord(bytes, i * 16)), std::bit_cast<double>(getWord(bytes, i * 16 + 8))};
    return steps;
}

void insertRunRows(SQLite::Database& db, std::int64_t runId, const RunResult& result,
                   const std::function<void(std::string_view)>& step)
{
    const auto notify = [&](std::string_view name) {
        if (step)
            step(name);
    };

    // One prepared statement per table, re-bound for every row: parsing the SQL once is what makes
    // 100,000-row inserts take a fraction of a second.
    SQLite::Statement request(db,
                              "INSERT INTO request_metrics (run_id, idx, id, prompt_tokens, output_tokens, "
                              "prefill_instance, decode_instance, arrival_ns, prefill_start_ns, prefill_end_ns, "
                              "transfer_start_ns, kv_ready_ns, decode_start_ns, first_token_ns, finish_ns, "
                              "decode_compute_ns, decode_stall_ns, decode_transfer_ns, stale_reads, stale_steps, "
                              "cached_tokens, failure_hits, restored_tokens, recomputed_tokens) VALUES (?, ?, ?, ?, "
                              "?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
    for (std::size_t i = 0; i < result.requests.size(); ++i) {
        const auto& r = result.requests[i];
        request.bind(1, runId);
        request.bind(2, static_cast<std::int64_t>(i));
        request.bind(3, i64(r.id));
        request.bind(4, i64(r.promptTokens));
        request.bind(5, i64(r.outputTokens));
        request.bind(6, i64(r.prefillInstance));
        request.bind(7, i64(r.decodeInstance));
        request.bind(8, r.arrival);
        request.bind(9, r.prefillStart);
        request.bind(10, r.prefillEnd);
        request.bind(11, r.transferStart);
        request.bind(12, r.kvReady);
        request.bind(13, r.decodeStart);
        request.bind(14, r.firstToken);
        request.bind(15, r.finish);
        request.bind(16, r.decodeCompute);
        request.bind(17, r.decodeStall);
        request.bind(18, r.decodeTransfer);
        request.bind(19, static_cast<std::int64_t>(r.staleReads));
        request.bind(20, i64(r.staleSteps));
        request.bind(21, i64(r.cachedTokens));
        request.bind(22, i64(r.failureHits));
        request.bind(23, i64(r.restoredTokens));
        request.bind(24, i64(r.recomputedTokens));
        request.exec();
        request.reset();
    }
    notify("requests");

    SQLite::Statement series(db, "INSERT INTO link_series (run_id, idx, link, link_id, direction, "
                                 "bandwidth_bytes_per_s, total_bytes, buckets, bytes_per_bucket) "
                                 "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)");
    for (std::size_t i = 0; i < result.linkSeries.size(); ++i) {
        const auto& s = result.linkSeries[i];
        const std::string blob = encodeDoubles(s.bytesPerBucket);
        series.bind(1, runId);
        series.bind(2, static_cast<std::int64_t>(i));
        series.bind(3, i64(s.link));
        series.bind(4, s.link < result.linkIds.size() ? result.linkIds[s.link] : std::string{});
        series.bind(5, s.forward ? "forward" : "reverse");
        series.bind(6, s.bandwidthBytesPerSec);
        series.bind(7, s.totalBytes);
        series.bind(8, static_cast<std::int64_t>(s.bytesPerBucket.size()));
        series.bindNoCopy(9, blob.data(), static_cast<int>(blob.size()));
        series.exec();
        series.reset();
    }
    notify("link_series");

    SQLite::Statement blocks(db, "INSERT INTO node_blocks (run_id, idx, node, node_id, state, peak_blocks, buckets, "
                                 "blocks_per_bucket, step_resolution_ns, steps) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
    for (std::size_t i = 0; i < result.nodeBlocks.size(); ++i) {
        const auto& s = result.nodeBlocks[i];
        const std::string blob = encodeDoubles(s.blocksPerBucket);
        const std::string steps = encodeSteps(s.steps);
        blocks.bind(1, runId);
        blocks.bind(2, static_cast<std::int64_t>(i));
        blocks.bind(3, i64(s.node));
        blocks.bind(4, s.node < result.nodeIds.size() ? result.nodeIds[s.node] : std::string{});
        blocks.bind(5, s.state);
        blocks.bind(6, s.peakBlocks);
        blocks.bind(7, static_cast<std::int64_t>(s.blocksPerBucket.size()));
        blocks.bindNoCopy(8, blob.data(), static_cast<int>(blob.size()));
        blocks.bind(9, s.stepResolution);
        blocks.bindNoCopy(10, steps.data(), static_cast<int>(steps.size()));
        blocks.exec();
        blocks.reset();
    }
    notify("node_blocks");

    SQLite::Statement message(db, "INSERT INTO messages (run_id, idx, start_ns, end_ns, src, dst, path, kind, "
                                  "request, first_block, block_count, bytes, sender, protocol, transition, from_state, "
                                  "to_state) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
    for (std::size_t i = 0; i < result.messages.size(); ++i) {
        const auto& m = result.messages[i];
        message.bind(1, runId);
        message.bind(2, static_cast<std::int64_t>(i));
        message.bind(3, m.start);
        message.bind(4, m.end);
        message.bind(5, i64(m.src));
        message.bind(6, i64(m.dst));
        message.bind(7, i64(m.path));
        message.bind(8, static_cast<std::int64_t>(m.kind));
        message.bind(9, i64(m.request));
        message.bind(10, i64(m.firstBlock));
        message.bind(11, i64(m.blockCount));
        message.bind(12, m.bytes);
        message.bind(13, static_cast<int>(m.sender));
        message.bind(14, static_cast<int>(m.protocol));
        message.bind(15, static_cast<int>(m.transition));
        message.bind(16, static_cast<int>(m.fromState));
        message.bind(17, static_cast<int>(m.toState));
        message.exec();
        message.reset();
    }
    notify("messages");
    insertIterationRows(db, runId, result.iterations);
    notify("decode_iterations");
}

std::vector<NodeBlocksSeries> loadNodeBlocks(SQLite::Database& db, std::int64_t runId)
{
    std::vector<NodeBlocksSeries> out;
    SQLite::Statement blocks(db, "SELECT node, state, peak_blocks, blocks_per_bucket, step_resolution_ns, steps "
                                 "FROM node_blocks WHERE run_id = ? ORDER BY idx");
    blocks.bind(1, runId);
    while (blocks.executeStep()) {
        NodeBlocksSeries s;
        s.node = u32(blocks.getColumn(0));
        s.state = blocks.getColumn(1).getString();
        s.peakBlocks = columnDouble(blocks.getColumn(2));
        const auto blob = blocks.getColumn(3);
        s.blocksPerBucket = decodeDoubles(blob.getBlob(), static_cast<std::size_t>(blob.getBytes()));
        s.stepResolution = std::max<SimTime>(1, blocks.getColumn(4).getInt64());
        const auto steps = blocks.getColumn(5); // NULL for runs stored before schema 5
        s.steps = decodeSteps(steps.getBlob(), static_cast<std::size_t>(steps.getBytes()));
        out.push_back(std::move(s));
    }
    return out;
}

void loadRunRows(SQLite::Database& db, std::int64_t runId, RunResult& result)
{
    SQLite::Statement request(db, "SELECT id, prompt_tokens, output_tokens, prefill_instance, decode_instance, "
                                  "arrival_ns, prefill_start_ns, prefill_end_ns, transfer_start_ns, kv_ready_ns, "
                                  "decode_start_ns, first_token_ns, finish_ns, decode_compute_ns, decode_stall_ns, "
                                  "decode_transfer_ns, stale_reads, stale_steps, cached_tokens, failure_hits, "
                                  "restored_tokens, recomputed_tokens FROM request_metrics "
                                  "WHERE run_id = ? ORDER BY idx");
    request.bind(1, runId);
    while (request.executeStep()) {
        RequestMetrics r;
        r.id = u32(request.getColumn(0));
        r.promptTokens = u32(request.getColumn(1));
        r.outputTokens = u32(request.getColumn(2));
        r.prefillInstance = u32(request.getColumn(3));
        r.decodeInstance = u32(request.getColumn(4));
        r.arrival = request.getColumn(5).getInt64();
        r.prefillStart = request.getColumn(6).getInt64();
        r.prefillEnd = request.getColumn(7).getInt64();
        r.transferStart = request.getColumn(8).getInt64();
        r.kvReady = request.getColumn(9).getInt64();
        r.decodeStart = request.getColumn(10).getInt64();
        r.firstToken = request.getColumn(11).getInt64();
        r.finish = request.getColumn(12).getInt64();
        r.decodeCompute = request.getColumn(13).getInt64();
        r.decodeStall = request.getColumn(14).getInt64();
        r.decodeTransfer = request.getColumn(15).getInt64();
        r.staleReads = static_cast<std::uint64_t>(request.getColumn(16).getInt64());
        r.staleSteps = u32(request.getColumn(17));
        r.cachedTokens = u32(request.getColumn(18));
        r.failureHits = static_cast<std::uint8_t>(std::min<std::uint32_t>(255, u32(request.getColumn(19))));
        r.restoredTokens = u32(request.getColumn(20));
        r.recomputedTokens = u32(request.getColumn(21));
        result.requests.push_back(r);
    }

    SQLite::Statement series(db, "SELECT link, direction, bandwidth_bytes_per_s, total_bytes, bytes_per_bucket "
                                 "FROM link_series WHERE run_id = ? ORDER BY idx");
    series.bind(1, runId);
    while (series.executeStep()) {
        LinkSeries s;
        s.link = u32(series.getColumn(0));
        s.forward = series.getColumn(1).getString() == "forward";
        s.bandwidthBytesPerSec = columnDouble(series.getColumn(2));
        s.totalBytes = columnDouble(series.getColumn(3));
        const auto blob = series.getColumn(4);
        s.bytesPerBucket = decodeDoubles(blob.getBlob(), static_cast<std::size_t>(blob.getBytes()));
        result.linkSeries.push_back(std::move(s));
    }

    result.nodeBlocks = loadNodeBlocks(db, runId);

    SQLite::Statement message(db, "SELECT start_ns, end_ns, src, dst, path, kind, request, first_block, "
                                  "block_count, bytes, sender, protocol, transition, from_state, to_state "
                                  "FROM messages WHERE run_id = ? ORDER BY idx");
    message.bind(1, runId);
    while (message.executeStep()) {
        MessageRecord m;
        m.start = message.getColumn(0).getInt64();
        m.end = message.getColumn(1).getInt64();
        m.src = u32(message.getColumn(2));
        m.dst = u32(message.getColumn(3));
        m.path = u32(message.getColumn(4));
        m.kind = static_cast<std::uint8_t>(message.getColumn(5).getInt());
        m.request = u32(message.getColumn(6));
        m.firstBlock = u32(message.getColumn(7));
        m.blockCount = u32(message.getColumn(8));
        m.bytes = columnDouble(message.getColumn(9));
        // Out-of-range values (a damaged file) read as "no transition" rather than as a wrong one.
        const int sender = message.getColumn(10).getInt();
        m.sender = sender == 1 ? MessageSender::Cache : sender == 2 ? MessageSender::Home : MessageSender::None;
        m.protocol = message.getColumn(11).getInt() == 1 ? MessageProtocol::PrefixPool : MessageProtocol::Kv;
        m.transition = static_cast<std::uint16_t>(message.getColumn(12).getInt());
        m.fromState = static_cast<std::uint8_t>(message.getColumn(13).getInt());
        m.toState = static_cast<std::uint8_t>(message.getColumn(14).getInt());
        result.messages.push_back(m);
    }
    result.iterations = loadIterationRows(db, runId);
}

} // namespace coh::core
