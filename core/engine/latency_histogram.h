#pragma once
// A log-linear histogram (HDR style, ~0.1% relative resolution) for values too many to keep, such as every
// inter-token gap of a long run. Constant memory, O(1) insert.
#include "core/engine/run_result.h"

#include <bit>
#include <cstdint>
#include <vector>

namespace coh::core {

class LatencyHistogram {
  public:
    LatencyHistogram()
        : m_counts(kBins, 0)
    {
    }

    void add(SimTime value, std::uint64_t count = 1)
    {
        if (count == 0)
            return;
        const auto v = static_cast<std::uint64_t>(value < 0 ? 0 : value);
        m_counts[binOf(v)] += count;
        m_total += count;
        m_sum += static_cast<double>(v) * static_cast<double>(count);
        if (v > m_max)
            m_max = v;
    }

    std::uint64_t count() const { return m_total; }
    // Quantile q in [0, 1] as the midpoint of the bin holding it (exact below 1024 ns).
    double quantile(double q) const;
    // Summary in milliseconds, like the per-request distributions.
    Distribution toDistributionMs() const;

  private:
    static constexpr unsigned kSubBits = 10;
    static constexpr std::uint64_t kSub = 1ull << kSubBits; // values below this are exact
    static constexpr std::size_t kBins = kSub + 64 * (kSub / 2);

    static std::size_t binOf(std::uint64_t v)
    {
        if (v < kSub)
            return static_cast<std::size_t>(v);
        const unsigned shift = static_cast<unsigned>(std::bit_width(v)) - kSubBits;
        const std::uint64_t mantissa = v >> shift; // in [kSub/2, kSub)
        return kSub + (shift - 1) * (kSub / 2) + static_cast<std::size_t>(mantissa - kSub / 2);
    }
    static double midpointOf(std::size_t bin);

    std::vector<std::uint64_t> m_counts;
    std::uint64_t m_total = 0;
    double m_sum = 0;
    std::uint64_t m_max = 0;
};

} // namespace coh::core
