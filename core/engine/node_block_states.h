#pragma once
// How many KV blocks each node's caches hold, by protocol state, over time: the per-node picture the replay
// draws next to each device. A block counts at a node while the node's copy is in a state that holds data
// (M, O, E, S and their transient forms). Two views of the same counts: integrated over the link-series buckets,
// so each bucket holds the time-averaged number of blocks (as the link series hold time-averaged bytes), and the
// count itself as a step function (what the replay shows at its cursor). The buckets follow the link series' grid
// (core/net/series_buckets.h): at most kMaxSeriesBuckets, the width doubling when the span needs it. The steps
// are exact until a slot has more than kMaxBlockSteps of them; then only the last change per cell of a doubling
// width is kept, so memory stays bounded and a value is never shown before it happened. Every protocol step
// that changes a copy's state lands here, so the common case is a few inline instructions.
#include "core/coherence/protocol_table.h"
#include "core/engine/run_result.h"
#include "core/net/series_buckets.h"

#include <cstdint>
#include <string>
#include <vector>

namespace coh::core {

inline constexpr std::size_t kMaxBlockSteps = 4096; // per node and state

class NodeBlockStates {
  public:
    NodeBlockStates(const coherence::Protocol& protocol, std::size_t nodes, SimTime interval);
    // Named states of which those marked in `counted` hold blocks (e.g. "none" and the memory tiers).
    NodeBlockStates(std::vector<std::string> states, std::vector<std::uint8_t> counted, std::size_t nodes,
                    SimTime interval);

    // `blocks` blocks of one cache at `node` went from state `from` to `to` at `now` (never before the last).
    void change(SimTime now, std::uint32_t node, std::uint8_t from, std::uint8_t to, std::uint32_t blocks)
    {
        if (from == to || blocks == 0)
            return;
        if (m_counted[from])
            add(now, node * m_states.size() + from, -static_cast<double>(blocks));
        if (m_counted[to])
            add(now, node * m_states.size() + to, static_cast<double>(blocks));
    }

    // The series of every (node, state) that ever held a block, integrated up to `end`, in buckets
    // seriesWidthCovering(interval, end) wide: the width the run's link series end with.
    std::vector<NodeBlocksSeries> series(SimTime end) const;
    // The buckets' width now.
    SimTime interval() const { return m_interval; }

  private:
    struct Slot {
        double count = 0;
        double peak = 0;
        SimTime since = 0;           // the count has held since then
        std::size_t bucket = 0;      // the bucket `since` falls in
        SimTime bucketEnd = 0;       // where that bucket ends
        std::vector<double> blockNs; // per bucket: blocks x ns held; empty until the slot first changes
        std::vector<BlockCountStep> steps;
        // Steps keep at most one change per cell of 2^stepShift ns; stepCellEnd is where the last step's cell ends,
        // so a change pays one compare to know whether it replaces that step.
        unsigned stepShift = 0;
        SimTime stepCellEnd = 0;
    };

    void add(SimTime now, std::size_t s, double delta)
    {
        Slot& slot = m_slots[s];
        if (slot.count > 0 && now < slot.bucketEnd) {
            // Same bucket as the span's start: the usual case.
            slot.blockNs[slot.bucket] += slot.count * static_cast<double>(now - slot.since);
            slot.since = now;
        } else {
            settle(slot, now);
        }
        slot.count += delta;
        if (slot.count > slot.peak)
            slot.peak = slot.count;
        // The last change of a cell wins: same instant at width 1, else anything in the same cell. Times never go
        // back, so "in the last step's cell" is "before its end" (0 while there is no step).
        if (now < slot.stepCellEnd) {
            slot.steps.back() = {now, slot.count};
        } else {
            slot.steps.push_back({now, slot.count});
            slot.stepCellEnd = ((now >> slot.stepShift) + 1) << slot.stepShift;
            if (slot.steps.size() > kMaxBlockSteps) [[unlikely]]
                coarsenSteps(slot);
        }
    }
    // Doubles the slot's step width until at most half of kMaxBlockSteps cells hold a change.
    static void coarsenSteps(Slot& slot);
    // Accounts the span [since, now) across bucket boundaries and moves `since` to now.
    void settle(Slot& slot, SimTime now) const;
    // Doubles the width of every slot's buckets until it is `width`, merging adjacent pairs.
    void coarsenTo(SimTime width) const;

    std::vector<std::string> m_states;
    std::vector<std::uint8_t> m_counted; // per state: holds data
    // The grid: settle() widens it (and series() to the run's end), hence mutable with the slots.
    mutable SimTime m_interval;
    mutable SimTime m_covered;         // seriesEnd(m_interval)
    mutable std::vector<Slot> m_slots; // node x state; series() settles them up to its end
};

} // namespace coh::core
