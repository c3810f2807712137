// Node failures in the serving engine: a failing node stops its instances and takes their requests (and the
// requests whose only KV copy it held); the monitor's detection recovers them by the scenario's strategy; the
// repaired node's instances take work again. Failures keeps the schedule and the figures.
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
    const std::int64_t made = m_failures->fail(m_sim, entry, FailureDetect, FailureRepair, Failure);
    if (made < 0)
        return;
    const auto record = static_cast<std::uint32_t>(made);
    const std::uint32_t node = m_failures->nodeOf(record);
    // Every instance on the node stops before any gives its device back: a device freed by one must not start
    // another that is dying with it.
    std::vector<std::uint32_t> stopped, released;
    for (std::uint32_t i = 0; i < m_instances.size(); ++i) {
        InstanceState& inst = m_instances[i];
        if (!onNode(inst, node))
            continue;
        m_failures->record(record).instances.push_back(inst.id);
        // The copies on the node are gone, and so are a tensor-parallel instance's shards on its other nodes.
        for (auto n : inst.nodes)
            m_kv->nodeLost(n);
        if (inst.down) // stopped already by another of its nodes
            continue;
        if (inst.running)
            released.push_back(i);
        inst.down = true;
        ++inst.generation; // its iteration under way never ends
        stopped.push_back(i);
    }
    m_kv->nodeLost(node);
    for (auto i : stopped)
        for (auto r : takeAll(i))
            take(r, record);
    cancelResumesFrom(node);
    for (auto i : released)
        m_devices.release(i, [this](std::uint32_t waiter) { tryStart(waiter); });
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
    // Requests an earlier failure took and that wait for its detection: what they still had may be on this node.
    for (std::uint32_t other = 0; other < record; ++other)
        for (LostRequest& lost : m_failures->lost(other))
            loseMore(lost);
    m_failures->instancesUp(m_sim.now(), instancesRunning());
    if (!orphans.empty()) // their blocks are free again
        for (std::uint32_t i = 0; i < m_instances.size(); ++i)
            if (m_instances[i].role == InstanceRole::Decode)
                m_decode->tryAdmit(i);
}

void ServingEngine::loseMore(LostRequest& lost)
{
    RequestState& s = m_state[lost.request];
    if (!lost.kvLost && s.prefilled && kvSourceDown(lost.request)) {
        // It had lost only its place; now its KV's only copy is gone too.
        lost.kvLost = true;
        abandonKv(lost);
    } else if (lost.kvLost && lost.copy.tokens > 0 && m_failures->isDown(lost.copy.node)) {
        lost.copy = {}; // the copy it would have been restored from is gone
    }
}

void ServingEngine::cancelResumesFrom(std::uint32_t node)
{
    for (std::uint32_t r = 0; r < m_state.size(); ++r) {
        RequestState& s = m_state[r];
        if (s.resumeTokens == 0 || s.resumeStarted || s.resumeNode != node)
            continue;
        // What it would have loaded is computed now.
        RequestMetrics& m = m_metrics[r];
        FailuresSummary& counts = m_failures->counts();
        counts.restoredTokens -= s.resumeTokens;
        counts.recomputedTokens += s.resumeTokens;
        m.restoredTokens -= s.resumeTokens;
        m.recomputedTokens += s.resumeTokens;
        s.resumeTokens = 0;
    }
}

void ServingEngine::abandonKv(LostRequest& lost)
{
    RequestState& s = m_state[lost.request];
    if (m_failures->spec().recovery != FailureRecovery::Fail)
        lost.copy = m_kv->survivingCopy(s.kv, m_metrics[lost.request].promptTokens + s.generated, m_failures->down());
    // Its stale reads so far stay counted (the next life's add to them).
    const SequenceStaleness stale = m_kv->staleness(s.kv);
    m_metrics[lost.request].staleReads += stale.staleReads;
    m_metrics[lost.request].staleSteps += stale.staleSteps;
    m_kv->abandon(s.kv);
    if (m_tiers)
        m_tiers->abandon(s.kv);
}

