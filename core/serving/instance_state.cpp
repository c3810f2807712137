#include "core/serving/instance_state.h"

#include "core/base/input_error.h"

namespace coh::core {

std::vector<InstanceState> buildInstances(const Scenario& scenario, const CostModel& cost)
{
    const auto& serving = scenario.serving;
    const auto& topo = scenario.topology;
    std::vector<InstanceState> instances;
    bool anyPrefill = false, anyDecode = false;
    for (const auto& spec : serving.instances) {
        InstanceState inst;
        inst.id = spec.id;
        inst.role = spec.role;
        for (const auto& nodeId : spec.nodes) {
            auto index = topo.nodeIndex(nodeId);
            if (!index)
                throw InputError(scenario.sourcePath, "/serving/instances",
                                 "instance '" + spec.id + "' names unknown node '" + nodeId + "'",
                                 "use a node id from /topology/nodes");
            inst.nodes.push_back(*index);
        }
        inst.hw = cost.hardware(topo, inst.nodes);
        const bool isPrefill = spec.role == InstanceRole::Prefill;
        inst.maxBatchSize = spec.maxBatchSize ? spec.maxBatchSize
                                              : (isPrefill ? serving.prefillMaxBatchSize : serving.decodeMaxBatchSize);
        inst.maxBatchTokens = spec.maxBatchTokens ? spec.maxBatchTokens : serving.prefillMaxBatchTokens;
        if (!isPrefill) {
            // KV capacity: what HBM holds beyond the weights, in whole blocks.
            const double blockBytes = static_cast<double>(scenario.model.kvBytesPerToken()) * serving.blockTokens;
            const double kvBytes = inst.hw.hbmBytes * serving.kvMemoryFraction - scenario.model.weightBytes();
            inst.kvBlocksTotal = kvBytes > 0 ? static_cast<std::uint64_t>(kvBytes / blockBytes) : 0;
            inst.kvBlocksFree = inst.kvBlocksTotal;
        }
        (isPrefill ? anyPrefill : anyDecode) = true;
        instances.push_back(std::move(inst));
    }
    if (!anyPrefill || !anyDecode)
        throw InputError(scenario.sourcePath, "/serving/instances",
                         "the scenario needs at least one prefill and one decode instance",
                         "give nodes the roles prefill and decode (or both)");
    return instances;
}

} // namespace coh::core
