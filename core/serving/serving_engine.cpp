#include "core/serving/serving_engine.h"

#include "core/base/input_error.h"
#include "core/coherence/protocol_registry.h"
#include "core/engine/coherent_kv.h"
#include "core/engine/direct_transfer_kv.h"
#include "core/net/simulation_limit.h"
#include "core/serving/calibrated_compute.h"
#include "core/serving/measured_compute.h"
#include "core/serving/serving_events.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>
#include <utility>

namespace coh::core {

using namespace serving_event;

namespace {
// A real backend measures its decode steps on its nodes; a simulated run on a calibrated profile predicts them; any
// other simulated run takes the roofline.
std::unique_ptr<ComputeCost> makeCompute(const CostModel& cost, const Scenario& scenario, const BackendOptions& backend,
                                         real::NodeResources* nodes)
{
    if (nodes) {
        auto measured = std::make_unique<MeasuredCompute>(cost, scenario.model, scenario.serving.blockTokens, *nodes);
        if (backend.fault && backend.fault->read)
            measured->injectIntoStep(*backend.fault->read, backend.fault->at);
        return measured;
    }
    if (backend.profile)
        return std::make_unique<CalibratedCompute>(cost, scenario.model, scenario.serving.blockTokens,
                                                   *backend.profile);
    return std::make_unique<RooflineCompute>(cost);
}
} // namespace

ServingEngine::ServingEngine(const Scenario& scenario, const Workload& workload, const BackendOptions& backend)
    : m_scenario(scenario)
    , m_workload(workload)
    , m_routing(scenario.topology)
    , m_workers(makeNodeResources(backend, scenario))
    , m_transport(makeTransport(scenario, m_routing, m_sim, NetWake, NetDeliver, m_workers.get(), backend.fault))
    , m_recorder(scenario.record.maxMessages, scenario.seed)
    , m_iterations(scenario.record.maxIterations, scenario.seed ^ 0x5851F42D4C957F2Dull)
    , m_cost(scenario.model, scenario.serving)
    , m_compute(makeCompute(m_cost, scenario, backend, m_workers.get()))
    , m_instances(buildInstances(scenario, m_cost))
    , m_view(m_instances, workload, m_metrics)
    , m_devices(m_instances, scenario.topology.nodes.size())
    , m_policy(makeRoutingPolicy(scenario.serving.router, scenario.serving.decodeAffinity))
    , m_metrics(workload.requests.size())
    , m_state(workload.requests.size())
{
    refuseImpossibleInput();
    m_compute->watchTraffic(*m_transport);
    std::vector<std::vector<std::uint32_t>> instanceNodes;
    for (const auto& inst : m_instances)
        instanceNodes.push_back(inst.nodes);
    // "direct" is the plain copy; any other name is a protocol table driving every KV access.
    if (scenario.coherence.decode == "direct") {
        auto direct = std::make_unique<DirectTransferKv>(*m_transport, m_recorder, std::move(instanceNodes),
                                                         scenario.model.kvBytesPerToken(), scenario.serving.blockTokens,
                                                         workload.requests.size());
        m_kv = std::move(direct);
    } else {
        const auto& protocol = coherence::findProtocol(scenario.coherence.decode, "/coherence/decode");
        auto coherent = std::make_unique<CoherentKv>(protocol, scenario, *m_transport, m_recorder,
                                                     std::move(instanceNodes), workload.requests.size(), &workload);
        m_kv = std::move(coherent);
    }
    if (scenario.serving.prefixPool.enabled) {
        // The pool's flows share the network with the KV path's; each is delivered to its own sender.
        const auto kinds = static_cast<std::uint8_t>(m_kv->stats().kinds.size());
        std::vector<std::pair<std::uint32_t, std::uint32_t>> prefillNodes;
        for (std::uint32_t i = 0; i < m_instances.size(); ++i)
            if (m_instances[i].role == InstanceRole::Prefill)
                prefillNodes.emplace_back(i, m_instances[i].nodes.front());
        m_prefix =
            std::make_unique<PrefixCache>(scenario, workload, *m_transport, m_recorder, *this, kinds, prefillNodes);
    }
    if (scenario.serving.kvTiers.enabled()) {
        // The tiers' flows follow the KV path's and the pool's kinds, each delivered to its own domain.
        auto kinds = m_kv->stats().kinds.size();
        if (m_prefix)
            kinds += m_prefix->kinds().size();
        m_tiers = std::make_unique<KvTiers>(scenario, m_sim, *m_transport, m_recorder, m_instances,
                                            static_cast<std::uint8_t>(kinds), *this, workload.requests.size());
    }
    if (scenario.serving.localPrefixCache.enabled) {
        m_local = std::make_unique<LocalPrefixCache>(scenario, workload, m_instances);
        m_view.setLocalPrefixCache(m_local.get());
    }
    m_kv->setListener(this);
    m_view.setKvMemory(m_kv.get());
    if (scenario.failures.enabled()) {
        m_failures = std::make_unique<Failures>(scenario, m_instances);
        // The resumed prefixes' loads follow every other kind (the KV path's, the pool's, the tiers').
        auto kinds = m_kv->stats().kinds.size() + (m_prefix ? m_prefix->kinds().size() : 0) +
                     (m_tiers ? m_tiers->kinds().size() : 0);
        m_resume = std::make_unique<ResumeLoads>(*m_transport, m_recorder, m_instances, *this,
                                                 static_cast<double>(scenario.model.kvBytesPerToken()),
                                                 scenario.serving.blockTokens, static_cast<std::uint8_t>(kinds));
    }
    m_prefill = std::make_unique<PrefillScheduler>(m_sim, *m_compute, m_instances, m_metrics, m_state, *m_kv,
                                                   m_prefix.get(), m_local.get(), m_resume.get());
    m_decode = std::make_unique<DecodeScheduler>(m_sim, *m_compute, m_instances, m_metrics, m_state, *m_kv,
                                                 m_iterations, scenario.serving.blockTokens, m_tiers.get());
    for (std::uint32_t r = 0; r < workload.requests.size(); ++r) {
        m_metrics[r].id = r;
        m_metrics[r].arrival = workload.requests[r].arrival;
        m_metrics[r].promptTokens = workload.requests[r].promptTokens;
        m_metrics[r].outputTokens = std::max(1u, workload.requests[r].outputTokens);
        m_state[r].kv = r;
    }
}

ServingEngine::~ServingEngine() = default;

void ServingEngine::operator()(const Event& ev)
{
    switch (static_cast<ServingEventId>(eventKindId(ev.kind))) {
    case ArrivalId:
        onArrival(ev.target);
        break;
    case PrefillDoneId:
        if (ev.payload == m_instances[ev.target].generation) // else a failure stopped that batch
            onPrefillDone(ev.target);
        break;
    case DecodeKickId:
        onDecodeKick(ev.target);
        break;
    case DecodeDoneId:
        if (ev.payload == m_instances[ev.target].generation)
            onDecodeDone(ev.target);
        break;
    case NetWakeId:
        m_transport->onWake(ev);
        break;
    case NetDeliverId:
        m_transport->onDeliver(ev);
        break;
    case HeartbeatId:
        onHeartbeat();
        break;
    case FailureId:
        if (m_failures->isLinkEntry(ev.target))
            onLinkFail(ev.target);
        else
            onNodeFail(ev.target);
        break;
    case FailureDetectId:
        if (m_failures->isLinkRecord(ev.target))
            onLinkFailureDetected(ev.target);
        else
            onFailureDetected(ev.target);
        break;
    case FailureRepairId:
        if (m_failures->isLinkRecord(ev.target))
            onLinkRepair(ev.target);
        else
            onNodeRepair(ev.target);
        break;
    }
}

RunResult ServingEngine::run(const RunOptions& options)
{
    m_options = &options;
    ReplayedRoutes* replayed = nullptr;
    if (options.routes) {
        auto routes = std::make_unique<ReplayedRoutes>(*options.routes, std::move(m_policy));
        replayed = routes.get();
        m_policy = std::move(routes);
    }
    const auto& requests = m_workload.requests;
    m_sim.reserve(1024);
    if (!requests.empty())
        m_sim.scheduleAt(requests.front().arrival, Arrival, 0);
    if (m_failures && !requests.empty())
        m_failures->start(m_sim, Failure);
    if (options.progress && !requests.empty()) {
        // Progress is a heartbeat inside the simulation, not a check in every handler.
        m_heartbeatPeriod = std::max<SimTime>(kMillisecond, requests.back().arrival / 200);
        m_lastProgress = std::chrono::steady_clock::now();
        m_sim.scheduleIn(m_heartbeatPeriod, Heartbeat);
    }
    const auto wallStart = std::chrono::steady_clock::now();
    if (!m_sim.run(*this, kTimeInfinity, options.cancel))
        throw RunCancelled();
    // Requests still waiting for an instance of their role: none came back before the run ran out of events.
    for (auto* waiting : {&m_waitingPrefill, &m_waitingDecode})
        for (auto r : std::exchange(*waiting, {}))
            giveUp(r);
    // A message that never arrived is what a waiting sequence waits on, so it is named first.
    m_transport->checkDelivered();
    m_kv->checkFinished();
    if (m_prefix)
        m_prefix->checkFinished();
    if (m_tiers) // a tier move that never finished is what holds a sequence, so it is named first
        m_tiers->checkFinished();
    m_decode->checkFinished();
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wallStart).count();
    RunResult result = collect();
    if (replayed)
        result.summary.replayedRoutes = {true, replayed->replayed(), replayed->routedAnew()};
    result.summary.wallSeconds = wall;
    result.summary.eventsPerSecond = wall > 0 ? static_cast<double>(result.summary.eventsExecuted) / wall : 0;
    return result;
}