void ServingEngine::take(std::uint32_t request, std::uint32_t record)
{
    RequestState& s = m_state[request];
    LostRequest lost;
    lost.request = request;
    // Its KV is lost when a decode instance on the node was reading or holding it, or the node held the only copy.
    lost.kvLost = s.acquiring || (s.prefilled && kvSourceDown(request));
    if (lost.kvLost)
        abandonKv(lost);
    // What it held at its decode instance went with the instance (or was given back by withdraw()).
    s.acquiring = s.kvArrived = s.waitCounted = s.promised = false;
    s.resumeStarted = false; // a prefix load under way went with its prefill instance: the next prefill loads again
    // Before its first token its next life times the TTFT's parts again (they still add up to the TTFT: the wait
    // for the detection falls in the queue or admission part); after it they stay the first life's.
    if (s.emitted == 0)
        s.decoding = false;
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
    // Recompute (or no copy held the prompt) from the last valid prefix: prefill loads what the most complete
    // surviving copy holds and computes the rest of the prompt and the tokens generated so far (at least the last
    // token, for its logits).
    newSequence(r);
    s.prefilled = false;
    s.restoredAt = UINT32_MAX;
    const bool usable = lost.copy.tokens > 0 && !m_failures->isDown(lost.copy.node);
    s.resumeTokens = usable ? std::min(lost.copy.tokens, had - 1) : 0;
    s.resumeNode = lost.copy.node;
    s.resumeStarted = false;
    ++counts.recomputes;
    counts.restoredTokens += s.resumeTokens;
    counts.recomputedTokens += had - s.resumeTokens;
    m.restoredTokens += s.resumeTokens;
    m.recomputedTokens += had - s.resumeTokens;
    routeToPrefill(r);
}

void ServingEngine::giveUp(std::uint32_t request)
{
    m_state[request].resumeTokens = 0; // nothing will load it: a later failure of its node changes nothing
    // Its KV (if it still had any: an abandoned sequence is released already) goes.
    m_kv->release(m_state[request].kv);
    if (m_tiers)
        m_tiers->release(m_state[request].kv);
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
        waitForInstance(request, InstanceRole::Prefill);
        return;
    }
    m_prefill->enqueue(request, p);
    tryStart(p);
}

void ServingEngine::routeToDecode(std::uint32_t request)
{
    const std::uint32_t d = m_policy->pickDecode(m_view, request);
    if (d == kNoInstance) {
        waitForInstance(request, InstanceRole::Decode);
        return;
    }
    m_decode->enqueue(request, d);
    m_decode->tryAdmit(d);
}

void ServingEngine::waitForInstance(std::uint32_t request, InstanceRole role)
{
    // No instance of the role is up. It waits for a repair, unless none can come: every instance of the role has a
    // node down for good. Then it fails now (a wait for nothing would keep random failures going for ever).
    const bool comingBack =
        m_failures && std::any_of(m_instances.begin(), m_instances.end(), [&](const auto& inst) {
            return inst.role == role && std::none_of(inst.nodes.begin(), inst.nodes.end(),
                                                     [&](std::uint32_t n) { return m_failures->downForGood(n); });
        });
    if (!comingBack) {
        giveUp(request);
        return;
    }
    (role == InstanceRole::Prefill ? m_waitingPrefill : m_waitingDecode).push_back(request);
}

void ServingEngine::onNodeRepair(std::uint32_t record)
{
    m_failures->repair(m_sim, record, Failure, allAccounted());
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
    SimTime end = m_transport->lastActivity();
    for (const auto& m : m_metrics)
        end = std::max(end, m.finish);
    if (m_failures)
        for (const auto& f : m_failures->counts().failures)
            end = std::max(end, f.requestsLost > 0 ? f.detected : f.failed);
    return std::min(end, m_sim.now());
}

} // namespace coh::core
