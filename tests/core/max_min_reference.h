#pragma once
// Max-min fair rates by progressive filling over a whole set of flows: raise every flow's rate together until a
// channel saturates, freeze the flows on it, repeat. The textbook form, solving everything from scratch: the
// reference the network's incremental, per-component solve (core/net/flow_network.cpp) is tested against.
#include <cstdint>
#include <span>
#include <vector>

namespace coh::test {

class MaxMinFairSolver {
  public:
    // flowChannels[f] lists the channels flow f crosses; capacities are bytes/ns per channel.
    // Writes rates (bytes/ns) into `rates`. Scratch space is kept between calls, so solving allocates
    // only while the problem grows.
    void solve(std::span<const std::span<const std::uint32_t>> flowChannels, std::span<const double> capacities,
               std::vector<double>& rates);

  private:
    std::vector<double> m_remaining;       // per channel
    std::vector<std::uint32_t> m_unfrozen; // per channel: flows not yet fixed
    std::vector<std::uint32_t> m_touched;  // channels used by at least one flow
    std::vector<bool> m_frozen;            // per flow
    // The flows on each channel (CSR: m_flowsOn[m_first[c] .. m_first[c] + count)), so freezing the flows of a
    // bottleneck visits only those flows instead of every flow once per bottleneck.
    std::vector<std::uint32_t> m_first;
    std::vector<std::uint32_t> m_fill;
    std::vector<std::uint32_t> m_flowsOn;
};

} // namespace coh::test
