// Gathering a finished run into a RunResult.
#include "core/serving/serving_engine.h"

#include "core/engine/run_summary.h"

#include <algorithm>
#include <unordered_map>

namespace coh::core {

RunResult ServingEngine::collect()
{
    RunResult result;
    result.scenarioName = m_scenario.name;
    result.seed = m_scenario.seed;
    for (const auto& node : m_scenario.topology.nodes)
        result.nodeIds.push_back(node.id);
    for (const auto& link : m_scenario.topology.links) {
        result.linkIds.push_back(link.id);
        const auto a = m_scenario.topology.nodeIndex(link.a), b = m_scenario.topology.nodeIndex(link.b);
        result.linkEnds.push_back({a.value_or(0), b.value_or(0)});
    }
    for (const auto& inst : m_instances)
        result.instanceIds.push_back(inst.id);

    // Only requests that finished count; rejected ones (KV larger than any decode instance) and those a failure
    // made the run give up are reported by the difference between `requests` and `completed`.
    result.requests.reserve(m_decode->finished());
    for (std::uint32_t r = 0; r < m_metrics.size(); ++r)
        if (!m_metrics[r].failed && m_state[r].generated >= m_metrics[r].outputTokens)
            result.requests.push_back(m_metrics[r]);
    // A run with MTBF failures may end on a failure drawn past its last request, which changed nothing.
    const SimTime end = m_failures ? runEnd() : m_sim.now();

    RunSummary& s = result.summary;
    summarizeRequests(result.requests, m_scenario.slo, m_decode->interTokenGaps(), s);
    s.requests = m_metrics.size();
    s.eventsExecuted = m_sim.eventsExecuted();
    s.backend = m_transport->describe();
    m_compute->describe(s.backend);
    KvStats kv = m_kv->stats();
    s.kvTransfers = kv.transfers;
    s.kvBytes = kv.bytes;
    s.protocol = kv.protocol;
    s.upgrades = kv.upgrades;
    s.staleness = std::move(kv.staleness);
    s.staleness.staleAgeUs = distributionOf(std::move(kv.staleAgesUs));
    s.lease = kv.lease;
    s.messagesByKind = std::move(kv.kinds);
    if (m_local)
        s.localPrefix = m_local->summary();
    s.replication = std::move(kv.replication);
    s.sharedPrefix = kv.sharedPrefix;
    if (m_prefix) {
        // The pool's kinds follow the KV path's (PrefixCache was given that offset for its records).
        for (const auto& k : m_prefix->kinds())
            s.messagesByKind.push_back(k);
        s.prefixPool = m_prefix->summary();
    }
    if (m_tiers) {
        // The tiers' kinds follow the pool's (KvTiers was given that offset for its records).
        for (const auto& k : m_tiers->kinds())
            s.messagesByKind.push_back(k);
        s.kvTiers = m_tiers->summary(end);
    }
    // Last, so no other kind moves; only when a recompute resumed from a prefix, so other runs read as before.
    if (m_resume && m_resume->kind().count > 0)
        s.messagesByKind.push_back(m_resume->kind());
    if (m_failures) {
        s.failures = m_failures->summary(end);
        s.failures.recovered = static_cast<std::uint64_t>(std::count_if(
            result.requests.begin(), result.requests.end(), [](const RequestMetrics& r) { return r.failureHits > 0; }));
        const TransportFaultCounts& faults = m_transport->faultCounts();
        s.failures.messagesStopped = faults.stopped;
        s.failures.messagesRerouted = faults.rerouted;
        s.failures.bytesResent = faults.bytesResent;
        s.failures.stalledMs = faults.stalledNs * 1e-6;
    }
    s.flows = m_recorder.total();
    s.decodeIterations = m_iterations.total();
    result.iterations = std::move(m_iterations.kept());
    // Recorded as they end; a sample is in slot order. By start, as the record's readers expect.
    std::stable_sort(result.iterations.begin(), result.iterations.end(),
                     [](const auto& a, const auto& b) { return a.start < b.start; });

    const LinkUsage& usage = m_transport->usage();
    // One grid for the link and block series: the scenario's interval, doubled until the run's end fits in
    // kMaxSeriesBuckets buckets (each series doubled on its own only as far as its own span needed).
    const SimTime width = seriesWidthCovering(usage.interval(), end);
    result.linkInterval = width;
    result.nodeBlocks = m_kv->nodeBlocks(end);
    if (m_tiers) // the tier nodes' copies, named by their tier, on the same grid
        for (auto& series : m_tiers->nodeBlocks(end))
            result.nodeBlocks.push_back(std::move(series));
    // The run's span, from its first arrival: what the mean utilisation's makespan covers.
    SimTime spanStart = end;
    for (const RequestMetrics& r : result.requests)
        spanStart = std::min(spanStart, r.arrival);
    if (result.requests.empty())
        spanStart = 0;
    for (std::uint32_t c = 0; c < usage.channels(); ++c) {
        if (usage.totalBytes(c) <= 0)
            continue;
        LinkSeries series;
        series.link = linkOfChannel(c);
        series.forward = isForwardChannel(c);
        series.bandwidthBytesPerSec = m_scenario.topology.links[series.link].bandwidthBytesPerSec;
        series.totalBytes = usage.totalBytes(c);
        series.bytesPerBucket = usage.buckets(c);
        mergeBucketPairs(series.bytesPerBucket, doublingsBetween(usage.interval(), width));
        LinkTotal total;
        total.link = m_scenario.topology.links[series.link].id;
        total.forward = series.forward;
        total.bytes = series.totalBytes;
        // A bucket's capacity is over the part of it the run spans, as the mean's is over the makespan: a run shorter
        // than one bucket otherwise had its peak below its mean.
        for (std::size_t i = 0; i < series.bytesPerBucket.size(); ++i) {
            const SimTime from = std::max<SimTime>(static_cast<SimTime>(i) * width, spanStart);
            const SimTime to = std::min<SimTime>(static_cast<SimTime>(i + 1) * width, end);
            if (to > from)
                total.peakUtilization =
                    std::max(total.peakUtilization,
                             series.bytesPerBucket[i] / (series.bandwidthBytesPerSec * toSeconds(to - from)));
        }
        if (s.makespan > 0)
            total.meanUtilization = series.totalBytes / (series.bandwidthBytesPerSec * toSeconds(s.makespan));
        s.links.push_back(std::move(total));
        result.linkSeries.push_back(std::move(series));
    }
    std::stable_sort(s.links.begin(), s.links.end(), [](const auto& a, const auto& b) { return a.bytes > b.bytes; });

    // Keep only the routes the record refers to, renumbered densely.
    result.messages = m_recorder.takeSorted();
    std::unordered_map<std::uint32_t, std::uint32_t> compact;
    for (auto& m : result.messages) {
        // The KV path names sequences: a request's later lives (after a node failure) are named for it here.
        if (m.request >= m_metrics.size() && m.request - m_metrics.size() < m_kvOwner.size())
            m.request = m_kvOwner[m.request - m_metrics.size()];
        auto [it, added] = compact.try_emplace(m.path, static_cast<std::uint32_t>(result.paths.size()));
        if (added) {
            PathRecord path;
            for (auto c : m_routing.route(m.path).channels) {
                path.links.push_back(linkOfChannel(c));
                path.forward.push_back(isForwardChannel(c));
            }
            result.paths.push_back(std::move(path));
        }
        m.path = it->second;
    }
    return result;
}

} // namespace coh::core