void ServingEngine::onHeartbeat()
{
    const std::uint64_t done = m_decode->finished() + m_decode->rejected() + m_failed;
    const auto now = std::chrono::steady_clock::now();
    if (std::chrono::duration<double>(now - m_lastProgress).count() >= m_options->progressIntervalSeconds) {
        m_lastProgress = now;
        m_options->progress->onProgress({m_sim.now(), done, m_workload.requests.size(), m_sim.eventsExecuted()});
    }
    // The period grows with simulated time, so a run that lasts simulated years does not spend its events on
    // heartbeats: at most about 200 beats per doubling of the clock.
    m_heartbeatPeriod = std::max(m_heartbeatPeriod, m_sim.now() / 200);
    // Only while something else is pending: requests waiting for an instance that never comes back end the run.
    if (done < m_workload.requests.size() && m_sim.pending() > 0)
        m_sim.scheduleIn(m_heartbeatPeriod, Heartbeat);
}

void ServingEngine::onArrival(std::uint32_t first)
{
    // Requests arriving at the same instant are queued together before any instance starts, so a
    // scheduler sees them all (as a real one polling its queue would). Arrivals are chained (each batch
    // schedules the next) so the event queue holds one, not the whole trace.
    const auto& requests = m_workload.requests;
    std::uint32_t end = first;
    while (end < requests.size() && requests[end].arrival == requests[first].arrival)
        ++end;
    if (end < requests.size())
        m_sim.scheduleAt(requests[end].arrival, Arrival, end);
    std::vector<std::uint32_t> touched;
    for (std::uint32_t request = first; request < end; ++request) {
        const std::uint32_t p = m_policy->pickPrefill(m_view, request);
        if (p == kNoInstance) { // every prefill instance has failed: it waits for one to come back
            waitForInstance(request, InstanceRole::Prefill);
            continue;
        }
        m_prefill->enqueue(request, p);
        if (std::find(touched.begin(), touched.end(), p) == touched.end())
            touched.push_back(p);
    }
    for (auto p : touched)
        tryStart(p);
}

