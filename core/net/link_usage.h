#pragma once
// Bytes carried by each link direction, per fixed time bucket: the per-link utilisation time series.
#include "core/sim/time.h"

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

    SimTime interval() const { return m_interval; }
    double totalBytes(std::uint32_t channel) const { return m_total[channel]; }
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

    SimTime m_interval;
    std::vector<double> m_total;
    std::vector<std::vector<double>> m_buckets;
    std::vector<Current> m_current;
};

} // namespace coh::core
