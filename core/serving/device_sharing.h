#pragma once
// Instances that share a node (role "both" puts a prefill and a decode instance on one device) take turns on it:
// an instance claims all of its nodes for an iteration and releases them after; a claim that finds a node busy
// waits, and the release hands the device to the waiters, prefill first (as vLLM schedules).
#include "core/serving/instance_state.h"

#include <cstdint>
#include <vector>

namespace coh::core {

class DeviceSharing {
  public:
    DeviceSharing(const std::vector<InstanceState>& instances, std::size_t nodeCount);

    // True when the instance holds its nodes now; otherwise it waits for them.
    bool claim(std::uint32_t instance) { return !m_shared || claimShared(instance); }

    // Frees the instance's nodes and calls start(waiter) for each instance that waited on them: prefill first,
    // then in the order they began waiting. A waiter that finds a node taken again (by an earlier waiter) waits
    // again.
    template <class Start> void release(std::uint32_t instance, Start&& start)
    {
        if (!m_shared)
            return;
        for (auto waiter : takeWaiters(instance)) {
            m_waiting[waiter] = 0;
            start(waiter);
        }
    }

  private:
    bool claimShared(std::uint32_t instance);
    std::vector<std::uint32_t> takeWaiters(std::uint32_t instance);

    const std::vector<InstanceState>& m_instances;
    bool m_shared = false; // some node has more than one instance; otherwise every claim succeeds
    std::vector<std::uint8_t> m_nodeBusy;
    std::vector<std::vector<std::uint32_t>> m_nodeWaiters;
    std::vector<std::uint8_t> m_waiting; // per instance: queued on a node's waiters
};

} // namespace coh::core
