#pragma once
// Decode KV below HBM in small scenarios: a decode GPU that holds 20 blocks, a DRAM host beside it, and two sequences
// that outgrow HBM together, so one is offloaded and fetched back.
#include "engine_fixtures.h"

#include <string>
#include <vector>

namespace coh::test {

constexpr std::uint32_t kTierHbmBlocks = 20;

// `s` (twoGpuScenario's shape) whose decode GPU d0 holds 20 KV blocks of its model, with a host socket h0 (DRAM) 2 us
// and 1 GB/s from it, and decode KV spilling to `tiers`.
inline Scenario withKvTiers(Scenario s, const std::vector<Tier>& tiers, const std::string& tierProtocol = "direct",
                            TierWrite write = TierWrite::WriteBack)
{
    const double blockBytes = static_cast<double>(s.model.kvBytesPerToken()) * s.serving.blockTokens;
    // HBM x 0.9 = the weights + 20.5 blocks: 20 whole blocks of KV.
    s.topology.nodes[1].memory[0].capacityBytes = (s.model.weightBytes() + (kTierHbmBlocks + 0.5) * blockBytes) / 0.9;
    s.topology.nodes.push_back(dramHost("h0"));
    s.topology.links.push_back(link("d0", "h0", 2 * kMicrosecond, 1e9));
    s.serving.kvTiers.tiers = tiers;
    s.serving.kvTiers.write = write;
    if (tierProtocol != "direct")
        s.coherence.tiers[Tier::Dram] = tierProtocol;
    return s;
}

// Two sequences of 100 prompt tokens (7 blocks with the first output token) that grow to 200 tokens (13 blocks):
// both fit in 20 blocks at first, not at the end.
inline Workload twoLongSequences()
{
    Workload w;
    w.requests.push_back({0, 100, 100, 0, 0});
    w.requests.push_back({0, 100, 100, 0, 0});
    return w;
}

} // namespace coh::test
