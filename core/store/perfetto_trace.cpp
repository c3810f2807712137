#include "core/store/perfetto_trace.h"

#include "core/scenario/scenario_loader.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>

namespace coh::core {

namespace {

using json = nlohmann::json;

double micros(SimTime ns)
{
    return static_cast<double>(ns) / 1000.0; // the format's unit; fractions keep every nanosecond
}

// Greedy lanes: a slice takes the first lane free at its start, so slices of one thread never overlap (the
// format's complete events must nest on a thread).
class Lanes {
  public:
    int take(SimTime start, SimTime end)
    {
        for (std::size_t i = 0; i < m_busyUntil.size(); ++i)
            if (m_busyUntil[i] <= start) {
                m_busyUntil[i] = end;
                return static_cast<int>(i);
            }
        m_busyUntil.push_back(end);
        return static_cast<int>(m_busyUntil.size() - 1);
    }

  private:
    std::vector<SimTime> m_busyUntil;
};

// Thread ids within a process, by what runs on them.
constexpr int kPrefillTid = 1000, kLocalTid = 2000, kDecodeTid = 3000, kMessageTid = 1;

class TraceBuilder {
  public:
    TraceBuilder(PerfettoCounts& counts, std::string prefix)
        : m_counts(counts)
        , m_prefix(std::move(prefix))
    {
    }

