// The serving engine's parts on their own: device sharing (who waits, who gets the device next), decode admission
// (FIFO against the KV memory, rejection of what can never fit, the sequences an instance holds).
#include "core/serving/decode_scheduler.h"
#include "core/serving/device_sharing.h"
#include "engine_fixtures.h"

#include <gtest/gtest.h>

#include <vector>

namespace coh::test {
namespace {

InstanceState onNodes(InstanceRole role, std::vector<std::uint32_t> nodes)
{
    InstanceState inst;
    inst.role = role;
    inst.nodes = std::move(nodes);
    return inst;
}

TEST(DeviceSharing, AnInstanceWaitsForItsBusyNodeAndGetsItOnRelease)
{
    // Decode 0 and prefill 1 share node 0; decode 2 has node 1 to itself.
    const std::vector<InstanceState> instances = {
        onNodes(InstanceRole::Decode, {0}), onNodes(InstanceRole::Prefill, {0}), onNodes(InstanceRole::Decode, {1})};
    DeviceSharing devices(instances, 2);
    EXPECT_TRUE(devices.claim(0));
    EXPECT_FALSE(devices.claim(1));
    EXPECT_FALSE(devices.claim(1)); // asking again does not queue it twice
    EXPECT_TRUE(devices.claim(2));  // another node
    std::vector<std::uint32_t> started;
    devices.release(0, [&](std::uint32_t w) {
        started.push_back(w);
        EXPECT_TRUE(devices.claim(w));
    });
    EXPECT_EQ(started, (std::vector<std::uint32_t>{1}));
    EXPECT_FALSE(devices.claim(0)); // prefill 1 holds node 0 now
}

TEST(DeviceSharing, PrefillGetsAFreedDeviceBeforeDecode)
{
    const std::vector<InstanceState> instances = {
        onNodes(InstanceRole::Decode, {0}), onNodes(InstanceRole::Decode, {0}), onNodes(InstanceRole::Prefill, {0})};
    DeviceSharing devices(instances, 1);
    EXPECT_TRUE(devices.claim(0));
    EXPECT_FALSE(devices.claim(1)); // waits first
    EXPECT_FALSE(devices.claim(2)); // waits second, but is prefill
    std::vector<std::uint32_t> started;
    devices.release(0, [&](std::uint32_t w) {
        started.push_back(w);
        devices.claim(w);
    });
    // Prefill 2 takes the device; decode 1 finds it taken and waits again, to start on the next release.
    EXPECT_EQ(started, (std::vector<std::uint32_t>{2, 1}));
    started.clear();
    devices.release(2, [&](std::uint32_t w) { started.push_back(w); });
    EXPECT_EQ(started, (std::vector<std::uint32_t>{1}));
}

TEST(DeviceSharing, InstancesOnTheirOwnNodesNeverWait)
{
    const std::vector<InstanceState> instances = {onNodes(InstanceRole::Prefill, {0}),
                                                  onNodes(InstanceRole::Decode, {1, 2})};
    DeviceSharing devices(instances, 3);
    EXPECT_TRUE(devices.claim(0));
    EXPECT_TRUE(devices.claim(0));
    EXPECT_TRUE(devices.claim(1));
    int started = 0;
    devices.release(0, [&](std::uint32_t) { ++started; });
    EXPECT_EQ(started, 0);
}

// Records what the decode scheduler asks of the KV path; every step may run at once.
class RecordingKv final : public KvMemory {
  public:
    void prefillWrite(std::uint32_t, std::uint32_t, std::uint32_t) override {}
    void acquireForDecode(std::uint32_t request, std::uint32_t, std::uint32_t) override { acquired.push_back(request); }
    bool beginDecodeStep(std::uint32_t, std::uint32_t, std::uint32_t) override { return true; }
    void release(std::uint32_t request) override { released.push_back(request); }
    KvStats stats() const override { return {}; }
    std::uint32_t addSequence() override { return 0; }
    void abandon(std::uint32_t) override {}
    void restoreAt(std::uint32_t, std::uint32_t, std::uint32_t) override {}

    std::vector<std::uint32_t> acquired, released;
};

TEST(DecodeScheduler, AdmitsInOrderWhileKvFitsAndRejectsWhatNeverFits)
{
    Scenario s = twoGpuScenario();
    const CostModel cost(s.model, s.serving);
    std::vector<InstanceState> instances = {onNodes(InstanceRole::Decode, {0})};
    instances[0].kvBlocksTotal = 10;
    instances[0].kvBlocksFree = 10;
    instances[0].maxBatchSize = 8;
    instances[0].hw = cost.hardware(s.topology, {1});
    // Blocks of 16 tokens: 127 + 1 tokens need 8 blocks, 170 + 1 need 11 (more than the instance has), 40 + 8 need 3.
    std::vector<RequestMetrics> metrics(3);
    metrics[0].promptTokens = 127;
    metrics[0].outputTokens = 1;
    metrics[1].promptTokens = 170;
    metrics[1].outputTokens = 1;
    metrics[2].promptTokens = 40;
    metrics[2].outputTokens = 8;
    std::vector<RequestState> state(3);
    for (std::uint32_t r = 0; r < state.size(); ++r)
        state[r].kv = r; // each request's own KV sequence
    Simulator sim;
    RecordingKv kv;
    RooflineCompute compute(cost);
    Reservoir<DecodeIterationRecord> iterations(100, 1);
    DecodeScheduler decode(sim, compute, instances, metrics, state, kv, iterations, 16);
    for (std::uint32_t r = 0; r < 3; ++r)
        decode.enqueue(r, 0);
    EXPECT_EQ(instances[0].assigned, 3u);
    decode.tryAdmit(0);
    // Request 0 takes 8 of 10 blocks; request 1 can never fit and is rejected; request 2 (3 blocks) waits.
    EXPECT_EQ(kv.acquired, (std::vector<std::uint32_t>{0}));
    EXPECT_EQ(decode.rejected(), 1u);
    EXPECT_EQ(kv.released, (std::vector<std::uint32_t>{1})); // what its prefill wrote goes with it
    EXPECT_EQ(instances[0].kvBlocksFree, 2u);
    EXPECT_EQ(instances[0].held, (std::vector<std::uint32_t>{0}));
    EXPECT_EQ(instances[0].admission.size(), 1u);
    EXPECT_EQ(instances[0].assigned, 2u);

    // Request 0's KV arrives, its one-token iteration runs and ends: its blocks go to request 2.
    decode.onKvReady(0);
    EXPECT_TRUE(instances[0].kickPending);
    ASSERT_TRUE(DecodeScheduler::hasWork(instances[0]));
    decode.start(0);
    EXPECT_EQ(instances[0].active, (std::vector<std::uint32_t>{0}));
    decode.onIterationDone(0);
    EXPECT_EQ(decode.finished(), 1u);
    EXPECT_EQ(kv.released, (std::vector<std::uint32_t>{1, 0}));
    EXPECT_EQ(kv.acquired, (std::vector<std::uint32_t>{0, 2}));
    EXPECT_EQ(instances[0].kvBlocksFree, 7u);
    EXPECT_EQ(instances[0].held, (std::vector<std::uint32_t>{2}));
    EXPECT_EQ(instances[0].assigned, 1u);
    // The iteration is recorded: request 0 alone, over its 127-token prompt.
    ASSERT_EQ(iterations.total(), 1u);
    EXPECT_EQ(iterations.kept()[0].sequences, 1u);
    EXPECT_EQ(iterations.kept()[0].contextTokens, 127u);
    EXPECT_EQ(iterations.kept()[0].instance, 0u);
}

} // namespace
} // namespace coh::test
