#include "core/serving/device_sharing.h"

#include <algorithm>

namespace coh::core {

DeviceSharing::DeviceSharing(const std::vector<InstanceState>& instances, std::size_t nodeCount)
    : m_instances(instances)
    , m_nodeBusy(nodeCount, 0)
    , m_nodeWaiters(nodeCount)
    , m_waiting(instances.size(), 0)
{
    std::vector<std::uint32_t> instancesPerNode(nodeCount, 0);
    for (const auto& inst : instances)
        for (auto n : inst.nodes)
            m_shared |= ++instancesPerNode[n] > 1;
}

bool DeviceSharing::claimShared(std::uint32_t index)
{
    const InstanceState& inst = m_instances[index];
    for (auto n : inst.nodes) {
        if (m_nodeBusy[n]) {
            if (!m_waiting[index]) {
                m_waiting[index] = 1;
                m_nodeWaiters[n].push_back(index);
            }
            return false;
        }
    }
    m_waiting[index] = 0;
    for (auto n : inst.nodes)
        m_nodeBusy[n] = 1;
    return true;
}

std::vector<std::uint32_t> DeviceSharing::takeWaiters(std::uint32_t index)
{
    std::vector<std::uint32_t> waiters;
    for (auto n : m_instances[index].nodes) {
        m_nodeBusy[n] = 0;
        waiters.insert(waiters.end(), m_nodeWaiters[n].begin(), m_nodeWaiters[n].end());
        m_nodeWaiters[n].clear();
    }
    std::stable_sort(waiters.begin(), waiters.end(), [&](auto a, auto b) {
        return m_instances[a].role == InstanceRole::Prefill && m_instances[b].role != InstanceRole::Prefill;
    });
    return waiters;
}

} // namespace coh::core
