#include "core/net/link_usage.h"

#include <algorithm>

namespace coh::core {

LinkUsage::LinkUsage(std::size_t channels, SimTime interval)
    : m_interval(interval > 0 ? interval : kSecond)
    , m_total(channels, 0.0)
    , m_buckets(channels)
{
}

void LinkUsage::add(std::uint32_t channel, SimTime from, SimTime to, double bytesPerNs)
{
    if (to <= from || bytesPerNs <= 0)
        return;
    m_total[channel] += bytesPerNs * static_cast<double>(to - from);
    auto& series = m_buckets[channel];
    const auto last = static_cast<std::size_t>((to - 1) / m_interval);
    if (series.size() <= last)
        series.resize(last + 1, 0.0);
    // Split the span at bucket boundaries; spans are short, so this loop runs once or twice.
    for (SimTime t = from; t < to;) {
        const auto bucket = static_cast<std::size_t>(t / m_interval);
        const SimTime end = std::min<SimTime>(to, static_cast<SimTime>(bucket + 1) * m_interval);
        series[bucket] += bytesPerNs * static_cast<double>(end - t);
        t = end;
    }
}

void LinkUsage::addAt(std::uint32_t channel, SimTime at, double bytes)
{
    m_total[channel] += bytes;
    auto& series = m_buckets[channel];
    const auto bucket = static_cast<std::size_t>(at / m_interval);
    if (series.size() <= bucket)
        series.resize(bucket + 1, 0.0);
    series[bucket] += bytes;
}

} // namespace coh::core
