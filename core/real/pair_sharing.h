#pragma once
// When a real backend's copy lands in simulated time (docs/real-backend.md#copies-of-one-pair-share-it): the copies
// from one sender to one receiver share the pair equally, n in flight each going at 1/n of its own measured speed
// (processor sharing), as the simulator's profiled topology gives each such pair one link whose bandwidth its flows
// share max-min. A copy alone lands at its send time plus its measured time; copies sent together land, the shortest
// first, the last once all their times have passed; a control message sent beside a bulk copy is through in about
// twice its own time, not after the bulk copy (the simulator shares only the bytes' part, paying a link's latency
// apart: a microsecond's difference for a control message). Copies of other pairs overlap freely. (First in, first out
// per pair, until 2026-12-07, held a control message behind every bulk copy sent before it on the pair, and a
// sequence's last partial block behind its full ones; one queue per receiver held one behind another sender's copies.)
#include "core/sim/time.h"

#include <cstdint>
#include <unordered_map>
#include <vector>

namespace coh::core::real {

class PairSharing {
  public:
    // When a pair's next copy lands, for a wake at that time; `generation` tells a later wake from one it replaced.
    struct Wake {
        std::uint32_t pair = 0;
        SimTime at = 0;
        std::uint64_t generation = 0;
    };
    // A copy of the pair from `src` to `dst`, sent at `now`, whose own measured time is `took` (>= 1 ns); `token` is
    // the caller's, handed back when it lands. Returns the pair's next wake, which replaces any it had.
    Wake add(std::uint32_t src, std::uint32_t dst, SimTime now, SimTime took, std::uint32_t token);
    // A copy that landed: the caller's token, and how long it took beyond its own measured time.
    struct Landed {
        std::uint32_t token = 0;
        SimTime sent = 0;
        SimTime beyondOwn = 0;
    };
    // At a wake of `pair` at `now`: appends the copies that have landed by now to `landed`, in the order they were
    // sent, and returns true with the pair's next wake in `next` where copies are left. A wake another has replaced
    // (its generation not the pair's) lands nothing.
    bool land(const Wake& wake, SimTime now, std::vector<Landed>& landed, Wake& next);

    // Copies that took longer than their own time (they shared their pair), and by how much in all.
    std::uint64_t shared() const { return m_shared; }
    double beyondOwnNs() const { return m_beyondOwnNs; }

  private:
    struct Copy {
        std::uint32_t token;
        SimTime sent, took;
        double left; // ns of its own time still to go
    };
    struct Pair {
        std::vector<Copy> copies; // in flight, in the order sent
        SimTime at = 0;           // when `left` was last brought up to date
        std::uint64_t generation = 0;
    };
    // Each copy in flight goes at 1/n of its speed from the pair's last update to `now`.
    static void advance(Pair& pair, SimTime now);
    Wake nextWake(std::uint32_t index);

    std::unordered_map<std::uint64_t, std::uint32_t> m_index; // directed pair -> m_pairs
    std::vector<Pair> m_pairs;
    std::uint64_t m_shared = 0;
    double m_beyondOwnNs = 0;
};

} // namespace coh::core::real
