// The request life cycle of ServingEngine: prefill batching, decode admission, continuous decode batching.
#include "core/serving/serving_engine.h"
#include "core/serving/serving_events.h"

#include <algorithm>

namespace coh::core {

using namespace serving_event;

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
        const std::uint32_t p = m_router->pickPrefill(m_instances);
        InstanceState& inst = m_instances[p];
        m_metrics[request].prefillInstance = p;
        inst.queue.push_back(request);
        inst.queuedTokens += m_metrics[request].promptTokens;
        ++inst.assigned;
        if (std::find(touched.begin(), touched.end(), p) == touched.end())
            touched.push_back(p);
    }
    for (auto p : touched)
        tryStart(p);
}

void ServingEngine::tryStart(std::uint32_t index)
{
    InstanceState& inst = m_instances[index];
    if (inst.running)
        return;
    const bool hasWork =
        inst.role == InstanceRole::Prefill ? !inst.queue.empty() : !(inst.active.empty() && inst.ready.empty());
    if (!hasWork || !claimDevices(index))
        return;
    if (inst.role == InstanceRole::Prefill)
        startPrefill(inst, index);
    else
        startDecode(inst, index);
}

bool ServingEngine::claimDevices(std::uint32_t index)
{
    if (!m_sharedDevices)
        return true;
    InstanceState& inst = m_instances[index];
    for (auto n : inst.nodes) {
        if (m_nodeBusy[n]) {
            if (!inst.waitingForDevice) {
                inst.waitingForDevice = true;
                m_nodeWaiters[n].push_back(index);
            }
            return false;
        }
    }
    inst.waitingForDevice = false;
    for (auto n : inst.nodes)
        m_nodeBusy[n] = 1;
    return true;
}

void ServingEngine::releaseDevices(std::uint32_t index)
{
    if (!m_sharedDevices)
        return;
    InstanceState& inst = m_instances[index];
    std::vector<std::uint32_t> waiters;
    for (auto n : inst.nodes) {
        m_nodeBusy[n] = 0;
        waiters.insert(waiters.end(), m_nodeWaiters[n].begin(), m_nodeWaiters[n].end());
        m_nodeWaiters[n].clear();
    }
    // Prefill goes first on a shared device (as vLLM schedules), then by instance order.
    std::stable_sort(waiters.begin(), waiters.end(), [&](auto a, auto b) {
        return m_instances[a].role == InstanceRole::Prefill && m_instances[b].role != InstanceRole::Prefill;
    });
    for (auto w : waiters) {
        m_instances[w].waitingForDevice = false;
        tryStart(w);
    }
}

void ServingEngine::startPrefill(InstanceState& inst, std::uint32_t index)
{
    inst.batch.clear();
    std::uint64_t tokens = 0;
    double sumSquares = 0;
    // FCFS: take requests from the head while the batch limits allow; an oversized prompt runs alone.
    while (!inst.queue.empty() && inst.batch.size() < inst.maxBatchSize) {
        const std::uint32_t r = inst.queue.front();
        const std::uint64_t length = m_metrics[r].promptTokens;
        if (!inst.batch.empty() && tokens + length > inst.maxBatchTokens)
            break;
        inst.queue.pop_front();
        inst.batch.push_back(r);
        tokens += length;
        sumSquares += static_cast<double>(length) * static_cast<double>(length);
        m_metrics[r].prefillStart = m_sim.now();
    }
    inst.queuedTokens -= tokens;
    inst.batchTokens = tokens;
    inst.running = true;
    if (m_prefix) {
        // Prompt blocks the pool holds are loaded, not computed: the batch computes the rest, each new token
        // still attending over its whole prefix (L^2 - cached^2 of the quadratic term).
        std::uint64_t computed = 0;
        double squares = 0;
        inst.prefixLoads = 0;
        for (auto r : inst.batch) {
            const std::uint32_t cached = m_prefix->startLoad(r, index, inst.nodes.front());
            const double length = m_metrics[r].promptTokens;
            m_metrics[r].cachedTokens = cached;
            computed += m_metrics[r].promptTokens - cached;
            squares += length * length - static_cast<double>(cached) * cached;
            inst.prefixLoads += cached > 0 ? 1 : 0;
        }
        inst.prefillCompute = m_cost.prefill(computed, squares, inst.hw);
        if (inst.prefixLoads > 0)
            return; // onPrefixLoaded() starts the compute
        m_sim.scheduleIn(inst.prefillCompute, PrefillDone, index);
        return;
    }
    m_sim.scheduleIn(m_cost.prefill(tokens, sumSquares, inst.hw), PrefillDone, index);
}

void ServingEngine::onPrefixLoaded(std::uint32_t index)
{
    InstanceState& inst = m_instances[index];
    if (--inst.prefixLoads == 0)
        m_sim.scheduleIn(inst.prefillCompute, PrefillDone, index);
}

void ServingEngine::onPrefillDone(std::uint32_t index)
{
    InstanceState& inst = m_instances[index];
    std::vector<std::uint32_t> touched;
    for (auto r : inst.batch) {
        RequestMetrics& m = m_metrics[r];
        m.prefillEnd = m_sim.now();
        m_kv->prefillWrite(r, index, m.promptTokens);
        if (m_prefix)
            m_prefix->store(r, index, inst.nodes.front());
        const std::uint32_t d = m_router->pickDecode(m_instances);
        m.decodeInstance = d;
        m_instances[d].admission.push_back(r);
        ++m_instances[d].assigned;
        --inst.assigned;
        if (std::find(touched.begin(), touched.end(), d) == touched.end())
            touched.push_back(d);
    }
    inst.batch.clear();
    inst.batchTokens = 0;
    inst.running = false;
    for (auto d : touched)
        tryAdmit(d);
    releaseDevices(index);
    tryStart(index);
}

