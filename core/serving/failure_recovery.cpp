// Node failures in the serving engine: a failing node stops its instances and takes their requests (and the
// requests whose only KV copy it held); the monitor's detection recovers them by the scenario's strategy; the
// repaired node's instances take work again. NodeFailures keeps the schedule and the figures.
#include "core/serving/serving_engine.h"
#include "core/serving/serving_events.h"

#include <algorithm>

namespace coh::core {

using namespace serving_event;

namespace {

bool onNode(const InstanceState& inst, std::uint32_t node)
{
    return std::find(inst.nodes.begin(), inst.nodes.end(), node) != inst.nodes.end();
}

} // namespace

bool ServingEngine::allAccounted() const
{
    return m_decode->finished() + m_decode->rejected() + m_failed == m_metrics.size();
}

std::uint32_t ServingEngine::instancesRunning() const
{
    return static_cast<std::uint32_t>(
        std::count_if(m_instances.begin(), m_instances.end(), [](const InstanceState& i) { return !i.down; }));
}

bool ServingEngine::kvSourceDown(std::uint32_t request) const
{
    const RequestState& s = m_state[request];
    if (s.restoredAt != UINT32_MAX)
        return m_failures->isDown(s.restoredAt);
    // A tensor-parallel prefill instance shards every block over its nodes: losing any loses the KV.
    const auto& nodes = m_instances[m_metrics[request].prefillInstance].nodes;
    return std::any_of(nodes.begin(), nodes.end(), [&](std::uint32_t n) { return m_failures->isDown(n); });
}

std::vector<std::uint32_t> ServingEngine::takeAll(std::uint32_t instance)
{
    return m_instances[instance].role == InstanceRole::Prefill ? m_prefill->takeAll(instance)
                                                               : m_decode->takeAll(instance);
}

void ServingEngine::onNodeFail(std::uint32_t entry)
{
    if (allAccounted())
        return; // nothing left to take: random failures end with the run
    const std::int64_t made = m_failures->fail(m_sim, entry, NodeDetect, NodeRepair, NodeFail);
    if (made < 0)
        return;
    const auto record = static_cast<std::uint32_t>(made);
    const std::uint32_t node = m_failures->nodeOf(record);
    for (std::uint32_t i = 0; i < m_instances.size(); ++i) {
        InstanceState& inst = m_instances[i];
        if (!onNode(inst, node))
            continue;
        m_failures->record(record).instances.push_back(inst.id);
        if (inst.down) // a tensor-parallel instance stopped already by another of its nodes
            continue;
        const bool held = inst.running;
        inst.down = true;
        ++inst.generation; // its iteration under way never ends
        for (auto r : takeAll(i))
            take(r, record);
        if (held)
            m_devices.release(i, [this](std::uint32_t waiter) { tryStart(waiter); });
    }
    // Requests elsewhere whose KV was written on this node and has not reached their decode instance: the node held
    // its only copy.
    std::vector<std::uint32_t> orphans;
    for (const InstanceState& inst : m_instances) {
        if (inst.role != InstanceRole::Decode || inst.down)
            continue;
        for (auto r : inst.admission)
            if (kvSourceDown(r))
                orphans.push_back(r);
        for (auto r : inst.held)
            if (!m_state[r].kvArrived && kvSourceDown(r))
                orphans.push_back(r);
    }
    for (auto r : orphans) {
        m_decode->withdraw(r);
        take(r, record);
    }
    for (auto it = m_waitingDecode.begin(); it != m_waitingDecode.end();) {
        if (kvSourceDown(*it)) {
            take(*it, record);
            it = m_waitingDecode.erase(it);
        } else {
            ++it;
        }
    }
    m_failures->instancesUp(m_sim.now(), instancesRunning());
    if (!orphans.empty()) // their blocks are free again
        for (std::uint32_t i = 0; i < m_instances.size(); ++i)
            if (m_instances[i].role == InstanceRole::Decode)
                m_decode->tryAdmit(i);
}

void ServingEngine::take(std::uint32_t request, std::uint32_t record)
{
    RequestState& s = m_state[request];
    LostRequest lost;
    lost.request = request;
    // Its KV is lost when a decode instance on the node was reading or holding it, or the node held the only copy.
    lost.kvLost = s.acquiring || (s.prefilled && kvSourceDown(request));
    if (lost.kvLost) {
        if (m_failures->spec().recovery == FailureRecovery::Replica)
            lost.copy = m_kv->survivingCopy(s.kv, m_metrics[request].promptTokens + s.generated, m_failures->down());
        m_kv->abandon(s.kv);
        if (m_tiers)
            m_tiers->abandon(s.kv);
    }
    // What it held at its decode instance went with the instance (or was given back by withdraw()).
    s.acquiring = s.kvArrived = s.waitCounted = s.promised = false;
    s.blocksReserved = 0;
    s.place = KvPlace::Hbm;
    ++m_metrics[request].failureHits;
    ++m_failures->counts().hits;
    ++m_failures->record(record).requestsLost;
    m_failures->lost(record).push_back(lost);
}

void ServingEngine::onFailureDetected(std::uint32_t record)
{
    const std::uint32_t node = m_failures->nodeOf(record);
    // The cluster knows now: routing avoids the node's instances, and what was routed there since it failed comes back.
    for (std::uint32_t i = 0; i < m_instances.size(); ++i) {
        InstanceState& inst = m_instances[i];
        if (!onNode(inst, node) || !inst.down)
            continue;
        inst.life = InstanceLife::Failed;
        for (auto r : takeAll(i))
            take(r, record);
    }
    for (const LostRequest& lost : std::exchange(m_failures->lost(record), {}))
        recover(lost);
}

void ServingEngine::newSequence(std::uint32_t request)
{
    m_state[request].kv = m_kv->addSequence();
    if (m_tiers)
        m_tiers->addSequence();
    m_kvOwner.push_back(request);
}

void ServingEngine::recover(const LostRequest& lost)
{
    const std::uint32_t r = lost.request;
    RequestState& s = m_state[r];
    RequestMetrics& m = m_metrics[r];
    FailuresSummary& counts = m_failures->counts();
    const FailureRecovery recovery = m_failures->spec().recovery;
    if (recovery == FailureRecovery::Fail) {
        giveUp(r);
        return;
    }
    if (!lost.kvLost) { // it lost only its place: route it again to the stage it was in
        ++counts.rerouted;
        if (s.prefilled)
            routeToDecode(r);
        else
            routeToPrefill(r);
        return;
    }
    const std::uint32_t had = m.promptTokens + s.generated;
    if (recovery == FailureRecovery::Replica && lost.copy.tokens >= m.promptTokens &&
        !m_failures->isDown(lost.copy.node)) {
        // The copy becomes the sequence's first writer; tokens it lacks are decoded again (not sent again).
        newSequence(r);
        m_kv->restoreAt(s.kv, lost.copy.node, lost.copy.tokens);
        s.generated = lost.copy.tokens - m.promptTokens;
        s.prefilled = true;
        s.restoredAt = lost.copy.node;
        ++counts.fromCopy;
        counts.restoredTokens += lost.copy.tokens;
        counts.recomputedTokens += had - lost.copy.tokens;
        m.restoredTokens += lost.copy.tokens;
        m.recomputedTokens += had - lost.copy.tokens;
        routeToDecode(r);
        return;
    }
    // Recompute (or no copy held even the prompt): prefill the prompt and the tokens generated so far again.
    newSequence(r);
    s.prefilled = false;
    s.restoredAt = UINT32_MAX;
    ++counts.recomputes;
    counts.recomputedTokens += had;
    m.recomputedTokens += had;
    routeToPrefill(r);
}

void ServingEngine::giveUp(std::uint32_t request)
{
    m_metrics[request].failed = true;
    m_metrics[request].finish = m_sim.now();
    ++m_failed;
    if (m_failures)
        ++m_failures->counts().failed;
}

void ServingEngine::routeToPrefill(std::uint32_t request)
{
    const std::uint32_t p = m_policy->pickPrefill(m_view, request);
    if (p == kNoInstance) {
        m_waitingPrefill.push_back(request);
        return;
    }
    m_prefill->enqueue(request, p);
    tryStart(p);
}

void ServingEngine::routeToDecode(std::uint32_t request)
{
    const std::uint32_t d = m_policy->pickDecode(m_view, request);
    if (d == kNoInstance) {
        m_waitingDecode.push_back(request);
        return;
    }
    m_decode->enqueue(request, d);
    m_decode->tryAdmit(d);
}

void ServingEngine::onNodeRepair(std::uint32_t record)
{
    m_failures->repair(m_sim, record, NodeFail, allAccounted());
    const std::uint32_t node = m_failures->nodeOf(record);
    for (auto& inst : m_instances) {
        const bool allUp =
            std::none_of(inst.nodes.begin(), inst.nodes.end(), [&](std::uint32_t n) { return m_failures->isDown(n); });
        if (onNode(inst, node) && inst.down && allUp) {
            inst.down = false;
            inst.life = InstanceLife::Up;
        }
    }
    m_failures->instancesUp(m_sim.now(), instancesRunning());
    // Whoever waited for an instance of its role tries again.
    for (auto r : std::exchange(m_waitingPrefill, {}))
        routeToPrefill(r);
    for (auto r : std::exchange(m_waitingDecode, {}))
        routeToDecode(r);
}

SimTime ServingEngine::runEnd() const
{
    SimTime end = m_network.lastActivity();
    for (const auto& m : m_metrics)
        end = std::max(end, m.finish);
    if (m_failures)
        for (const auto& f : m_failures->counts().failures)
            end = std::max(end, f.requestsLost > 0 ? f.detected : f.failed);
    return std::min(end, m_sim.now());
}

} // namespace coh::core
