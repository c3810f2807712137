#pragma once
// What the real backend's benchmarks share: wall time on the steady clock, and the median of repeated rounds.
#include <algorithm>
#include <chrono>
#include <vector>

namespace coh::core::real {

using BenchClock = std::chrono::steady_clock;

// Nanoseconds since `start`.
inline double nsSince(BenchClock::time_point start)
{
    return static_cast<double>(std::chrono::duration_cast<std::chrono::nanoseconds>(BenchClock::now() - start).count());
}

// The middle value (the upper one of an even count); 0 for none.
inline double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() / 2];
}

} // namespace coh::core::real
