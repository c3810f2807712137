#include "core/engine/node_block_states.h"

#include <algorithm>
#include <array>
#include <bit>

namespace coh::core {

NodeBlockStates::NodeBlockStates(const coherence::Protocol& protocol, std::size_t nodes, SimTime interval)
    : m_interval(seriesBaseWidth(interval))
    , m_covered(seriesEnd(m_interval))
    , m_slots(nodes * protocol.cache.states.size())
{
    for (const auto& state : protocol.cache.states) {
        m_states.push_back(state.name);
        m_counted.push_back(state.holdsData ? 1 : 0);
    }
}

NodeBlockStates::NodeBlockStates(std::vector<std::string> states, std::vector<std::uint8_t> counted, std::size_t nodes,
                                 SimTime interval)
    : m_states(std::move(states))
    , m_counted(std::move(counted))
    , m_interval(seriesBaseWidth(interval))
    , m_covered(seriesEnd(m_interval))
    , m_slots(nodes * m_states.size())
{
}

void NodeBlockStates::coarsenTo(SimTime width) const
{
    if (width <= m_interval)
        return;
    const unsigned times = doublingsBetween(m_interval, width);
    for (Slot& slot : m_slots) {
        mergeBucketPairs(slot.blockNs, times);
        slot.bucket >>= times;
        slot.bucketEnd = bucketEnd(static_cast<SimTime>(slot.bucket) * width, width);
    }
    m_interval = width;
    m_covered = seriesEnd(width);
}

void NodeBlockStates::coarsenSteps(Slot& slot)
{
    // Widths are powers of two, so two times share a cell of 2^k ns exactly when their highest differing bit is
    // below k. One pass counts, per k, the neighbours that first share a cell there; the first width past the
    // current one that leaves at most half of kMaxBlockSteps cells is the one repeated doubling would reach, and one
    // more pass merges to it (cells nest, so merging once keeps what merging at each width in turn keeps).
    std::array<std::size_t, 65> joinAt{}; // [k]: neighbours that first share a cell at 2^k ns
    for (std::size_t i = 1; i < slot.steps.size(); ++i)
        ++joinAt[std::bit_width(static_cast<std::uint64_t>(slot.steps[i - 1].at ^ slot.steps[i].at))];
    std::size_t cells = slot.steps.size();
    unsigned shift = slot.stepShift;
    while (cells > kMaxBlockSteps / 2 && shift < 63) {
        ++shift;
        cells -= joinAt[shift];
    }
    slot.stepShift = shift;
    std::size_t kept = 0;
    for (const BlockCountStep& step : slot.steps) {
        if (kept > 0 && (slot.steps[kept - 1].at >> shift) == (step.at >> shift))
            slot.steps[kept - 1] = step; // later in the same cell: it replaces the earlier one
        else
            slot.steps[kept++] = step;
    }
    slot.steps.resize(kept);
    slot.stepCellEnd = ((slot.steps.back().at >> shift) + 1) << shift;
}

void NodeBlockStates::settle(Slot& slot, SimTime now) const
{
    if (now < slot.since)
        return;
    if (now >= m_covered) [[unlikely]]
        coarsenTo(seriesWidthCovering(m_interval, now));
    // The inline path only runs once a slot holds a count, which this is the first to give it.
    if (slot.blockNs.empty()) {
        slot.blockNs.assign(1, 0.0);
        slot.bucketEnd = m_interval;
    }
    SimTime t = slot.since;
    std::size_t bucket = slot.bucket;
    while (true) {
        const SimTime end = bucketEnd(static_cast<SimTime>(bucket) * m_interval, m_interval);
        if (now < end) {
            slot.blockNs[bucket] += slot.count * static_cast<double>(now - t);
            break;
        }
        slot.blockNs[bucket] += slot.count * static_cast<double>(end - t);
        t = end;
        // A long idle span jumps straight to now's bucket: the ones between held the same count throughout.
        const std::size_t target = static_cast<std::size_t>(now / m_interval);
        if (slot.blockNs.size() <= target)
            slot.blockNs.resize(target + 1, 0.0);
        for (std::size_t b = bucket + 1; b < target; ++b)
            slot.blockNs[b] += slot.count * static_cast<double>(m_interval);
        if (target > bucket + 1)
            t = static_cast<SimTime>(target) * m_interval;
        bucket = target;
    }
    slot.since = now;
    slot.bucket = bucket;
    slot.bucketEnd = bucketEnd(static_cast<SimTime>(bucket) * m_interval, m_interval);
}

std::vector<NodeBlocksSeries> NodeBlockStates::series(SimTime end) const
{
    // The run's grid is the one that covers its end, whatever this series alone needed.
    coarsenTo(seriesWidthCovering(m_interval, end));
    std::vector<NodeBlocksSeries> out;
    for (std::size_t s = 0; s < m_slots.size(); ++s) {
        Slot& slot = m_slots[s];
        if (slot.peak <= 0)
            continue;
        settle(slot, end);
        NodeBlocksSeries series;
        series.node = static_cast<std::uint32_t>(s / m_states.size());
        series.state = m_states[s % m_states.size()];
        series.peakBlocks = slot.peak;
        // Blocks x ns per bucket over the bucket's width: the time-averaged block count. Trailing buckets where
        // nothing was held are left out, as the link series leave out idle time after their last byte.
        const double width = static_cast<double>(m_interval);
        std::size_t last = slot.blockNs.size();
        while (last > 0 && slot.blockNs[last - 1] <= 0)
            --last;
        for (std::size_t b = 0; b < last; ++b)
            series.blocksPerBucket.push_back(slot.blockNs[b] / width);
        series.steps = slot.steps;
        series.stepResolution = SimTime{1} << slot.stepShift;
        out.push_back(std::move(series));
    }
    return out;
}

} // namespace coh::core
