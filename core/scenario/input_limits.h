#pragma once
// What one run accepts. Each limit is checked before anything is allocated for it, and refused with an
// InputError naming the field and the limit, so no input can exhaust memory or overflow the clock.
// docs/reliability.md gives the memory each one costs.
#include "core/sim/time.h"

#include <cstdint>

namespace coh::core {

// Requests in one run (synthetic `requests`, or trace rows read): each costs about 0.5 KB while running.
inline constexpr std::uint32_t kMaxRequests = 10'000'000;
// Nodes and links of one topology.
inline constexpr std::uint32_t kMaxNodes = 10'000;
inline constexpr std::uint32_t kMaxLinks = 100'000;
// A trace file is read whole; beyond this it is refused before reading.
inline constexpr std::uint64_t kMaxTraceFileBytes = std::uint64_t{2} << 30;
// The longest single step the engine accepts: one serving iteration, or one KV block over one link. A day is
// far beyond any real hardware; a longer step means a unit typo (FLOP/s for TFLOP/s, B/s for GB/s).
inline constexpr SimTime kMaxStepTime = 86'400 * kSecond;
// A gamma arrival process's coefficient of variation: its shape is 1/cv^2, and its gaps stop being numbers long
// before a double's range ends; 0.001 is all but constant, 1000 one burst.
inline constexpr double kMinArrivalCv = 1e-3;
inline constexpr double kMaxArrivalCv = 1e3;

} // namespace coh::core
