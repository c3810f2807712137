#include "core/serving/serving_engine.h"

#include "core/coherence/protocol_registry.h"
#include "core/engine/coherent_kv.h"
#include "core/engine/direct_transfer_kv.h"
#include "core/net/simulation_limit.h"
#include "core/scenario/input_error.h"

#include <fmt/format.h>

#include <algorithm>

namespace coh::core {

ServingEngine::ServingEngine(const Scenario& scenario, const Workload& workload)
    : m_scenario(scenario)
    , m_workload(workload)
    , m_routing(scenario.topology)
    , m_network(scenario.topology, m_routing, m_sim, NetWake, NetDeliver, scenario.metrics.linkInterval)
    , m_recorder(scenario.record.maxMessages, scenario.seed)
    , m_cost(scenario.model, scenario.serving)
    , m_metrics(workload.requests.size())
    , m_state(workload.requests.size())
{
    buildInstances();
    refuseImpossibleInput();
    std::vector<std::vector<std::uint32_t>> instanceNodes;
    for (const auto& inst : m_instances)
        instanceNodes.push_back(inst.nodes);
    // "direct" is the plain copy; any other name is a protocol table driving every KV access.
    if (scenario.coherence.decode == "direct") {
        auto direct = std::make_unique<DirectTransferKv>(m_network, m_recorder, std::move(instanceNodes),
                                                         scenario.model.kvBytesPerToken(), scenario.serving.blockTokens,
                                                         workload.requests.size());
        m_kv = std::move(direct);
    } else {
        const auto& protocol = coherence::findProtocol(scenario.coherence.decode, "/coherence/decode");
        auto coherent = std::make_unique<CoherentKv>(protocol, scenario, m_network, m_recorder,
                                                     std::move(instanceNodes), workload.requests.size());
        m_kv = std::move(coherent);
    }
    if (scenario.serving.prefixPool.enabled) {
        // The pool's flows share the network with the KV path's; each is delivered to its own sender.
        const auto kinds = static_cast<std::uint8_t>(m_kv->stats().kinds.size());
        std::vector<std::pair<std::uint32_t, std::uint32_t>> prefillNodes;
        for (std::uint32_t i = 0; i < m_instances.size(); ++i)
            if (m_instances[i].role == InstanceRole::Prefill)
                prefillNodes.emplace_back(i, m_instances[i].nodes.front());
        m_prefix = std::make_unique<PrefixCache>(scenario, workload, m_network, m_recorder, *this, kinds, prefillNodes);
    }
    m_kv->setListener(this);
    for (std::uint32_t r = 0; r < workload.requests.size(); ++r) {
        m_metrics[r].id = r;
        m_metrics[r].arrival = workload.requests[r].arrival;
        m_metrics[r].promptTokens = workload.requests[r].promptTokens;
        m_metrics[r].outputTokens = std::max(1u, workload.requests[r].outputTokens);
    }
}

ServingEngine::~ServingEngine() = default;

void ServingEngine::buildInstances()
{
    const auto& serving = m_scenario.serving;
    const auto& topo = m_scenario.topology;
    std::vector<std::uint32_t> prefill, decode;
    std::vector<std::uint32_t> instancesPerNode(topo.nodes.size(), 0);
    for (const auto& spec : serving.instances) {
        InstanceState inst;
        inst.id = spec.id;
        inst.role = spec.role;
        for (const auto& nodeId : spec.nodes) {
            auto index = topo.nodeIndex(nodeId);
            if (!index)
                throw InputError(m_scenario.sourcePath, "/serving/instances",
                                 "instance '" + spec.id + "' names unknown node '" + nodeId + "'",
                                 "use a node id from /topology/nodes");
            inst.nodes.push_back(*index);
            ++instancesPerNode[*index];
        }
        inst.hw = m_cost.hardware(topo, inst.nodes);
        const bool isPrefill = spec.role == InstanceRole::Prefill;
        inst.maxBatchSize = spec.maxBatchSize ? spec.maxBatchSize
                                              : (isPrefill ? serving.prefillMaxBatchSize : serving.decodeMaxBatchSize);
        inst.maxBatchTokens = spec.maxBatchTokens ? spec.maxBatchTokens : serving.prefillMaxBatchTokens;
        if (!isPrefill) {
            // KV capacity: what HBM holds beyond the weights, in whole blocks.
            const double blockBytes = static_cast<double>(m_scenario.model.kvBytesPerToken()) * serving.blockTokens;
            const double kvBytes = inst.hw.hbmBytes * serving.kvMemoryFraction - m_scenario.model.weightBytes();
            inst.kvBlocksTotal = kvBytes > 0 ? static_cast<std::uint64_t>(kvBytes / blockBytes) : 0;
            inst.kvBlocksFree = inst.kvBlocksTotal;
        }
        (isPrefill ? prefill : decode).push_back(static_cast<std::uint32_t>(m_instances.size()));
        m_instances.push_back(std::move(inst));
    }
    if (prefill.empty() || decode.empty())
        throw InputError(m_scenario.sourcePath, "/serving/instances",
                         "the scenario needs at least one prefill and one decode instance",
                         "give nodes the roles prefill and decode (or both)");
    m_sharedDevices = std::any_of(instancesPerNode.begin(), instancesPerNode.end(), [](auto n) { return n > 1; });
    m_nodeBusy.assign(topo.nodes.size(), 0);
    m_nodeWaiters.assign(topo.nodes.size(), {});
    m_router = std::make_unique<Router>(serving.router, std::move(prefill), std::move(decode));
}

void ServingEngine::operator()(const Event& ev)
{
    switch (static_cast<EventKind>(ev.kind)) {
    case Arrival:
        onArrival(ev.target);
        break;
    case PrefillDone:
        onPrefillDone(ev.target);
        break;
    case DecodeKick:
        onDecodeKick(ev.target);
        break;
    case DecodeDone:
        onDecodeDone(ev.target);
        break;
    case NetWake:
        m_network.onWake(ev);
        break;
    case NetDeliver:
        m_network.onDeliver(ev);
        break;
    case Heartbeat:
        onHeartbeat();
        break;
    }
}

RunResult ServingEngine::run(const RunOptions& options)
{
    m_options = &options;
    const auto& requests = m_workload.requests;
    m_sim.reserve(1024);
    if (!requests.empty())
        m_sim.scheduleAt(requests.front().arrival, Arrival, 0);
    if (options.progress && !requests.empty()) {
        // Progress is a heartbeat inside the simulation, not a check in every handler.
        m_heartbeatPeriod = std::max<SimTime>(kMillisecond, requests.back().arrival / 200);
        m_lastProgress = std::chrono::steady_clock::now();
        m_sim.scheduleIn(m_heartbeatPeriod, Heartbeat);
    }
    const auto wallStart = std::chrono::steady_clock::now();
    if (!m_sim.run(*this, kTimeInfinity, options.cancel))
        throw RunCancelled();
    m_kv->checkFinished();
    if (m_prefix)
        m_prefix->checkFinished();
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wallStart).count();
    RunResult result = collect();
    result.summary.wallSeconds = wall;
    result.summary.eventsPerSecond = wall > 0 ? static_cast<double>(result.summary.eventsExecuted) / wall : 0;
    return result;
}

