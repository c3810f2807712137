#pragma once
// A cost that grows with bytes, fitted from what was measured: ns = fixedNs + bytes / bytesPerNs, the fixed cost
// clamped at 0. Two fits of the same points:
// - relativeFit(): least squares weighted by 1 / ns^2 (relative error), so that the smallest points set the fixed cost
//   and the largest the bandwidth. Calibration fits its medians with it, one point per size it measured.
// - totalFit(): the relative fit's fixed cost, and the bandwidth that makes the fit's predictions add up to the
//   measured total. A real run fits every copy and decode step it times with it (BackendSummary::copyFit,
//   attentionFit): its points are many and uneven (hundreds of small control copies beside a few large transfers,
//   short steps beside long ones). Weighted by relative error alone, the many small ones would set a bandwidth the
//   large ones, which make up the run's time, do not reach; a plain least squares would let the few large ones set a
//   fixed cost the small ones do not pay (tens of microseconds on a copy of a few bytes).
#include <algorithm>
#include <cstdint>

namespace coh::core {

struct CostFit {
    double fixedNs = 0;
    double bytesPerNs = 0; // GB/s; 0: nothing was fitted
    std::uint64_t points = 0;
    bool measured() const { return bytesPerNs > 0; }
    bool operator==(const CostFit&) const = default;
};

class CostFitSums {
  public:
    void add(double bytes, double ns)
    {
        if (!(ns > 0))
            return;
        const double k = 1.0 / (ns * ns);
        m_w += k;
        m_wx += k * bytes;
        m_wy += k * ns;
        m_wxx += k * bytes * bytes;
        m_wxy += k * bytes * ns;
        m_bytes += bytes;
        m_ns += ns;
        m_fewestBytes = m_points == 0 ? bytes : std::min(m_fewestBytes, bytes);
        m_mostBytes = m_points == 0 ? bytes : std::max(m_mostBytes, bytes);
        ++m_points;
    }
    CostFit relativeFit() const
    {
        const double denominator = m_w * m_wxx - m_wx * m_wx;
        double slope = denominator > 0 ? (m_w * m_wxy - m_wx * m_wy) / denominator : 0;
        double intercept = m_w > 0 ? (m_wy - slope * m_wx) / m_w : 0;
        // A negative fixed cost means the small points are noise next to the large; and points of sizes less than
        // kSpanToTellAFixedCost apart cannot tell a fixed cost from a bandwidth (55 steps of 2 to 4 MiB fitted 533 µs
        // + bytes / 57.8 GB/s, past any memory): fit through the origin.
        if (intercept < 0 || slope <= 0 || !(m_mostBytes >= kSpanToTellAFixedCost * m_fewestBytes)) {
            intercept = 0;
            slope = m_wxx > 0 ? m_wxy / m_wxx : 0;
        }
        return {intercept, slope > 0 ? 1.0 / slope : 0.0, m_points};
    }
    // Where the fixed costs alone would take the whole time, there is none: the total bytes over the total time.
    CostFit totalFit() const
    {
        CostFit fit = relativeFit();
        double overBytes = m_ns - static_cast<double>(m_points) * fit.fixedNs;
        if (!(overBytes > 0)) {
            fit.fixedNs = 0;
            overBytes = m_ns;
        }
        fit.bytesPerNs = m_bytes > 0 && overBytes > 0 ? m_bytes / overBytes : 0;
        return fit;
    }

    // How far apart the largest and the smallest point's bytes must be for a fit to have a fixed cost.
    static constexpr double kSpanToTellAFixedCost = 4;

  private:
    double m_w = 0, m_wx = 0, m_wy = 0, m_wxx = 0, m_wxy = 0; // weighted by 1 / ns^2
    double m_fewestBytes = 0, m_mostBytes = 0;
    double m_bytes = 0, m_ns = 0;
    std::uint64_t m_points = 0;
};

} // namespace coh::core
