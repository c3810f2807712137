#include "core/serving/decode_scheduler.h"

#include "core/serving/serving_events.h"

#include <algorithm>

namespace coh::core {

DecodeScheduler::DecodeScheduler(Simulator& sim, ComputeCost& compute, std::span<InstanceState> instances,
                                 std::span<RequestMetrics> metrics, std::span<RequestState> state, KvMemory& kv,
                                 Reservoir<DecodeIterationRecord>& iterations, std::uint32_t blockTokens,
                                 KvTiers* tiers)
    : m_sim(sim)
    , m_compute(compute)
    , m_instances(instances)
    , m_metrics(metrics)
    , m_state(state)
    , m_kv(kv)
    , m_iterations(iterations)
    , m_blockTokens(blockTokens)
    , m_tiers(tiers)
{
    if (m_tiers)
        for (std::uint32_t i = 0; i < m_instances.size(); ++i)
            m_instances[i].kvBlocksBudget = m_instances[i].kvBlocksTotal + m_tiers->blocksBelow(i);
}

void DecodeScheduler::enqueue(std::uint32_t request, std::uint32_t index)
{
    m_metrics[request].decodeInstance = index;
    m_instances[index].admission.push_back(request);
    ++m_instances[index].assigned;
}

std::uint32_t DecodeScheduler::blocksFor(std::uint32_t request) const
{
    const std::uint64_t tokens = std::uint64_t{m_metrics[request].promptTokens} + m_metrics[request].outputTokens;
    return static_cast<std::uint32_t>((tokens + m_blockTokens - 1) / m_blockTokens);
}

void DecodeScheduler::tryAdmit(std::uint32_t index)
{
    InstanceState& inst = m_instances[index];
    if (inst.down) // its requests wait until the failure is detected and they are routed elsewhere
        return;
    if (m_tiers) {
        // Offloaded sequences come back before anything new is admitted (as vLLM's swapped queue does), and
        // nothing is admitted while a fetch is under way (it would take the room the fetch left for growth).
        fetchOffloaded(index);
        if (!inst.offloaded.empty() || inst.fetching > 0)
            return;
    }
    // FIFO admission: KV for the whole sequence (prompt + output) is reserved up front, so a running
    // sequence is never preempted. A request that could never fit is rejected and counted. With tiers, a
    // sequence reserves what its first step needs, and admission stops where the sequences' final sizes would
    // exceed HBM plus the instance's share of the tiers, so an offload always finds room.
    while (!inst.admission.empty()) {
        const std::uint32_t r = inst.admission.front();
        const std::uint32_t need = blocksFor(r);
        if (need > inst.kvBlocksTotal) {
            inst.admission.pop_front();
            --inst.assigned;
            ++m_rejected;
            m_kv.release(m_state[r].kv); // what its prefill wrote is dead: its copies go
            continue;
        }
        std::uint32_t reserve = need;
        bool promised = false;
        if (m_tiers) {
            if (inst.kvBlocksCommitted + need > inst.kvBlocksBudget)
                break;
            // Beyond what HBM holds, a sequence is admitted only with room below for all of it kept free (promised),
            // so sequences that outgrow HBM always have somewhere to go.
            if (inst.kvBlocksCommitted + need > inst.kvBlocksTotal) {
                if (inst.kvBlocksPromised + need > inst.kvBlocksBudget - inst.kvBlocksTotal)
                    break;
                promised = true;
            }
            reserve = std::min(need, blocksAt(std::uint64_t{kvTokens(r)} + 1));
        }
        if (reserve > inst.kvBlocksFree)
            break;
        inst.admission.pop_front();
        inst.kvBlocksFree -= reserve;
        inst.kvBlocksCommitted += need;
        if (promised) {
            inst.kvBlocksPromised += need;
            m_state[r].promised = true;
        }
        m_state[r].blocksReserved = reserve;
        m_state[r].admitOrder = m_admissions++;
        if (m_state[r].emitted == 0) // after the first token a recovery does not rewrite the TTFT's parts
            m_metrics[r].transferStart = m_sim.now();
        m_state[r].heldSlot = static_cast<std::uint32_t>(inst.held.size());
        inst.held.push_back(r);
        m_state[r].acquiring = true;
        m_kv.acquireForDecode(m_state[r].kv, index, kvTokens(r));
    }
}

void DecodeScheduler::onKvReady(std::uint32_t request)
{
    if (m_state[request].emitted == 0)
        m_metrics[request].kvReady = m_sim.now();
    m_state[request].readyAt = m_sim.now();
    m_state[request].kvArrived = true;
    const std::uint32_t d = m_metrics[request].decodeInstance;
    InstanceState& inst = m_instances[d];
    if (m_tiers) {
        m_tiers->onKvReady(m_state[request].kv, d, kvTokens(request) / m_blockTokens, blocksFor(request));
    }
    inst.ready.push_back(request);
    // KV of several requests often lands in the same instant: the kick's priority class puts it behind the
    // instant's deliveries, so all of them join one batch.
    if (!inst.running && !inst.kickPending) {
        inst.kickPending = true;
        m_sim.scheduleIn(0, serving_event::DecodeKick, d);
    }
}

bool DecodeScheduler::start(std::uint32_t index)
{
    InstanceState& inst = m_instances[index];
    // Continuous batching: sequences whose KV is ready join at this iteration boundary.
    while (!inst.ready.empty() && inst.active.size() < inst.maxBatchSize) {
        const std::uint32_t r = inst.ready.front();
        inst.ready.pop_front();
        joinBatch(inst, r);
    }
    inst.running = true;
    inst.stepStart = m_sim.now();
    inst.stepTransfer = 0;
    inst.stepsWaiting = 0;
    inst.computeArmed = false;
    if (m_tiers) {
        makeRoom(inst, index);
        if (inst.active.empty() && inst.stepsWaiting == 0) {
            // Every sequence waits for blocks a fetch under way holds: nothing runs until it is back.
            inst.running = false;
            return false;
        }
    }
    for (auto r : inst.active)
        if (!m_kv.beginDecodeStep(m_state[r].kv, index, kvTokens(r) + 1))
            ++inst.stepsWaiting;
    inst.computeArmed = true;
    if (inst.stepsWaiting == 0)
        runCompute(inst, index);
    return true;
}

void DecodeScheduler::joinBatch(InstanceState& inst, std::uint32_t r)
{
    inst.active.push_back(r);
    // A sequence back from a tier attends over what it had generated too.
    inst.contextTokens += m_metrics[r].promptTokens + m_state[r].generated;
    if (!m_state[r].decoding) {
        m_state[r].decoding = true;
        m_metrics[r].decodeStart = m_sim.now();
    }
}

void DecodeScheduler::onStepReady(std::uint32_t request)
{
    const std::uint32_t d = m_metrics[request].decodeInstance;
    InstanceState& inst = m_instances[d];
    if (--inst.stepsWaiting == 0) {
        // The last sequence to become ready ended the batch's wait; its data's wire time is the transfer part.
        inst.stepTransfer = m_kv.lastStepTransfer(m_state[request].kv);
        runCompute(inst, d);
    }
}

void DecodeScheduler::runCompute(InstanceState& inst, std::uint32_t index)
{
    // The whole batch waits for its slowest sequence's coherence, then computes together.
    m_contexts.clear();
    m_staleBlocks.clear();
    m_kvSequences.clear();
    if (m_compute.wantsContexts())
        for (const std::uint32_t r : inst.active) {
            m_contexts.push_back(m_metrics[r].promptTokens + m_state[r].generated);
            m_staleBlocks.push_back(m_kv.stepStaleBlocks(m_state[r].kv));
            m_kvSequences.push_back(m_state[r].kv);
        }
    inst.stepCompute = m_compute.decode(inst, {m_contexts, m_staleBlocks, m_kvSequences});
    m_sim.scheduleIn(inst.stepCompute, serving_event::DecodeDone, index, inst.generation);
}

void DecodeScheduler::onIterationDone(std::uint32_t index)
{
    InstanceState& inst = m_instances[index];
    const SimTime now = m_sim.now();
    m_iterations.add({inst.stepStart, now - inst.stepCompute, now, index,
                      static_cast<std::uint32_t>(inst.active.size()), inst.contextTokens});
    bool freed = false;
    for (std::size_t i = 0; i < inst.active.size();) {
        const std::uint32_t r = inst.active[i];
        RequestState& s = m_state[r];
        RequestMetrics& m = m_metrics[r];
        if (s.generated < s.emitted) {
            // Catching up after a restore from a lagging copy: the token was sent before; only its KV is made again.
        } else if (s.emitted == 0) {
            m.firstToken = now;
        } else {
            m_interTokenGaps.add(now - s.lastToken);
            const SimTime wait = now - inst.stepStart - inst.stepCompute;
            const SimTime transfer = std::min(inst.stepTransfer, wait);
            m.decodeCompute += inst.stepCompute;
            m.decodeTransfer += transfer;
            m.decodeStall += wait - transfer;
        }
        if (++s.generated > s.emitted) {
            s.emitted = s.generated;
            s.lastToken = now;
        }
        ++inst.contextTokens;
        if (m_tiers && s.generated < m.outputTokens && (m.promptTokens + s.generated) % m_blockTokens == 0)
            m_tiers->onBlockFilled(s.kv, index, (m.promptTokens + s.generated) / m_blockTokens);
        if (s.generated >= m.outputTokens) {
            inst.contextTokens -= m.promptTokens + s.generated;
            finish(r, inst);
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
    // With tiers, offloaded sequences may come back whenever HBM has room, not only when one finishes.
    if (freed || (m_tiers && !inst.offloaded.empty()))
        tryAdmit(index);
}

void DecodeScheduler::finish(std::uint32_t request, InstanceState& inst)
{
    m_metrics[request].finish = m_sim.now();
    const SequenceStaleness stale = m_kv.staleness(m_state[request].kv);
    m_metrics[request].staleReads += stale.staleReads; // after a failure: its earlier lives' too
    m_metrics[request].staleSteps += stale.staleSteps;
    unhold(request, inst);
    ++m_finished;
    m_kv.release(m_state[request].kv);
    if (m_tiers)
        m_tiers->release(m_state[request].kv);
}

void DecodeScheduler::unhold(std::uint32_t request, InstanceState& inst)
{
    inst.kvBlocksFree += m_state[request].blocksReserved;
    inst.kvBlocksCommitted -= blocksFor(request);
    if (m_state[request].promised)
        inst.kvBlocksPromised -= blocksFor(request);
    // Swap-remove from the held sequences; the one moved takes the freed slot.
    const std::uint32_t slot = m_state[request].heldSlot;
    inst.held[slot] = inst.held.back();
    m_state[inst.held[slot]].heldSlot = slot;
    inst.held.pop_back();
    --inst.assigned;
}

std::vector<std::uint32_t> DecodeScheduler::takeAll(std::uint32_t index)
{
    InstanceState& inst = m_instances[index];
    std::vector<std::uint32_t> taken(inst.held.begin(), inst.held.end());
    taken.insert(taken.end(), inst.admission.begin(), inst.admission.end());
    inst.admission.clear();
    inst.held.clear();
    inst.ready.clear();
    inst.active.clear();
    inst.offloaded.clear();
    inst.contextTokens = 0;
    inst.kvBlocksFree = inst.kvBlocksTotal;
    inst.kvBlocksCommitted = 0;
    inst.kvBlocksPromised = 0;
    inst.fetching = 0;
    inst.running = false;
    inst.computeArmed = false;
    inst.stepsWaiting = 0;
    inst.assigned = 0;
    return taken;
}

void DecodeScheduler::withdraw(std::uint32_t request)
{
    InstanceState& inst = m_instances[m_metrics[request].decodeInstance];
    if (m_state[request].acquiring) {
        unhold(request, inst);
        return;
    }
    inst.admission.erase(std::find(inst.admission.begin(), inst.admission.end(), request));
    --inst.assigned;
}

} // namespace coh::core