std::uint32_t ServingEngine::blocksFor(std::uint32_t request) const
{
    const std::uint64_t tokens = std::uint64_t{m_metrics[request].promptTokens} + m_metrics[request].outputTokens;
    const std::uint32_t block = m_scenario.serving.blockTokens;
    return static_cast<std::uint32_t>((tokens + block - 1) / block);
}

void ServingEngine::tryAdmit(std::uint32_t index)
{
    InstanceState& inst = m_instances[index];
    // FIFO admission: KV for the whole sequence (prompt + output) is reserved up front, so a running
    // sequence is never preempted. A request that could never fit is rejected and counted.
    while (!inst.admission.empty()) {
        const std::uint32_t r = inst.admission.front();
        const std::uint32_t need = blocksFor(r);
        if (need > inst.kvBlocksTotal) {
            inst.admission.pop_front();
            --inst.assigned;
            ++m_rejected;
            continue;
        }
        if (need > inst.kvBlocksFree)
            break;
        inst.admission.pop_front();
        inst.kvBlocksFree -= need;
        m_state[r].blocksReserved = need;
        m_metrics[r].transferStart = m_sim.now();
        m_kv->acquireForDecode(r, index, m_metrics[r].promptTokens);
    }
}

void ServingEngine::onKvReady(std::uint32_t request)
{
    m_metrics[request].kvReady = m_sim.now();
    const std::uint32_t d = m_metrics[request].decodeInstance;
    InstanceState& inst = m_instances[d];
    inst.ready.push_back(request);
    // KV of several requests often lands in the same instant: the kick's priority class puts it behind the
    // instant's deliveries, so all of them join one batch.
    if (!inst.running && !inst.kickPending) {
        inst.kickPending = true;
        m_sim.scheduleIn(0, DecodeKick, d);
    }
}

void ServingEngine::onDecodeKick(std::uint32_t index)
{
    m_instances[index].kickPending = false;
    tryStart(index);
}

void ServingEngine::startDecode(InstanceState& inst, std::uint32_t index)
{
    // Continuous batching: sequences whose KV is ready join at this iteration boundary.
    while (!inst.ready.empty() && inst.active.size() < inst.maxBatchSize) {
        const std::uint32_t r = inst.ready.front();
        inst.ready.pop_front();
        inst.active.push_back(r);
        inst.contextTokens += m_metrics[r].promptTokens;
        m_metrics[r].decodeStart = m_sim.now();
    }
    inst.running = true;
    inst.stepStart = m_sim.now();
    inst.stepTransfer = 0;
    inst.stepsWaiting = 0;
    for (auto r : inst.active)
        if (!m_kv->beginDecodeStep(r, index, m_metrics[r].promptTokens + m_state[r].generated + 1))
            ++inst.stepsWaiting;
    if (inst.stepsWaiting == 0)
        runDecodeCompute(inst, index);
}

void ServingEngine::onStepReady(std::uint32_t request)
{
    const std::uint32_t d = m_metrics[request].decodeInstance;
    InstanceState& inst = m_instances[d];
    if (--inst.stepsWaiting == 0) {
        // The last sequence to become ready ended the batch's wait; its data's wire time is the transfer part.
        inst.stepTransfer = m_kv->lastStepTransfer(request);
        runDecodeCompute(inst, d);
    }
}

void ServingEngine::runDecodeCompute(InstanceState& inst, std::uint32_t index)
{
    // The whole batch waits for its slowest sequence's coherence, then computes together.
    const auto batch = static_cast<std::uint32_t>(inst.active.size());
    inst.stepCompute = m_cost.decode(batch, inst.contextTokens, inst.hw);
    m_sim.scheduleIn(inst.stepCompute, DecodeDone, index);
}

void ServingEngine::onDecodeDone(std::uint32_t index)
{
    InstanceState& inst = m_instances[index];
    const SimTime now = m_sim.now();
    bool freed = false;
    for (std::size_t i = 0; i < inst.active.size();) {
        const std::uint32_t r = inst.active[i];
        RequestState& s = m_state[r];
        RequestMetrics& m = m_metrics[r];
        if (s.generated == 0) {
            m.firstToken = now;
        } else {
            m_interTokenGaps.add(now - s.lastToken);
            const SimTime wait = now - inst.stepStart - inst.stepCompute;
            const SimTime transfer = std::min(inst.stepTransfer, wait);
            m.decodeCompute += inst.stepCompute;
            m.decodeTransfer += transfer;
            m.decodeStall += wait - transfer;
        }
        ++s.generated;
        s.lastToken = now;
        ++inst.contextTokens;
        if (s.generated >= m.outputTokens) {
            inst.contextTokens -= m.promptTokens + s.generated;
            finishRequest(r, inst);
            freed = true;
            // Swap-remove keeps the loop O(batch); the order is still deterministic.
            inst.active[i] = inst.active.back();
            inst.active.pop_back();
        } else {
            ++i;
        }
    }
    inst.lastIterationEnd = now;
    inst.running = false;
    if (freed)
        tryAdmit(index);
    releaseDevices(index);
    tryStart(index);
}

void ServingEngine::finishRequest(std::uint32_t request, InstanceState& inst)
{
    m_metrics[request].finish = m_sim.now();
    const SequenceStaleness stale = m_kv->staleness(request);
    m_metrics[request].staleReads = stale.staleReads;
    m_metrics[request].staleSteps = stale.staleSteps;
    inst.kvBlocksFree += m_state[request].blocksReserved;
    --inst.assigned;
    ++m_finished;
    m_kv->release(request);
}

} // namespace coh::core
