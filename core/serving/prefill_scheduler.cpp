#include "core/serving/prefill_scheduler.h"

#include "core/serving/serving_events.h"

#include <algorithm>

namespace coh::core {

PrefillScheduler::PrefillScheduler(Simulator& sim, ComputeCost& compute, std::span<InstanceState> instances,
                                   std::span<RequestMetrics> metrics, std::span<RequestState> state, KvMemory& kv,
                                   PrefixCache* prefix, LocalPrefixCache* local, ResumeLoads* resume)
    : m_sim(sim)
    , m_compute(compute)
    , m_instances(instances)
    , m_metrics(metrics)
    , m_state(state)
    , m_kv(kv)
    , m_prefix(prefix)
    , m_local(local)
    , m_resume(resume)
{
}

void PrefillScheduler::enqueue(std::uint32_t request, std::uint32_t index)
{
    InstanceState& inst = m_instances[index];
    m_metrics[request].prefillInstance = index;
    inst.queue.push_back(request);
    inst.queuedTokens += tokensOf(request);
    ++inst.assigned;
}

void PrefillScheduler::start(std::uint32_t index)
{
    InstanceState& inst = m_instances[index];
    inst.batch.clear();
    std::uint64_t tokens = 0;
    double sumSquares = 0;
    // FCFS: take requests from the head while the batch limits allow; an oversized prompt runs alone.
    while (!inst.queue.empty() && inst.batch.size() < inst.maxBatchSize) {
        const std::uint32_t r = inst.queue.front();
        const std::uint64_t length = tokensOf(r);
        if (!inst.batch.empty() && tokens + length > inst.maxBatchTokens)
            break;
        inst.queue.pop_front();
        inst.batch.push_back(r);
        tokens += length;
        sumSquares += static_cast<double>(length) * static_cast<double>(length);
        if (m_state[r].emitted == 0) // after the first token a recompute does not rewrite the TTFT's parts
            m_metrics[r].prefillStart = m_sim.now();
    }
    inst.queuedTokens -= tokens;
    inst.batchTokens = tokens;
    inst.running = true;
    const bool resuming =
        std::any_of(inst.batch.begin(), inst.batch.end(), [&](std::uint32_t r) { return m_state[r].resumeTokens > 0; });
    if (!m_prefix && !m_local && !resuming) {
        m_sim.scheduleIn(m_compute.prefill(tokens, sumSquares, inst.hw), serving_event::PrefillDone, index,
                         inst.generation);
        return;
    }
    // Prompt blocks the pool holds are loaded, those the instance holds are there already, and a recompute after a
    // failure loads the prefix a surviving copy holds; either way the batch computes the rest, each new token still
    // attending over its whole prefix (L^2 - cached^2 of the quadratic term).
    std::uint64_t computed = 0;
    double squares = 0;
    inst.prefixLoads = 0;
    for (auto r : inst.batch) {
        RequestState& s = m_state[r];
        std::uint32_t cached = 0;
        if (s.resumeTokens > 0) {
            cached = s.resumeTokens;
            s.resumeStarted = true;
            m_metrics[r].cachedTokens = 0; // the prefix counts as restored, not as a prefix-cache hit
            m_resume->start(r, s.resumeNode, index, cached);
            ++inst.prefixLoads;
        } else if (m_prefix || m_local) {
            cached = m_prefix ? m_prefix->startLoad(r, index, inst.nodes.front()) : m_local->hit(r, index);
            m_metrics[r].cachedTokens = cached;
            inst.prefixLoads += m_prefix && cached > 0 ? 1 : 0;
        }
        const double length = tokensOf(r);
        computed += tokensOf(r) - cached;
        squares += length * length - static_cast<double>(cached) * cached;
    }
    inst.prefillCompute = m_compute.prefill(computed, squares, inst.hw);
    if (inst.prefixLoads > 0)
        return; // onPrefixLoaded() starts the compute
    m_sim.scheduleIn(inst.prefillCompute, serving_event::PrefillDone, index, inst.generation);
}

void PrefillScheduler::onPrefixLoaded(std::uint32_t index)
{
    InstanceState& inst = m_instances[index];
    if (--inst.prefixLoads == 0)
        m_sim.scheduleIn(inst.prefillCompute, serving_event::PrefillDone, index, inst.generation);
}

void PrefillScheduler::complete(std::uint32_t request, std::uint32_t index)
{
    RequestMetrics& m = m_metrics[request];
    if (m_state[request].emitted == 0)
        m.prefillEnd = m_sim.now();
    m_kv.prefillWrite(m_state[request].kv, index, tokensOf(request));
    RequestState& s = m_state[request];
    s.prefilled = true;
    // A resumed prefill's prompt was stored in the pool by its first life: it is not sent there again.
    const bool resumed = s.resumeStarted;
    s.resumeTokens = 0; // the prefix is in the new KV now
    s.resumeStarted = false;
    if (m_prefix) {
        if (!resumed)
            m_prefix->store(request, index, m_instances[index].nodes.front());
    } else if (m_local) {
        m_local->store(request, index);
    }
    --m_instances[index].assigned;
}

std::vector<std::uint32_t> PrefillScheduler::takeAll(std::uint32_t index)
{
    InstanceState& inst = m_instances[index];
    std::vector<std::uint32_t> taken(inst.queue.begin(), inst.queue.end());
    if (inst.running) // the batch's requests left the queue when it started
        taken.insert(taken.end(), inst.batch.begin(), inst.batch.end());
    inst.queue.clear();
    inst.queuedTokens = 0;
    inst.batch.clear();
    inst.batchTokens = 0;
    inst.prefixLoads = 0;
    inst.running = false;
    inst.assigned = 0;
    if (m_local)
        m_local->clear(index);
    return taken;
}

void PrefillScheduler::endBatch(std::uint32_t index)
{
    InstanceState& inst = m_instances[index];
    inst.batch.clear();
    inst.batchTokens = 0;
    inst.running = false;
}

} // namespace coh::core