    void process(int pid, const std::string& name, int sortIndex)
    {
        if (!m_named.emplace(pid, 0).second)
            return;
        ++m_counts.tracks;
        m_events.push_back(
            {{"ph", "M"}, {"pid", pid}, {"name", "process_name"}, {"args", {{"name", m_prefix + name}}}});
        m_events.push_back(
            {{"ph", "M"}, {"pid", pid}, {"name", "process_sort_index"}, {"args", {{"sort_index", sortIndex}}}});
    }
    void thread(int pid, int tid, const std::string& name)
    {
        if (m_threads.emplace(pid, tid).second)
            m_events.push_back(
                {{"ph", "M"}, {"pid", pid}, {"tid", tid}, {"name", "thread_name"}, {"args", {{"name", name}}}});
    }
    void slice(int pid, int tid, const std::string& name, const char* category, SimTime start, SimTime end, json args)
    {
        ++m_counts.slices;
        m_events.push_back({{"ph", "X"},
                            {"pid", pid},
                            {"tid", tid},
                            {"name", name},
                            {"cat", category},
                            {"ts", micros(start)},
                            {"dur", micros(end - start)},
                            {"args", std::move(args)}});
    }
    void asyncSlice(int pid, const std::string& name, const char* category, std::uint64_t id, SimTime start,
                    SimTime end)
    {
        ++m_counts.slices;
        const std::string hex = fmt::format("0x{:x}", id);
        m_events.push_back({{"ph", "b"},
                            {"pid", pid},
                            {"tid", 0},
                            {"name", name},
                            {"cat", category},
                            {"id", hex},
                            {"ts", micros(start)}});
        m_events.push_back({{"ph", "e"},
                            {"pid", pid},
                            {"tid", 0},
                            {"name", name},
                            {"cat", category},
                            {"id", hex},
                            {"ts", micros(end)}});
    }
    void counter(int pid, const std::string& name, SimTime at, double value)
    {
        ++m_counts.counters;
        m_events.push_back(
            {{"ph", "C"}, {"pid", pid}, {"name", name}, {"ts", micros(at)}, {"args", {{"value", value}}}});
    }
    // A step function as counter samples, one per change.
    void counterSteps(int pid, const std::string& name, std::vector<std::pair<SimTime, double>> deltas)
    {
        std::sort(deltas.begin(), deltas.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
        double value = 0;
        for (std::size_t i = 0; i < deltas.size();) {
            const SimTime at = deltas[i].first;
            for (; i < deltas.size() && deltas[i].first == at; ++i)
                value += deltas[i].second;
            counter(pid, name, at, std::abs(value) < 1e-9 ? 0.0 : value);
        }
    }
    void flow(std::uint64_t id, int fromPid, int fromTid, SimTime fromAt, int toPid, int toTid, SimTime toAt)
    {
        ++m_counts.flows;
        m_events.push_back({{"ph", "s"},
                            {"pid", fromPid},
                            {"tid", fromTid},
                            {"name", "transaction"},
                            {"cat", "coherence"},
                            {"id", id},
                            {"ts", micros(fromAt)}});
        m_events.push_back({{"ph", "f"},
                            {"bp", "e"},
                            {"pid", toPid},
                            {"tid", toTid},
                            {"name", "transaction"},
                            {"cat", "coherence"},
                            {"id", id},
                            {"ts", micros(toAt)}});
    }

    json take() { return std::move(m_events); }

  private:
    PerfettoCounts& m_counts;
    std::string m_prefix;
    json m_events = json::array();
    std::map<int, int> m_named;
    std::set<std::pair<int, int>> m_threads;
};

std::string nodeName(const RunResult& run, std::uint32_t node)
{
    return node < run.nodeIds.size() ? run.nodeIds[node] : fmt::format("node {}", node);
}

} // namespace

json perfettoTrace(const RunResult& run, const PerfettoOptions& options, PerfettoCounts* countsOut)
{
    PerfettoCounts counts;
    TraceBuilder trace(counts, options.trackPrefix);
    const int nodes = static_cast<int>(run.nodeIds.size());
    const int links = static_cast<int>(run.linkIds.size());
    const int base = options.pidBase;
    const auto nodePid = [base](std::uint32_t node) { return base + 1 + static_cast<int>(node); };
    const auto linkPid = [base, nodes](std::uint32_t link, bool forward) {
        return base + 1 + nodes + 2 * static_cast<int>(link) + (forward ? 0 : 1);
    };
    const auto nameLink = [&](std::uint32_t link, bool forward) {
        const int pid = linkPid(link, forward);
        std::string name = link < run.linkIds.size() ? run.linkIds[link] : fmt::format("link {}", link);
        if (link < run.linkEnds.size()) {
            const auto [a, b] = run.linkEnds[link];
            name += fmt::format(" {}→{}", nodeName(run, forward ? a : b), nodeName(run, forward ? b : a));
        } else {
            name += forward ? " (a→b)" : " (b→a)";
        }
        trace.process(pid, name, pid);
        return pid;
    };
    for (int n = 0; n < nodes; ++n)
        trace.process(nodePid(static_cast<std::uint32_t>(n)), run.nodeIds[static_cast<std::size_t>(n)],
                      nodePid(static_cast<std::uint32_t>(n)));
    // Where an instance's compute shows: its first node, else a track of its own.
    const auto instancePid = [&](std::uint32_t instance) {
        if (instance < options.instanceNodes.size() && !options.instanceNodes[instance].empty())
            return nodePid(options.instanceNodes[instance].front());
        const int pid = base + 1 + nodes + 2 * links + static_cast<int>(instance);
        trace.process(
            pid, instance < run.instanceIds.size() ? run.instanceIds[instance] : fmt::format("instance {}", instance),
            pid);
        return pid;
    };
    const auto instanceName = [&](std::uint32_t instance) {
        return instance < run.instanceIds.size() ? run.instanceIds[instance] : fmt::format("{}", instance);
    };

    // Compute: prefill batches (requests of one batch share their instance, start and end), then each request's
    // KV transfer and decode as async slices, the requests decoding on each node as a counter, and the recorded
    // decode iterations.
    // Ids are the format's, global to the file: each run of a merged trace keeps its own.
    const std::uint64_t asyncBase = static_cast<std::uint64_t>(base) << 40;
    std::map<std::tuple<std::uint32_t, SimTime, SimTime>, std::pair<std::uint32_t, std::uint64_t>> batches;
    std::map<int, std::vector<std::pair<SimTime, double>>> decoding;
    for (const RequestMetrics& r : run.requests) {
        if (r.prefillEnd > r.prefillStart) {
            auto& [count, tokens] = batches[{r.prefillInstance, r.prefillStart, r.prefillEnd}];
            ++count;
            tokens += r.promptTokens - std::min(r.promptTokens, r.cachedTokens);
        }
        if (r.failed || r.finish <= r.decodeStart)
            continue;
        const int pid = instancePid(r.decodeInstance);
        if (r.kvReady > r.transferStart)
            trace.asyncSlice(pid, fmt::format("KV in r{}", r.id), "transfer",
                             asyncBase | (std::uint64_t{1} << 32) | r.id, r.transferStart, r.kvReady);
        trace.asyncSlice(pid, fmt::format("decode r{}", r.id), "decode", asyncBase | r.id, r.decodeStart, r.finish);
        decoding[pid].push_back({r.decodeStart, 1.0});
        decoding[pid].push_back({r.finish, -1.0});
    }
    std::map<int, Lanes> prefillLanes;
    for (const auto& [key, batch] : batches) {
        const auto& [instance, start, end] = key;
        const int pid = instancePid(instance);
        const int tid = kPrefillTid + prefillLanes[pid].take(start, end);
        trace.thread(pid, tid, tid == kPrefillTid ? "prefill" : fmt::format("prefill {}", tid - kPrefillTid + 1));
        trace.slice(pid, tid, "prefill batch", "compute", start, end,
                    {{"instance", instanceName(instance)}, {"requests", batch.first}, {"tokens", batch.second}});
    }
    for (auto& [pid, deltas] : decoding)
        trace.counterSteps(pid, "requests decoding", std::move(deltas));

    // Decode iterations: the batch's coherence wait, then its compute, nested in one slice per iteration.
    std::map<int, Lanes> decodeLanes;
    std::map<int, std::vector<std::pair<SimTime, double>>> batchSize;
    for (const DecodeIterationRecord& it : run.iterations) {
        const int pid = instancePid(it.instance);
        const int tid = kDecodeTid + decodeLanes[pid].take(it.start, it.end);
        trace.thread(pid, tid, tid == kDecodeTid ? "decode" : fmt::format("decode {}", tid - kDecodeTid + 1));
        const SimTime computeStart = std::clamp(it.computeStart, it.start, std::max(it.start, it.end));
        trace.slice(pid, tid, "decode iteration", "compute", it.start, it.end,
                    {{"instance", instanceName(it.instance)},
                     {"sequences", it.sequences},
                     {"context_tokens", it.contextTokens},
                     {"coherence_wait_us", micros(computeStart - it.start)},
                     {"compute_us", micros(it.end - computeStart)}});
        if (computeStart > it.start)
            trace.slice(pid, tid, "coherence wait", "coherence", it.start, computeStart, json::object());
        trace.slice(pid, tid, "compute", "compute", computeStart, it.end, json::object());
        batchSize[pid].push_back({it.start, static_cast<double>(it.sequences)});
        batchSize[pid].push_back({it.end, -static_cast<double>(it.sequences)});
    }
    for (auto& [pid, deltas] : batchSize)
        trace.counterSteps(pid, "decode batch (sequences)", std::move(deltas));

    // Messages: a slice on every link direction they cross (a message with no hop: on its node), lanes where they
    // overlap; the first slice is where its flows bind.
    struct Bound {
        int pid = 0, tid = 0;
    };
    std::vector<Bound> bound(run.messages.size());
    std::map<int, Lanes> lanes;
    std::map<int, std::vector<std::pair<SimTime, double>>> inFlight;
    for (std::size_t i = 0; i < run.messages.size(); ++i) {
        const MessageRecord& m = run.messages[i];
        const std::string name = m.kind < run.summary.messagesByKind.size() ? run.summary.messagesByKind[m.kind].name
                                                                            : std::string("message");
        const json args = {{"from", nodeName(run, m.src)}, {"to", nodeName(run, m.dst)}, {"bytes", m.bytes},
                           {"request", m.request},         {"block", m.firstBlock},      {"blocks", m.blockCount}};
        const PathRecord* path = m.path < run.paths.size() ? &run.paths[m.path] : nullptr;
        if (!path || path->links.empty()) {
            const int pid = nodePid(m.src);
            const int tid = kLocalTid + lanes[pid].take(m.start, m.end);
            trace.thread(pid, tid, fmt::format("local messages {}", tid - kLocalTid + 1));
            trace.slice(pid, tid, name, "message", m.start, m.end, args);
            bound[i] = {pid, tid};
            continue;
        }
        for (std::size_t h = 0; h < path->links.size(); ++h) {
            const bool forward = h < path->forward.size() ? static_cast<bool>(path->forward[h]) : true;
            const int pid = nameLink(path->links[h], forward);
            const int tid = kMessageTid + lanes[pid].take(m.start, m.end);
            trace.thread(pid, tid, fmt::format("messages {}", tid));
            trace.slice(pid, tid, name, "message", m.start, m.end, args);
            inFlight[pid].push_back({m.start, m.bytes});
            inFlight[pid].push_back({m.end, -m.bytes});
            if (h == 0)
                bound[i] = {pid, tid};
        }
    }
    for (auto& [pid, deltas] : inFlight)
        trace.counterSteps(pid, "in-flight bytes (recorded messages)", std::move(deltas));

    // Transactions: a message sent by the node another one reached, at the instant it arrived, for the same block.
    std::unordered_multimap<std::uint64_t, std::size_t> arrivals;
    const auto key = [](std::uint32_t node, SimTime at, std::uint32_t block, MessageProtocol protocol) {
        std::uint64_t h = static_cast<std::uint64_t>(at) * 0x9E3779B97F4A7C15ull;
        h ^= (std::uint64_t{node} << 32 | block) + 0x632BE59BD9B4E019ull + (h << 6) + (h >> 2);
        return h ^ static_cast<std::uint64_t>(protocol);
    };
    for (std::size_t i = 0; i < run.messages.size(); ++i) {
        const MessageRecord& m = run.messages[i];
        if (m.sender != MessageSender::None)
            arrivals.emplace(key(m.dst, m.end, m.firstBlock, m.protocol), i);
    }
    std::uint64_t flowId = asyncBase;
    for (std::size_t j = 0; j < run.messages.size(); ++j) {
        const MessageRecord& b = run.messages[j];
        if (b.sender == MessageSender::None)
            continue;
        const auto [first, last] = arrivals.equal_range(key(b.src, b.start, b.firstBlock, b.protocol));
        for (auto it = first; it != last; ++it) {
            const MessageRecord& a = run.messages[it->second];
            if (it->second == j || a.dst != b.src || a.end != b.start || a.firstBlock != b.firstBlock ||
                a.protocol != b.protocol)
                continue;
            trace.flow(++flowId, bound[it->second].pid, bound[it->second].tid, a.start, bound[j].pid, bound[j].tid,
                       b.start);
            break; // one cause per message
        }
    }

    // Counters: each link direction's utilisation per bucket, each node's KV blocks per protocol state.
    const double intervalSeconds = static_cast<double>(run.linkInterval) * 1e-9;
    for (const LinkSeries& s : run.linkSeries) {
        const int pid = nameLink(s.link, s.forward);
        double last = -1;
        for (std::size_t b = 0; b < s.bytesPerBucket.size(); ++b) {
            const double percent = s.bandwidthBytesPerSec > 0 && intervalSeconds > 0
                                       ? 100.0 * s.bytesPerBucket[b] / (s.bandwidthBytesPerSec * intervalSeconds)
                                       : 0.0;
            if (percent == last)
                continue;
            trace.counter(pid, "utilisation %", static_cast<SimTime>(b) * run.linkInterval, percent);
            last = percent;
        }
    }
    for (const NodeBlocksSeries& s : run.nodeBlocks) {
        const int pid = nodePid(s.node);
        const std::string name = "KV blocks " + s.state;
        if (!s.steps.empty()) {
            for (const BlockCountStep& step : s.steps)
                trace.counter(pid, name, step.at, step.blocks);
            continue;
        }
        for (std::size_t b = 0; b < s.blocksPerBucket.size(); ++b)
            trace.counter(pid, name, static_cast<SimTime>(b) * run.linkInterval, s.blocksPerBucket[b]);
    }

    json out;
    out["traceEvents"] = trace.take();
    out["displayTimeUnit"] = "ns";
    out["otherData"] = {{"run", options.runName},
                        {"scenario", run.scenarioName},
                        {"seed", std::to_string(run.seed)},
                        {"protocol", run.summary.protocol},
                        {"recorded_messages", run.messages.size()},
                        {"flows", run.summary.flows}};
    if (countsOut)
        *countsOut = counts;
    return out;
}

int perfettoPidSpan(const RunResult& run)
{
    return 1 + static_cast<int>(run.nodeIds.size() + 2 * run.linkIds.size() + run.instanceIds.size());
}

std::vector<std::vector<std::uint32_t>> instanceNodesOf(const RunResult& run, const std::string& scenarioJson)
{
    std::vector<std::vector<std::uint32_t>> out(run.instanceIds.size());
    try {
        const Scenario scenario = parseScenario(json::parse(scenarioJson), "stored scenario");
        for (const InstanceSpec& instance : scenario.serving.instances) {
            const auto at = std::find(run.instanceIds.begin(), run.instanceIds.end(), instance.id);
            if (at == run.instanceIds.end())
                continue;
            auto& nodes = out[static_cast<std::size_t>(at - run.instanceIds.begin())];
            for (const std::string& id : instance.nodes)
                if (const auto index = scenario.topology.nodeIndex(id))
                    nodes.push_back(*index);
        }
    } catch (const std::exception&) {
        // a scenario that no longer reads (a trace moved): the instances get tracks of their own
    }
    return out;
}

} // namespace coh::core
