// Formatting shared by the cohsim commands that print runs.
#include "app/cohsim/summary_text.h"

#include "core/engine/run_summary.h"
#include "core/engine/traffic_counts.h"
#include "core/serving/kv_pool_text.h"
#include "core/serving/own_costs_text.h"
#include "core/serving/replayed_routes.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <utility>

namespace coh::cli {

std::string number(double v, bool present)
{
    if (!present || std::isnan(v))
        return "-";
    const double a = std::fabs(v);
    if (a >= 1000 || a == 0)
        return fmt::format("{:.0f}", v);
    return a >= 1 ? fmt::format("{:.1f}", v) : fmt::format("{:.3f}", v);
}

// Large quantities with a decimal prefix: scaled(1.25e10, "B") is "12.5 GB", scaled(1.48e6, "") is "1.48 M".
std::string scaled(double v, const char* unit)
{
    static constexpr std::pair<double, const char*> kPrefixes[] = {{1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}};
    std::string text = fmt::format("{:.3g} {}", v, unit);
    for (const auto& [factor, prefix] : kPrefixes) {
        if (std::fabs(v) >= factor) {
            text = fmt::format("{:.3g} {}{}", v / factor, prefix, unit);
            break;
        }
    }
    text.erase(text.find_last_not_of(' ') + 1);
    return text;
}

void printTable(const std::vector<std::vector<std::string>>& rows, std::size_t leftColumns)
{
    std::vector<std::size_t> widths(rows.front().size(), 0);
    for (const auto& row : rows)
        for (std::size_t c = 0; c < row.size(); ++c)
            widths[c] = std::max(widths[c], row[c].size());
    for (const auto& row : rows) {
        std::string line;
        for (std::size_t c = 0; c < row.size(); ++c) {
            if (c > 0)
                line += "  ";
            line +=
                c < leftColumns ? fmt::format("{:<{}}", row[c], widths[c]) : fmt::format("{:>{}}", row[c], widths[c]);
        }
        line.erase(line.find_last_not_of(' ') + 1);
        fmt::print("{}\n", line);
    }
}

// Messages by kind, busiest first; kinds that never occurred are left out.
void printMessageKinds(const core::RunSummary& s)
{
    std::vector<core::MessageKindStats> kinds;
    for (const auto& k : s.messagesByKind)
        if (k.count > 0)
            kinds.push_back(k);
    if (kinds.empty())
        return;
    std::stable_sort(kinds.begin(), kinds.end(), [](const auto& a, const auto& b) { return a.count > b.count; });
    std::vector<std::vector<std::string>> rows = {{"  MESSAGE", "ROLE", "COUNT", "BYTES"}};
    for (const auto& k : kinds)
        rows.push_back({"  " + k.name, k.role, std::to_string(k.count), scaled(k.bytes, "B")});
    fmt::print("\n");
    printTable(rows, 2);
}

// What decode's reads returned: all fresh under a strong protocol; under a bounded-staleness one, how many
// were stale, how old, in how many steps, and how many waited because they were beyond the bound.
void printStaleness(const core::StalenessSummary& st)
{
    if (st.reads == 0 && st.readerWaits == 0)
        return;
    std::string bound = fmt::format("{} version{}", st.boundVersions, st.boundVersions == 1 ? "" : "s");
    if (st.boundAge >= 0)
        bound += fmt::format(" or {} us", number(static_cast<double>(st.boundAge) / 1e3));
    // Per sequence and token ("token steps"), not the batch's iterations the decode and real compute lines count.
    fmt::print("  staleness       {} of {} block reads stale ({}%), in {} of {} token steps (a sequence's token each); "
               "{} reads waited (bound {})\n",
               st.staleReads, st.reads, number(st.reads ? 100.0 * st.staleReads / st.reads : 0.0), st.staleSteps,
               st.decodeSteps, st.readerWaits, bound);
    if (st.staleReads > 0)
        fmt::print("  stale age       mean {} us, p50 {} us, p99 {} us, max {} us\n", number(st.staleAgeUs.mean),
                   number(st.staleAgeUs.p50), number(st.staleAgeUs.p99), number(st.staleAgeUs.max));
}

// coherence.lease: how decode's leased reads fared against the lease's time to live.
void printLease(const core::LeaseSummary& l)
{
    if (l.ttl < 0)
        return;
    const std::string ttl = number(static_cast<double>(l.ttl) / 1e6) + " ms";
    if (l.refetch)
        fmt::print("  leases          ttl {}, refetch: {} blocks granted, {} fetched again at expiry; {} leased block "
                   "reads\n",
                   ttl, l.grants, l.refetches, l.leasedReads);
    else
        fmt::print("  leases          ttl {}, trust: {} of {} leased block reads after expiry, in {} decode steps "
                   "(a store that reclaims expired blocks would have served them from freed memory)\n",
                   ttl, l.expiredReads, l.leasedReads, l.expiredSteps);
}

// serving.shared_prefix: how many instances held each prefix block, and what decode found where it ran.
void printSharedPrefix(const core::SharedPrefixSummary& sp)
{
    if (!sp.enabled)
        return;
    fmt::print("  shared prefix   {} blocks of {} tokens ({} prompt tokens); {} written, {} computed again; decode "
               "acquired {} ({} already held there), up to {} instances held one block\n",
               sp.blocks, sp.blockTokens, sp.sharedTokens, sp.writes, sp.writesSkipped, sp.acquires, sp.acquireHits,
               sp.peakHolders);
    fmt::print("  shared reads    {} block reads by decode steps, {} waited on the protocol, {} stale; {} across "
               "links ({} data messages); room for {} idle blocks, {} dropped for room\n",
               sp.reads, sp.readMisses, sp.staleReads, scaled(sp.bytes, "B"), sp.transfers, sp.capacityBlocks,
               sp.evictions);
}

// The busiest link directions.
void printLinks(const core::RunSummary& s)
{
    if (s.links.empty())
        return;
    constexpr std::size_t kShown = 8;
    // A real run's copies take this machine's memory paths, not the scenario's links: a share of a link's bandwidth
    // says nothing of them (a 1 kB/s link read 13,572,321%). Its bytes, and their mean rate over the run, do.
    const bool real = s.backend.real();
    std::vector<std::vector<std::string>> rows = {
        real ? std::vector<std::string>{"  LINK", "DIR", "BYTES", "MEAN RATE"}
             : std::vector<std::string>{"  LINK", "DIR", "BYTES", "MEAN UTIL", "PEAK UTIL"}};
    for (std::size_t i = 0; i < s.links.size() && i < kShown; ++i) {
        const auto& l = s.links[i];
        if (real)
            rows.push_back({"  " + l.link, l.forward ? "a->b" : "b->a", scaled(l.bytes, "B"),
                            s.makespan > 0 ? scaled(l.bytes / core::toSeconds(s.makespan), "B/s") : "-"});
        else
            rows.push_back({"  " + l.link, l.forward ? "a->b" : "b->a", scaled(l.bytes, "B"),
                            number(100 * l.meanUtilization) + "%", number(100 * l.peakUtilization) + "%"});
    }
    fmt::print("\n");
    printTable(rows, 2);
    if (real)
        fmt::print("  (a real run's copies take this machine's memory, not the scenario's link bandwidths: no "
                   "utilisation)\n");
    if (s.links.size() > kShown)
        fmt::print("  ({} more link directions carried traffic)\n", s.links.size() - kShown);
}

void printNodeBlocks(const std::vector<core::NodeBlocksSeries>& nodeBlocks, const std::vector<std::string>& nodeIds,
                     core::SimTime makespan, core::SimTime linkInterval)
{
    if (nodeBlocks.empty())
        return;
    // Mean over the whole run (buckets after a state's last block count as empty), largest holders first.
    const double buckets = std::max(
        1.0, std::ceil(static_cast<double>(makespan) / static_cast<double>(std::max<core::SimTime>(1, linkInterval))));
    std::vector<const core::NodeBlocksSeries*> order;
    for (const auto& series : nodeBlocks)
        order.push_back(&series);
    std::stable_sort(order.begin(), order.end(), [](auto* a, auto* b) { return a->peakBlocks > b->peakBlocks; });
    constexpr std::size_t kShown = 12;
    std::vector<std::vector<std::string>> rows = {{"  NODE", "STATE", "PEAK BLOCKS", "MEAN BLOCKS"}};
    for (std::size_t i = 0; i < order.size() && i < kShown; ++i) {
        const auto& series = *order[i];
        double sum = 0;
        for (double b : series.blocksPerBucket)
            sum += b;
        rows.push_back({"  " + (series.node < nodeIds.size() ? nodeIds[series.node] : std::to_string(series.node)),
                        series.state, fmt::format("{:.0f}", series.peakBlocks), number(sum / buckets)});
    }
    fmt::print("\n");
    printTable(rows, 2);
    if (order.size() > kShown)
        fmt::print("  ({} more node states held blocks)\n", order.size() - kShown);
}

void printRunSummary(const core::RunSummary& s)
{
    fmt::print("\nSummary\n");
    fmt::print("  requests        {} ({} completed), {} output tokens, makespan {} s\n", s.requests, s.completed,
               s.outputTokens, number(core::toSeconds(s.makespan)));
    fmt::print("  throughput      {} tok/s, {} req/s\n", number(s.throughputTokensPerSec),
               number(s.throughputRequestsPerSec));
    fmt::print("  goodput         {} req/s, SLO attainment {}%\n", number(s.goodputRequestsPerSec),
               number(100 * s.sloAttainment));
    if (s.decodeIterations > 0)
        fmt::print("  decode          {} iterations of continuous batching, {} output tokens per iteration\n",
                   s.decodeIterations, number(static_cast<double>(s.outputTokens) / s.decodeIterations));
    // Every count below comes from core::trafficCounts, as in the desktop app (docs/engine.md#traffic).
    const core::TrafficCounts t = core::trafficCounts(s);
    fmt::print("  KV protocol     {}: {} block data messages across links ({})\n", s.protocol, s.kvTransfers,
               scaled(s.kvBytes, "B"));
    fmt::print("  traffic         {} messages ({} data, {} control) in {} network flows; {} data, {} control\n",
               t.messages, t.dataMessages, t.controlMessages, t.flows, scaled(t.dataBytes, "B"),
               scaled(t.controlBytes, "B"));
    if (s.protocol != "direct")
        fmt::print("  coherence       {} invalidations, {} upgrades, {} write-backs, {} bias flips, {} migrations\n",
                   t.invalidations, s.upgrades, t.writebacks, t.biasFlips, t.migrations);
    if (s.protocol != "direct")
        printStaleness(s.staleness);
    printLease(s.lease);
    printSharedPrefix(s.sharedPrefix);
    if (s.prefixPool.enabled) {
        const auto& p = s.prefixPool;
        fmt::print("  prefix pool     {} of {} prompt tokens loaded from the pool ({}%); {} loaded, {} stored; "
                   "{} of {} blocks held, {} evictions\n",
                   p.hitTokens, p.promptTokens, number(p.promptTokens ? 100.0 * p.hitTokens / p.promptTokens : 0.0),
                   scaled(p.loadBytes, "B"), scaled(p.storeBytes, "B"), p.blocksHeld, p.capacityBlocks, p.evictions);
    }
    if (s.localPrefix.enabled) {
        const auto& p = s.localPrefix;
        fmt::print("  local prefixes  {} of {} prompt tokens held by the prefill instance ({}%); {} of {} blocks "
                   "held, {} evictions\n",
                   p.hitTokens, p.promptTokens, number(p.promptTokens ? 100.0 * p.hitTokens / p.promptTokens : 0.0),
                   p.blocksHeld, p.capacityBlocks, p.evictions);
    }
    if (s.replication.factor > 1) {
        const auto& r = s.replication;
        fmt::print("  replication     factor {} ({}) on {}; {} replica messages ({} data), {} data and {} control "
                   "across links; {} block fetches, {} refetches\n",
                   r.factor, r.placement, fmt::join(r.nodes, ", "), r.messages, r.dataMessages,
                   scaled(r.dataBytes, "B"), scaled(r.controlBytes, "B"), r.fetches, r.refetches);
    }
    if (s.kvTiers.enabled) {
        const auto& t = s.kvTiers;
        fmt::print("  KV tiers        {} ({}); {} sequences taken off HBM, {} s off HBM in all\n", t.eviction, t.write,
                   t.preemptions, number(t.offHbmMs / 1000.0));
        for (const auto& u : t.tiers)
            fmt::print("    {:<13} {} on {}: {} offloads, {} fetches; {} blocks down ({}), {} up ({}); {} messages; "
                       "peak {} of {} blocks\n",
                       u.tier, u.protocol, fmt::join(u.nodes, ", "), u.offloads, u.fetches, u.blocksDown,
                       scaled(u.bytesDown, "B"), u.blocksUp, scaled(u.bytesUp, "B"), u.messages,
                       static_cast<std::uint64_t>(u.peakBlocks), u.capacityBlocks);
    }
    if (s.failures.enabled) {
        const auto& f = s.failures;
        const auto links = static_cast<std::size_t>(
            std::count_if(f.failures.begin(), f.failures.end(), [](const auto& e) { return !e.link.empty(); }));
        // A run whose failures were all of links took no request: the node line would only say so.
        if (links < f.failures.size() || f.failures.empty())
            // Restored tokens come from surviving copies under either recovery (a replica taking over, or recompute
            // loading the prefix a copy holds), so they are said apart from the count of takeovers.
            fmt::print(
                "  failures        {} node failures, recovery {}; {} hits on requests (a request may be hit again): "
                "{} hit requests completed, {} failed; {} "
                "read a surviving copy, {} recomputed, {} only rerouted; {} tokens restored from surviving "
                "copies, {} redone; availability {}%\n",
                f.failures.size() - links, f.recovery, f.hits, f.recovered, f.failed, f.fromCopy, f.recomputes,
                f.rerouted, f.restoredTokens, f.recomputedTokens, number(100.0 * f.availability));
        if (links > 0)
            fmt::print("  link failures   {} link {}: {} messages stopped, {} ms waited in all; {} went around, {} "
                       "waited for a repair; {} moved before the stop, sent again\n",
                       links, links == 1 ? "failure" : "failures", f.messagesStopped, number(f.stalledMs),
                       f.messagesRerouted, f.messagesStopped - f.messagesRerouted, scaled(f.bytesResent, "B"));
        for (const auto& e : f.failures)
            if (!e.link.empty())
                fmt::print("    {:<13} failed at {} s, detected at {} s, {}\n", e.link,
                           number(core::toSeconds(e.failed)), number(core::toSeconds(e.detected)),
                           e.repaired >= 0 ? fmt::format("back at {} s", number(core::toSeconds(e.repaired)))
                                           : std::string("not back"));
            else
                fmt::print("    {:<13} failed at {} s, detected at {} s, {}; {} ({}) took {} requests\n", e.node,
                           number(core::toSeconds(e.failed)), number(core::toSeconds(e.detected)),
                           e.repaired >= 0 ? fmt::format("back at {} s", number(core::toSeconds(e.repaired)))
                                           : std::string("not back"),
                           e.instances.size() == 1 ? "instance" : "instances", fmt::join(e.instances, ", "),
                           e.requestsLost);
    }
    if (!s.backend.real() && !s.backend.scaledDown.empty())
        fmt::print("  backend         simulated: {}\n", s.backend.scaledDown);
    // A simulated run on a profile keeps its steps by the traffic before them as a real run does: the two side by side.
    if (!s.backend.real())
        if (const std::string traffic = core::describeAttentionByTraffic(s.backend); !traffic.empty())
            fmt::print("  by traffic      {}\n", traffic);
    if (s.replayedRoutes.on)
        fmt::print("  routes          as a real run routed them (compare-real --real-routes): {}\n",
                   core::describeReplayedRoutes(s.replayedRoutes));
    if (s.backend.real()) {
        // What ran the messages: real copies, their measured time, and the resource behind each node.
        const auto& b = s.backend;
        if (b.copies == 0) // one node, or every message between a node and itself
            fmt::print("  backend         {}: no copies, every message staying on its node\n", b.name);
        else
            fmt::print("  backend         {}: {} copies of {} in {} descriptors, {} ms measured, each checked against "
                       "its stamp and the CRC-32 it seals ({} passed); largest copy at {} GB/s{}\n",
                       b.name, b.copies, scaled(b.bytesCopied, "B"), b.descriptors, number(b.copyMs), b.verified,
                       number(b.largestCopyGBps),
                       b.copiesQueued > 0 ? fmt::format("; {} shared their pair with other copies in flight, landing "
                                                        "{} ms later in all",
                                                        b.copiesQueued, number(b.copyWaitMs))
                                          : std::string());
        if (b.kvTransfersChecked > 0)
            fmt::print(
                "  K/V carried     {} transfers carried their sequence's first-layer K/V rows for {} of the {} "
                "tokens they moved (as many as fit in the message and its memory at once), each checked on landing "
                "against the sequence's values\n",
                b.kvTransfersChecked, b.kvRowsCarried, b.kvRowsOffered);
        if (b.decodeSteps > 0)
            fmt::print(
                "  real compute    {} decode steps ran their attention here: {} of K/V read in {} ms measured "
                "({} GB/s); {} block reads checked against their stamps{}{}; {} K/V rows written, {} of them "
                "appends and {} taken from the bytes their transfers landed in the node's memory\n",
                b.decodeSteps, scaled(b.attentionBytes, "B"), number(b.attentionMs),
                number(b.attentionMs > 0 ? b.attentionBytes / (b.attentionMs * 1e6) : 0.0), b.blockReadsChecked,
                b.blockReadsChecked == 0                    ? std::string()
                : b.blockSealsSummed == b.blockReadsChecked ? std::string(" and seals")
                                                            : fmt::format(" ({} of them summed against their seals: "
                                                                          "unsummed, a block is read once, so the sums "
                                                                          "do not change the attention's times)",
                                                                          b.blockSealsSummed),
                b.blockReadsBorrowed > 0
                    ? fmt::format(" ({} more of borrowed blocks, unchecked: the pool was full)", b.blockReadsBorrowed)
                    : std::string(),
                b.kvRowsWritten, b.kvRowsAppended, b.kvRowsLanded);
        if (const std::string pools = core::describeKvPools(b); !pools.empty())
            fmt::print("  K/V pools       {}\n", pools);
        if (const std::string costs = core::describeOwnCosts(b); !costs.empty())
            fmt::print("  own costs       {}\n", costs);
        if (const std::string sizes = core::describeAttentionBySize(b); !sizes.empty())
            fmt::print("  by step size    {}\n", sizes);
        if (const std::string traffic = core::describeAttentionByTraffic(b); !traffic.empty())
            fmt::print("  by traffic      {}\n", traffic);
        if (!b.staleReads.empty()) {
            // The error each stale read caused, measured: the attention over the older bytes against the latest.
            std::vector<double> relL2, maxAbs, fraction;
            for (const auto& r : b.staleReads) {
                relL2.push_back(r.relL2);
                maxAbs.push_back(r.maxAbs);
                fraction.push_back(r.contextTokens > 0 ? 100.0 * r.staleTokens / r.contextTokens : 0.0);
            }
            const auto l2 = core::distributionOf(relL2), abs = core::distributionOf(maxAbs),
                       part = core::distributionOf(fraction);
            fmt::print("  stale reads     {} decode reads of stale blocks ran for real: attention output error rel L2 "
                       "p50 {} p99 {} max {}, max abs p50 {} max {}; {}% of the context stale (p50)\n",
                       b.staleReads.size(), number(l2.p50), number(l2.p99), number(l2.max), number(abs.p50),
                       number(abs.max), number(part.p50));
        }
        for (const auto& m : b.mapping)
            fmt::print("    {:<13} {}\n", m.node, m.resource);
        if (!b.scaledDown.empty())
            fmt::print("    scaled down:  {}\n", b.scaledDown);
        if (!b.faultNotPlayed.empty())
            fmt::print("    injected:     {}\n", b.faultNotPlayed);
    }
    fmt::print("  {:<15} {} events in {} s ({} events/s)\n\n", s.backend.real() ? "engine" : "simulation",
               s.eventsExecuted, number(s.wallSeconds), scaled(s.eventsPerSecond, ""));

    const std::pair<const char*, const core::Distribution*> distributions[] = {
        {"TTFT", &s.ttftMs},
        {"TPOT", &s.tpotMs},
        {"  compute", &s.tpotComputeMs},
        {"  transfer", &s.tpotTransferMs},
        {"  coherence stall", &s.tpotStallMs},
        {"end to end", &s.e2eMs},
        {"inter-token", &s.itlMs},
        {"  queue", &s.queueMs},
        {"  prefill", &s.prefillMs},
        {"  admission", &s.admissionMs},
        {"  KV transfer", &s.transferMs},
        {"  KV load", &s.loadMs},
        {"  first decode", &s.firstDecodeMs},
    };
    std::vector<std::vector<std::string>> rows = {{"  METRIC (ms)", "COUNT", "MEAN", "P50", "P90", "P99", "MAX"}};
    for (const auto& [label, d] : distributions)
        rows.push_back({std::string("  ") + label, std::to_string(d->count), number(d->mean), number(d->p50),
                        number(d->p90), number(d->p99), number(d->max)});
    printTable(rows, 1);
    fmt::print("  (compute, transfer and coherence stall are per-token parts of TPOT; queue ... first decode are the "
               "parts of TTFT)\n");
    printMessageKinds(s);
    printLinks(s);
}

} // namespace coh::cli
