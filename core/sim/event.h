#pragma once
// One pending event: a plain 32-byte value so the queue never allocates per event.
#include "core/sim/time.h"

#include <cstdint>

namespace coh::core {

struct Event {
    SimTime time = 0;
    std::uint64_t seq = 0;  // insertion order: breaks time ties so runs are deterministic
    std::uint32_t kind = 0; // meaning belongs to the handler (a switch, not a virtual call)
    std::uint32_t target = 0;
    std::uint64_t payload = 0;

    // Strict (time, seq) order; seq is unique, so two events never compare equal.
    friend bool operator<(const Event& a, const Event& b)
    {
        return a.time < b.time || (a.time == b.time && a.seq < b.seq);
    }
};

} // namespace coh::core
