#include "core/engine/latency_histogram.h"

#include <cmath>

namespace coh::core {

double LatencyHistogram::midpointOf(std::size_t bin)
{
    if (bin < kSub)
        return static_cast<double>(bin);
    const std::size_t rel = bin - kSub;
    const unsigned shift = static_cast<unsigned>(rel / (kSub / 2)) + 1;
    const double low = std::ldexp(static_cast<double>(kSub / 2 + rel % (kSub / 2)), static_cast<int>(shift));
    return low + std::ldexp(0.5, static_cast<int>(shift));
}

double LatencyHistogram::quantile(double q) const
{
    if (m_total == 0)
        return 0;
    // Nearest rank: the smallest value with at least q * n values at or below it.
    const auto rank = static_cast<std::uint64_t>(std::ceil(q * static_cast<double>(m_total)));
    std::uint64_t seen = 0;
    for (std::size_t b = 0; b < m_counts.size(); ++b) {
        seen += m_counts[b];
        if (seen >= rank && m_counts[b] > 0)
            return std::min(midpointOf(b), static_cast<double>(m_max));
    }
    return static_cast<double>(m_max);
}

Distribution LatencyHistogram::toDistributionMs() const
{
    Distribution d;
    d.count = m_total;
    if (m_total == 0)
        return d;
    d.mean = m_sum / static_cast<double>(m_total) * 1e-6;
    d.p50 = quantile(0.50) * 1e-6;
    d.p90 = quantile(0.90) * 1e-6;
    d.p99 = quantile(0.99) * 1e-6;
    d.max = static_cast<double>(m_max) * 1e-6;
    return d;
}

} // namespace coh::core
