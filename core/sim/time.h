#pragma once
// Simulated time: integer nanoseconds, so runs are exact and deterministic across platforms.
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

namespace coh::core {

using SimTime = std::int64_t;

inline constexpr SimTime kNanosecond = 1;
inline constexpr SimTime kMicrosecond = 1'000;
inline constexpr SimTime kMillisecond = 1'000'000;
inline constexpr SimTime kSecond = 1'000'000'000;
inline constexpr SimTime kTimeInfinity = std::numeric_limits<SimTime>::max();
// The longest time, in ns as a double, that a reader accepts: 2^63 ns is about 292 years, and a double just below it
// still converts to SimTime without overflow.
inline constexpr double kClockLimitNs = 9.2e18;

// A time computed from input that does not fit in SimTime (2^63 ns, about 292 years): a bandwidth or FLOP/s
// far too small, a time scale far too large. The engine turns it into an InputError for the scenario.
class TimeOverflow : public std::overflow_error {
  public:
    using std::overflow_error::overflow_error;
};

// `ns` rounded up to whole nanoseconds. Throws TimeOverflow, saying what `what` was, when it does not fit.
inline SimTime ceilToSimTime(double ns, const char* what)
{
    // 2^63 as a double; every double below it converts exactly to int64.
    if (!(ns < 9223372036854775808.0) || !(ns > -9223372036854775808.0))
        throw TimeOverflow(std::string(what) + " takes " + std::to_string(ns * 1e-9) +
                           " s, beyond the 64-bit nanosecond clock (about 292 years)");
    return static_cast<SimTime>(std::ceil(ns));
}

// `ns` rounded to the nearest nanosecond. Throws TimeOverflow as ceilToSimTime does.
inline SimTime roundToSimTime(double ns, const char* what)
{
    return ceilToSimTime(std::round(ns), what);
}

// t + delay, or TimeOverflow when the sum passes the clock's end.
inline SimTime addTime(SimTime t, SimTime delay, const char* what)
{
    SimTime sum = 0;
    if (__builtin_add_overflow(t, delay, &sum))
        throw TimeOverflow(std::string(what) + " ends beyond the 64-bit nanosecond clock (about 292 years)");
    return sum;
}

constexpr double toSeconds(SimTime t)
{
    return static_cast<double>(t) * 1e-9;
}
constexpr double toMilliseconds(SimTime t)
{
    return static_cast<double>(t) * 1e-6;
}

} // namespace coh::core