void ServingEngine::onPrefillDone(std::uint32_t index)
{
    std::vector<std::uint32_t> touched;
    for (auto r : m_instances[index].batch) {
        m_prefill->complete(r, index);
        const std::uint32_t d = m_policy->pickDecode(m_view, r);
        if (d == kNoInstance) { // every decode instance has failed: it waits for one to come back
            waitForInstance(r, InstanceRole::Decode);
            continue;
        }
        m_decode->enqueue(r, d);
        if (std::find(touched.begin(), touched.end(), d) == touched.end())
            touched.push_back(d);
    }
    m_prefill->endBatch(index);
    for (auto d : touched)
        m_decode->tryAdmit(d);
    endIteration(index);
}

void ServingEngine::onDecodeKick(std::uint32_t index)
{
    m_instances[index].kickPending = false;
    tryStart(index);
}

void ServingEngine::onDecodeDone(std::uint32_t index)
{
    m_decode->onIterationDone(index);
    endIteration(index);
}

void ServingEngine::tryStart(std::uint32_t index)
{
    const InstanceState& inst = m_instances[index];
    if (inst.running || inst.down || !inst.isUp())
        return;
    const bool prefill = inst.role == InstanceRole::Prefill;
    const bool hasWork = prefill ? PrefillScheduler::hasWork(inst) : DecodeScheduler::hasWork(inst);
    if (!hasWork || !m_devices.claim(index))
        return;
    if (prefill)
        m_prefill->start(index);
    else if (!m_decode->start(index))
        m_devices.release(index, [this](std::uint32_t waiter) { tryStart(waiter); }); // nothing ran: wait for a kick
}

void ServingEngine::endIteration(std::uint32_t index)
{
    m_devices.release(index, [this](std::uint32_t waiter) { tryStart(waiter); });
    tryStart(index);
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

void checkRunnable(const Scenario& scenario, const Workload& workload, const BackendOptions& backend)
{
    withClockLimits(scenario, [&] { const ServingEngine engine(scenario, workload, backend); });
}

RunResult runScenario(const Scenario& scenario, const Workload& workload, const RunOptions& options)
{
    RunResult result = withClockLimits(scenario, [&] {
        ServingEngine engine(scenario, workload, options.backend);
        return engine.run(options);
    });
    // A fault that plays stops the run on its check: one that ends never played its fault, and keeps that said.
    if (const auto& fault = options.backend.fault)
        result.summary.backend.faultNotPlayed =
            fmt::format("--inject {}@{} was never played: the run made {} copies and {} decode steps, and none from "
                        "that {} on could play it",
                        fault->name, fault->at, result.summary.backend.copies, result.summary.backend.decodeSteps,
                        fault->copy ? "copy" : "step");
    return result;
}

} // namespace coh::core
