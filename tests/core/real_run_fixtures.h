#pragma once
// What the real-backend tests share: a real-cpu backend with small arenas, three GPUs under a protocol, requests
// spaced so far apart that no two transfers race, and a run on a given backend.
#include "core/gpu/cuda_devices.h"
#include "core/serving/serving_engine.h"
#include "engine_fixtures.h"

#include <gtest/gtest.h>

#include <string>

namespace coh::test {

inline BackendOptions realCpu()
{
    BackendOptions b;
    b.name = "real-cpu";
    b.realCpu.arenaBytes = 1 << 20; // small, so a KV message larger than it wraps
    return b;
}

// A prefill GPU and two decode GPUs: the protocol has a home and two caches to keep coherent. Requests are spaced far
// apart, so the order of events cannot depend on how long a copy takes: both backends send the same messages.
inline Scenario threeGpuScenario(const std::string& protocol)
{
    Scenario s = twoGpuScenario();
    s.topology.nodes.push_back(servingNode("d1", NodeRole::Decode));
    s.topology.links.push_back(link("p0", "d1", kMicrosecond, 1e9));
    s.serving.instances.push_back({"decode1", InstanceRole::Decode, {"d1"}, 0, 0});
    s.coherence.decode = protocol;
    return s;
}

inline Workload spacedWorkload()
{
    Workload w;
    for (std::uint32_t i = 0; i < 6; ++i)
        w.requests.push_back({static_cast<SimTime>(i) * kSecond, 5000u + 700u * i, 12, 0, 0});
    return w;
}

// `count` requests a second apart with prompts of 100, 130, 160, ... tokens and 4 to generate: each transfer is done
// before the next begins. Under a model of four layers, a message holds its first layer's rows (kv_payload_rows.h).
inline Workload spacedPrompts(std::uint32_t count)
{
    Workload w;
    for (std::uint32_t i = 0; i < count; ++i)
        w.requests.push_back({static_cast<SimTime>(i) * kSecond, 100u + 30u * i, 4, 0, 0});
    return w;
}

// A test run on each real backend: real-cuda where there is a GPU, skipped where there is none.
class OnEachRealBackend : public testing::TestWithParam<std::string> {
  protected:
    void SetUp() override
    {
        if (GetParam() == "real-cuda")
            if (const auto gpus = probeGpus(); gpus.devices.empty())
                GTEST_SKIP() << "no GPU: " << gpus.reason;
    }
};
inline const auto kRealBackends = testing::Values("real-cpu", "real-cuda");
inline std::string backendTestName(const testing::TestParamInfo<std::string>& info)
{
    return info.param == "real-cpu" ? "Cpu" : "Cuda";
}

inline RunResult runOn(const Scenario& s, const Workload& w, const BackendOptions& backend)
{
    RunOptions options;
    options.backend = backend;
    return runScenario(s, w, options);
}

} // namespace coh::test
