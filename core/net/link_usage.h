#pragma once
// Bytes carried by each link direction, per time bucket: the per-link utilisation time series. Buckets are
// `interval` wide from time 0 until the traffic's span would need more than kMaxSeriesBuckets of them; then the
// width doubles (adjacent pairs merge), so a channel never holds more than that many (series_buckets.h).
#include "core/net/series_buckets.h"

#include <cstdint>
#include <vector>

namespace coh::core {

class LinkUsage {
  public:
    LinkUsage(std::size_t channels, SimTime interval);

    // `bytesPerNs` flowed on `channel` throughout [from, to).
    void add(std::uint32_t channel, SimTime from, SimTime to, double bytesPerNs);
    // `bytes` crossed `channel` within the nanosecond starting at `at` (a message too small to fair-share).
    void addAt(std::uint32_t channel, SimTime at, double bytes);
    // Widens the buckets to `width`, the current interval doubled zero or more times (the run's final grid).
    void coarsenTo(SimTime width);

    // The buckets' width now: the scenario's interval, doubled as often as the span required.
    SimTime interval() const { return m_interval; }
    double totalBytes(std::uint32_t channel) const { return m_total[channel]; }
    // From time 0 up to the channel's last bucket with traffic; at most kMaxSeriesBuckets.
    const std::vector<double>& buckets(std::uint32_t channel) const { return m_buckets[channel]; }
    std::size_t channels() const { return m_total.size(); }

  private:
    // The bucket `channel` was last added to, [start, start + interval): most additions land in it again, and
    // finding a bucket otherwise costs a 64-bit division.
    struct Current {
        SimTime start = -1;
        std::size_t index = 0;
    };
    double& bucketAt(std::uint32_t channel, SimTime t);
    // Doubles the width until `t` falls within the first kMaxSeriesBuckets buckets.
    void cover(SimTime t) { coarsenTo(seriesWidthCovering(m_interval, t)); }

    SimTime m_interval;
    SimTime m_covered; // the first time past the grid's last bucket; reaching it coarsens
    std::vector<double> m_total;
    std::vector<std::vector<double>> m_buckets;
    std::vector<Current> m_current;
};

} // namespace coh::core
