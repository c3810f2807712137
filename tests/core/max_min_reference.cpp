#include "max_min_reference.h"

#include <limits>

namespace coh::test {

void MaxMinFairSolver::solve(std::span<const std::span<const std::uint32_t>> flowChannels,
                             std::span<const double> capacities, std::vector<double>& rates)
{
    const std::size_t flows = flowChannels.size();
    rates.assign(flows, 0.0);
    m_frozen.assign(flows, false);
    if (m_remaining.size() < capacities.size()) {
        m_remaining.resize(capacities.size());
        m_unfrozen.resize(capacities.size());
    }
    m_touched.clear();
    if (m_first.size() < capacities.size()) {
        m_first.resize(capacities.size());
        m_fill.resize(capacities.size());
    }
    for (const auto& path : flowChannels)
        for (auto c : path)
            m_unfrozen[c] = 0;
    for (const auto& path : flowChannels)
        for (auto c : path) {
            if (m_unfrozen[c]++ == 0) {
                m_touched.push_back(c);
                m_remaining[c] = capacities[c];
            }
        }
    std::uint32_t offset = 0;
    for (auto c : m_touched) {
        m_first[c] = offset;
        m_fill[c] = offset;
        offset += m_unfrozen[c];
    }
    m_flowsOn.resize(offset);
    for (std::size_t f = 0; f < flows; ++f)
        for (auto c : flowChannels[f])
            m_flowsOn[m_fill[c]++] = static_cast<std::uint32_t>(f);

    std::size_t left = 0;
    for (std::size_t f = 0; f < flows; ++f) {
        if (flowChannels[f].empty()) {
            // A local flow uses no link: it is not rate limited by the network.
            rates[f] = std::numeric_limits<double>::infinity();
            m_frozen[f] = true;
        } else {
            ++left;
        }
    }

    while (left > 0) {
        // The bottleneck is the channel whose equal share is smallest.
        double share = std::numeric_limits<double>::infinity();
        std::uint32_t bottleneck = 0;
        for (auto c : m_touched) {
            if (m_unfrozen[c] == 0)
                continue;
            // Rounding may leave a saturated channel a hair below zero; a share is never negative.
            double s = m_remaining[c] > 0 ? m_remaining[c] / m_unfrozen[c] : 0.0;
            if (s < share) {
                share = s;
                bottleneck = c;
            }
        }
        // Every unfrozen flow on the bottleneck gets the same share, so the order they are frozen in does not
        // change any channel's remaining capacity.
        const std::uint32_t end = m_fill[bottleneck];
        for (std::uint32_t i = m_first[bottleneck]; i < end; ++i) {
            const std::uint32_t f = m_flowsOn[i];
            if (m_frozen[f])
                continue;
            rates[f] = share;
            m_frozen[f] = true;
            --left;
            for (auto c : flowChannels[f]) {
                m_remaining[c] -= share;
                --m_unfrozen[c];
            }
        }
    }
}

} // namespace coh::test
