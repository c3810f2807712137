#pragma once
// When a real backend's copy lands in simulated time (docs/real-backend.md#copies-of-one-pair-queue): the copies from
// one sender to one receiver are made one after another, as the simulator's profiled topology gives each such pair one
// link whose bandwidth they share; copies of other pairs overlap freely. (One queue per receiver, as its worker or
// stream makes every copy into it, held a control message behind another sender's bulk copy: tried and not kept.)
// Without it every copy landed at its send time plus its own copy's time, as if it had had the path to itself.
#include "core/sim/time.h"

#include <algorithm>
#include <cstdint>
#include <unordered_map>

namespace coh::core::real {

class PairQueue {
  public:
    struct Slot {
        SimTime start = 0; // when the pair's earlier copies have landed, or `now`
        SimTime end = 0;   // when it lands
    };
    // A copy from `src` to `dst` sent at `now` that takes `took`: it starts once the pair's last copy has landed.
    Slot take(std::uint32_t src, std::uint32_t dst, SimTime now, SimTime took)
    {
        SimTime& landsAt = m_landsAt[(std::uint64_t{src} << 32) | dst];
        const SimTime start = std::max(now, landsAt);
        const Slot slot{start, addTime(start, took, "a queued copy")};
        landsAt = slot.end;
        if (slot.start > now) {
            ++m_waited;
            m_waitNs += static_cast<double>(slot.start - now);
        }
        return slot;
    }
    // Copies that waited for their pair's earlier ones, and how long they waited in all.
    std::uint64_t waited() const { return m_waited; }
    double waitNs() const { return m_waitNs; }

  private:
    std::unordered_map<std::uint64_t, SimTime> m_landsAt; // per directed pair: when its last copy lands
    std::uint64_t m_waited = 0;
    double m_waitNs = 0;
};

} // namespace coh::core::real
