// DecodeScheduler's part under KV tiers (serving.kv_tiers): paged growth of each sequence's HBM blocks, the choice
// of the sequence to take off HBM when a step needs a block HBM does not have, and the way back. A victim's blocks
// are given to the growing sequences at once, but the step waits until the victim's offload has written what it
// had to (its wait counts as the step's transfer time), as a swap-out must finish before its blocks are reused.
#include "core/serving/decode_scheduler.h"

#include "core/serving/serving_events.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

namespace coh::core {

std::uint32_t DecodeScheduler::growth(std::uint32_t request) const
{
    const std::uint32_t need =
        blocksAt(std::uint64_t{m_metrics[request].promptTokens} + m_state[request].generated + 1);
    return need > m_state[request].blocksReserved ? need - m_state[request].blocksReserved : 0;
}

std::int64_t DecodeScheduler::pickVictim(const InstanceState& inst, std::uint32_t index, std::uint64_t needed) const
{
    std::int64_t best = -1;
    const auto better = [&](std::uint32_t a, std::uint32_t b) {
        const RequestState& x = m_state[a];
        const RequestState& y = m_state[b];
        if (m_tiers->eviction() == TierEviction::Largest) {
            if (x.blocksReserved != y.blocksReserved)
                return x.blocksReserved > y.blocksReserved;
        } else {
            // Least recently used: the oldest last token (or arrival of its KV, for one that has not decoded).
            const SimTime ux = std::max(x.lastToken, x.readyAt), uy = std::max(y.lastToken, y.readyAt);
            if (ux != uy)
                return ux < uy;
        }
        return x.admitOrder > y.admitOrder; // ties: the latest admitted goes first (vLLM preempts the newest)
    };
    const auto consider = [&](std::uint32_t r, bool active) {
        if (m_state[r].place != KvPlace::Hbm || m_state[r].blocksReserved == 0 ||
            !m_tiers->canOffload(m_state[r].kv, index, m_state[r].blocksReserved))
            return;
        // Offloading a running sequence only for its own next block gains nothing: it sits the step out instead.
        if (active && needed - growth(r) <= inst.kvBlocksFree)
            return;
        if (best < 0 || better(r, static_cast<std::uint32_t>(best)))
            best = r;
    };
    for (auto r : inst.active)
        consider(r, true);
    for (auto r : inst.ready)
        consider(r, false);
    return best;
}

void DecodeScheduler::offload(InstanceState& inst, std::uint32_t index, std::uint32_t r)
{
    RequestState& s = m_state[r];
    if (const auto it = std::find(inst.active.begin(), inst.active.end(), r); it != inst.active.end()) {
        inst.contextTokens -= m_metrics[r].promptTokens + s.generated;
        inst.active.erase(it);
    } else {
        inst.ready.erase(std::find(inst.ready.begin(), inst.ready.end(), r));
    }
    // Its blocks go to the growing sequences now; the step waits for the offload (onOffloaded).
    s.place = KvPlace::Offloading;
    s.offloadedAt = m_sim.now();
    // Queued now, not once written: nothing new is admitted into the blocks it is leaving.
    inst.offloaded.push_back(r);
    s.waitCounted = true;
    ++inst.stepsWaiting;
    inst.kvBlocksFree += s.blocksReserved;
    m_tiers->countPreemption();
    m_tiers->offload(s.kv, index, s.blocksReserved, kvTokens(r)); // may call onOffloaded at once
}

void DecodeScheduler::makeRoom(InstanceState& inst, std::uint32_t index)
{
    std::uint64_t needed = 0;
    for (auto r : inst.active)
        needed += growth(r);
    while (needed > inst.kvBlocksFree) {
        const std::int64_t victim = pickVictim(inst, index, needed);
        if (victim < 0)
            break;
        const auto r = static_cast<std::uint32_t>(victim);
        needed -= std::find(inst.active.begin(), inst.active.end(), r) != inst.active.end() ? growth(r) : 0;
        offload(inst, index, r);
    }
    if (needed > inst.kvBlocksFree) {
        // Nothing more fits below HBM: the latest admitted growing sequences sit this step out, holding their
        // blocks, until others finish.
        std::vector<std::uint32_t> growing;
        for (auto r : inst.active)
            if (growth(r) > 0)
                growing.push_back(r);
        std::sort(growing.begin(), growing.end(),
                  [&](std::uint32_t a, std::uint32_t b) { return m_state[a].admitOrder > m_state[b].admitOrder; });
        std::vector<std::uint32_t> satOut;
        for (auto r : growing) {
            if (needed <= inst.kvBlocksFree)
                break;
            needed -= growth(r);
            inst.contextTokens -= m_metrics[r].promptTokens + m_state[r].generated;
            inst.active.erase(std::find(inst.active.begin(), inst.active.end(), r));
            satOut.push_back(r);
        }
        // Their places go to waiting sequences whose next token needs no new block.
        for (auto it = inst.ready.begin(); it != inst.ready.end() && inst.active.size() < inst.maxBatchSize;) {
            if (m_state[*it].place == KvPlace::Hbm && growth(*it) == 0) {
                joinBatch(inst, *it);
                it = inst.ready.erase(it);
            } else {
                ++it;
            }
        }
        for (auto r = satOut.rbegin(); r != satOut.rend(); ++r)
            inst.ready.push_front(*r);
    }
    for (auto r : inst.active) {
        const std::uint32_t g = growth(r);
        m_state[r].blocksReserved += g;
        inst.kvBlocksFree -= g;
    }
}

void DecodeScheduler::checkFinished() const
{
    if (!m_tiers)
        return; // without tiers a sequence never waits on anything but the KV path, which checks itself
    for (const InstanceState& inst : m_instances)
        if (!inst.held.empty())
            throw std::runtime_error(fmt::format(
                "the event queue is empty but decode instance '{}' still holds {} sequences that cannot continue: its "
                "HBM ({} blocks) is full and no tier in serving.kv_tiers has room for them; give the tiers more "
                "capacity",
                inst.id, inst.held.size(), inst.kvBlocksTotal));
}

void DecodeScheduler::onOffloaded(std::uint32_t request)
{
    RequestState& s = m_state[request];
    const std::uint32_t d = m_metrics[request].decodeInstance;
    InstanceState& inst = m_instances[d];
    s.place = KvPlace::Offloaded;
    if (!s.waitCounted)
        return;
    s.waitCounted = false;
    if (--inst.stepsWaiting == 0 && inst.computeArmed) {
        // The offload ended the batch's wait: the whole wait was moving its blocks down.
        inst.stepTransfer = m_sim.now() - inst.stepStart;
        runCompute(inst, d);
    }
}

bool DecodeScheduler::fetchOffloaded(std::uint32_t index)
{
    InstanceState& inst = m_instances[index];
    bool fetched = false;
    while (!inst.offloaded.empty()) {
        const std::uint32_t r = inst.offloaded.front();
        // Room for it and for the next block of every sequence in HBM, so that it is not evicted again at once.
        const std::uint64_t need =
            std::uint64_t{m_state[r].blocksReserved} + growth(r) + inst.active.size() + inst.ready.size();
        if (m_state[r].place != KvPlace::Offloaded || need > inst.kvBlocksFree)
            return fetched;
        inst.offloaded.pop_front();
        inst.kvBlocksFree -= m_state[r].blocksReserved;
        m_state[r].place = KvPlace::Fetching;
        ++inst.fetching;
        fetched = true;
        m_tiers->fetch(m_state[r].kv, index);
    }
    return fetched;
}

void DecodeScheduler::onFetched(std::uint32_t request)
{
    RequestState& s = m_state[request];
    RequestMetrics& m = m_metrics[request];
    const SimTime away = m_sim.now() - s.offloadedAt;
    m_tiers->addOffHbm(away);
    // Time off HBM between two tokens is part of TPOT: it counts as stall (waiting for its KV, not computing).
    if (s.generated > 0)
        m.decodeStall += away;
    s.place = KvPlace::Hbm;
    s.readyAt = m_sim.now();
    const std::uint32_t d = m.decodeInstance;
    InstanceState& inst = m_instances[d];
    --inst.fetching;
    inst.ready.push_back(request);
    if (!inst.running && !inst.kickPending) {
        inst.kickPending = true;
        m_sim.scheduleIn(0, serving_event::DecodeKick, d);
    }
}

} // namespace coh::core