void ServingEngine::onHeartbeat()
{
    const std::uint64_t done = m_finished + m_rejected;
    const auto now = std::chrono::steady_clock::now();
    if (std::chrono::duration<double>(now - m_lastProgress).count() >= m_options->progressIntervalSeconds) {
        m_lastProgress = now;
        m_options->progress->onProgress({m_sim.now(), done, m_workload.requests.size(), m_sim.eventsExecuted()});
    }
    // The period grows with simulated time, so a run that lasts simulated years does not spend its events on
    // heartbeats: at most about 200 beats per doubling of the clock.
    m_heartbeatPeriod = std::max(m_heartbeatPeriod, m_sim.now() / 200);
    if (done < m_workload.requests.size())
        m_sim.scheduleIn(m_heartbeatPeriod, Heartbeat);
}

namespace {

// refuseImpossibleInput bounds every single step; only a whole run of long steps (or routes whose latencies add
// past the clock) gets here. It is the input's doing, so it is an InputError like the others.
template <class Work> auto withClockLimits(const Scenario& scenario, Work&& work)
{
    try {
        return work();
    } catch (const SimulationLimitError& e) {
        throw InputError(
            scenario.sourcePath, fmt::format("/topology/links/{}/{}", e.link(), e.field()), e.what(),
            fmt::format("check the link's {} and its unit; docs/reliability.md lists the limits", e.field()));
    } catch (const TimeOverflow& e) {
        throw InputError(scenario.sourcePath, "",
                         fmt::format("the simulation passed the end of its clock: {}", e.what()),
                         "look for a bandwidth or FLOP/s far below real hardware, or a workload.time_scale far "
                         "above 1; docs/reliability.md lists the limits");
    }
}

} // namespace

void checkRunnable(const Scenario& scenario, const Workload& workload)
{
    withClockLimits(scenario, [&] { const ServingEngine engine(scenario, workload); });
}

RunResult runScenario(const Scenario& scenario, const Workload& workload, const RunOptions& options)
{
    return withClockLimits(scenario, [&] {
        ServingEngine engine(scenario, workload);
        return engine.run(options);
    });
}

} // namespace coh::core
