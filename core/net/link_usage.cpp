#include "core/net/link_usage.h"

#include <algorithm>

namespace coh::core {

LinkUsage::LinkUsage(std::size_t channels, SimTime interval)
    : m_interval(seriesBaseWidth(interval))
    , m_covered(seriesEnd(m_interval))
    , m_total(channels, 0.0)
    , m_buckets(channels)
    , m_current(channels)
{
}

void LinkUsage::coarsenTo(SimTime width)
{
    if (width <= m_interval)
        return;
    const unsigned times = doublingsBetween(m_interval, width);
    for (auto& series : m_buckets)
        mergeBucketPairs(series, times);
    for (Current& current : m_current)
        current = Current{};
    m_interval = width;
    m_covered = seriesEnd(width);
}

double& LinkUsage::bucketAt(std::uint32_t channel, SimTime t)
{
    Current& current = m_current[channel];
    if (t < current.start || t - current.start >= m_interval || current.start < 0) {
        if (t >= m_covered) [[unlikely]]
            cover(t);
        current.index = static_cast<std::size_t>(t / m_interval);
        current.start = static_cast<SimTime>(current.index) * m_interval;
        auto& series = m_buckets[channel];
        if (series.size() <= current.index)
            series.resize(current.index + 1, 0.0);
    }
    return m_buckets[channel][current.index];
}

void LinkUsage::add(std::uint32_t channel, SimTime from, SimTime to, double bytesPerNs)
{
    if (to <= from || bytesPerNs <= 0)
        return;
    m_total[channel] += bytesPerNs * static_cast<double>(to - from);
    // Coarsen for the span's end first, so the split below crosses at most kMaxSeriesBuckets boundaries.
    if (to - 1 >= m_covered) [[unlikely]]
        cover(to - 1);
    // Split the span at bucket boundaries; spans are short, so this loop runs once or twice.
    for (SimTime t = from; t < to;) {
        double& bucket = bucketAt(channel, t);
        const SimTime end = std::min<SimTime>(to, bucketEnd(m_current[channel].start, m_interval));
        bucket += bytesPerNs * static_cast<double>(end - t);
        t = end;
    }
}

void LinkUsage::addAt(std::uint32_t channel, SimTime at, double bytes)
{
    m_total[channel] += bytes;
    bucketAt(channel, at) += bytes;
}

} // namespace coh::core
