#pragma once
// Simulated time: integer nanoseconds, so runs are exact and deterministic across platforms.
#include <cstdint>
#include <limits>

namespace coh::core {

using SimTime = std::int64_t;

inline constexpr SimTime kNanosecond = 1;
inline constexpr SimTime kMicrosecond = 1'000;
inline constexpr SimTime kMillisecond = 1'000'000;
inline constexpr SimTime kSecond = 1'000'000'000;
inline constexpr SimTime kTimeInfinity = std::numeric_limits<SimTime>::max();

constexpr double toSeconds(SimTime t) { return static_cast<double>(t) * 1e-9; }
constexpr double toMilliseconds(SimTime t) { return static_cast<double>(t) * 1e-6; }

} // namespace coh::core
