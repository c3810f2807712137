#pragma once
// What a transport sent between each node's decode steps: both computes keep their steps by it
// (ComputeCost::watchTraffic), a real run's measured steps and the simulator's costed ones counted alike
// (docs/real-backend.md#a-step-after-the-machines-other-traffic).
#include "core/net/transport.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace coh::core {

class TrafficSinceStep {
  public:
    void watch(const Transport& transport) { m_transport = &transport; }
    // At `node`'s decode step: the bytes sent since its step before, none before its first (or with no transport
    // watched); the step is noted either way.
    std::optional<double> step(std::uint32_t node)
    {
        if (!m_transport)
            return std::nullopt;
        if (m_sentAtLastStep.size() <= node)
            m_sentAtLastStep.resize(node + 1, -1);
        const double sent = m_transport->bytesSent();
        const double before = m_sentAtLastStep[node];
        m_sentAtLastStep[node] = sent;
        if (before < 0)
            return std::nullopt;
        return sent - before;
    }

  private:
    const Transport* m_transport = nullptr;
    std::vector<double> m_sentAtLastStep; // per node: what had been sent at its last step; -1 before its first
};

} // namespace coh::core
