#pragma once
// Small scenarios built in code, with round numbers so tests can assert results from closed forms.
#include "core/scenario/scenario.h"
#include "core/workload/request.h"

#include <random>

namespace coh::test {

using namespace coh::core;

// A model with easy arithmetic: KV = 2 * 1 * 1 * 64 * 2 = 256 bytes per token.
inline ModelSpec tinyModel()
{
    ModelSpec m;
    m.name = "tiny";
    m.layers = 1;
    m.hiddenSize = 64;
    m.heads = 1;
    m.kvHeads = 1;
    m.headDim = 64;
    m.dtypeBytes = 2;
    m.params = 1e9;
    m.activeParams = 1e9;
    return m;
}

inline Node servingNode(const std::string& id, NodeRole role, double flops = 1e12, double bandwidth = 1e11)
{
    Node n;
    n.id = id;
    n.kind = NodeKind::Gpu;
    n.role = role;
    n.compute = {flops, bandwidth};
    n.memory = {{Tier::Hbm, 80e9, bandwidth}};
    return n;
}

inline Link link(const std::string& a, const std::string& b, SimTime latency, double bandwidth)
{
    Link l;
    l.id = a + "-" + b;
    l.a = a;
    l.b = b;
    l.kind = LinkKind::Pcie;
    l.latency = latency;
    l.bandwidthBytesPerSec = bandwidth;
    return l;
}

// A host socket with 1 GB of DRAM at 100 GB/s: where the KV tier tests spill decode KV.
inline Node dramHost(const std::string& id)
{
    Node host;
    host.id = id;
    host.kind = NodeKind::CpuSocket;
    host.memory = {{Tier::Dram, 1e9, 1e11}};
    return host;
}

// One prefill GPU and one decode GPU joined by a 1 us, 1 GB/s link; efficiencies 1 and no overhead, so
// times follow the roofline formulas exactly.
inline Scenario twoGpuScenario()
{
    Scenario s;
    s.name = "two-gpu";
    s.seed = 7;
    s.model = tinyModel();
    s.topology.nodes = {servingNode("p0", NodeRole::Prefill), servingNode("d0", NodeRole::Decode)};
    s.topology.links = {link("p0", "d0", kMicrosecond, 1e9)};
    s.serving.flopsEfficiency = 1.0;
    s.serving.bandwidthEfficiency = 1.0;
    s.serving.iterationOverhead = 0;
    s.serving.prefillMaxBatchSize = 1;
    s.serving.prefillMaxBatchTokens = 1u << 20;
    s.serving.decodeMaxBatchSize = 64;
    s.serving.instances = {{"prefill0", InstanceRole::Prefill, {"p0"}, 0, 0},
                           {"decode0", InstanceRole::Decode, {"d0"}, 0, 0}};
    return s;
}

inline Workload poissonWorkload(std::uint32_t count, double ratePerSec, std::uint32_t prompt, std::uint32_t output,
                                std::uint64_t seed)
{
    Workload w;
    std::mt19937_64 rng(seed);
    std::exponential_distribution<double> gap(ratePerSec);
    double t = 0;
    for (std::uint32_t i = 0; i < count; ++i) {
        w.requests.push_back({static_cast<SimTime>(t * 1e9), prompt, output, 0, 0});
        t += gap(rng);
    }
    return w;
}

} // namespace coh::test
