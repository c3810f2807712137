// Calibration of the real backends, the profile it writes, and the simulator running on it.
#include "calibration_fixtures.h"
#include "core/base/input_error.h"
#include "core/base/run_cancelled.h"
#include "core/gpu/cuda_attention.h"
#include "core/gpu/cuda_devices.h"
#include "core/real/calibration.h"
#include "core/serving/calibrated_compute.h"
#include "core/serving/measured_compute.h"
#include "core/serving/serving_engine.h"
#include "core/store/sim_vs_real.h"
#include "decode_step_fixtures.h"
#include "engine_fixtures.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace coh::test {
namespace {

using core::real::HardwareProfile;

TEST(Calibration, TheFitRecoversALatencyAndABandwidth)
{
    // 500 ns + bytes / 4 bytes per ns, exactly.
    std::vector<std::pair<double, double>> points;
    for (const double bytes : {64.0, 4096.0, 1e6, 1e8})
        points.emplace_back(bytes, 500 + bytes / 4);
    const auto [latency, bandwidth] = core::real::fitLatencyBandwidth(points);
    EXPECT_NEAR(latency, 500, 1e-3);
    EXPECT_NEAR(bandwidth, 4, 1e-9);
    // Noise that would make the fixed cost negative: the fit goes through the origin instead.
    const auto [zero, through] = core::real::fitLatencyBandwidth({{1000, 100}, {2000, 300}});
    EXPECT_EQ(zero, 0);
    EXPECT_GT(through, 0);
}

TEST(Calibration, MeasuresThisMachineAndRoundTripsAsJson)
{
    const HardwareProfile p = smallCalibration();
    EXPECT_EQ(p.copy.rows.size(), 3u);
    EXPECT_EQ(p.attentionRows.size(), 2u);
    EXPECT_GE(p.copy.latencyNs, 0);
    EXPECT_GT(p.copy.bytesPerNs, 0);
    EXPECT_GE(p.attentionStepNs, 0);
    EXPECT_GT(p.attentionBytesPerNs, 0);
    EXPECT_EQ(p.attentionShape.kvHeads, 2u);
    const HardwareProfile back = core::real::profileFromJson(nlohmann::json::parse(toJson(p).dump()), "p.json");
    EXPECT_DOUBLE_EQ(back.copy.latencyNs, p.copy.latencyNs);
    EXPECT_DOUBLE_EQ(back.copy.bytesPerNs, p.copy.bytesPerNs);
    EXPECT_DOUBLE_EQ(back.attentionStepNs, p.attentionStepNs);
    EXPECT_DOUBLE_EQ(back.attentionBytesPerNs, p.attentionBytesPerNs);
    EXPECT_EQ(back.attentionShape.headDim, 32u);
    EXPECT_EQ(back.host, p.host);
    // The copies were measured again in descriptors of 64 KiB: 1, 1 and 16 pieces.
    ASSERT_EQ(p.copy.descriptorRows.size(), 3u);
    EXPECT_EQ(p.copy.descriptorRows[2].descriptors, 16u);
    EXPECT_EQ(p.descriptorBytes, std::size_t{64} << 10);
    EXPECT_GE(p.copy.descriptorNs, 0);
    EXPECT_DOUBLE_EQ(back.copy.descriptorNs, p.copy.descriptorNs);
    EXPECT_EQ(back.descriptorBytes, p.descriptorBytes);
    // A profile from before descriptors were measured reads as copying whole.
    auto old = nlohmann::json::parse(toJson(p).dump());
    old["copy"].erase("descriptor_bytes");
    old["copy"].erase("descriptor_ns");
    const HardwareProfile whole = core::real::profileFromJson(old, "old.json");
    EXPECT_EQ(whole.descriptorBytes, 0u);
    EXPECT_DOUBLE_EQ(whole.effectiveCopyBytesPerNs(), whole.copy.bytesPerNs);
    // Warm steps under the cache it was given: 2 KV heads of 32 in fp16 are 256 bytes a token, so an eighth, a
    // quarter, a half and seven eighths of 256 KiB are 128, 256, 512 and 896 tokens.
    EXPECT_EQ(p.attentionWarmBytes, std::size_t{256} << 10);
    ASSERT_EQ(p.warmRows.size(), 4u);
    EXPECT_EQ(p.warmRows[0].context, 128u);
    EXPECT_EQ(p.warmRows[3].context, 896u);
    EXPECT_EQ(p.warmRows[3].kvBytes, 896.0 * 256);
    EXPECT_GT(p.attentionWarmBytesPerNs, 0);
    EXPECT_EQ(back.attentionWarmBytes, p.attentionWarmBytes);
    EXPECT_DOUBLE_EQ(back.attentionWarmStepNs, p.attentionWarmStepNs);
    EXPECT_DOUBLE_EQ(back.attentionWarmBytesPerNs, p.attentionWarmBytesPerNs);
    // A profile from before warm steps were measured costs every step on one line.
    old["attention"].erase("warm_bytes");
    old["attention"].erase("warm_step_ns");
    old["attention"].erase("warm_bandwidth_gbps");
    old["attention"].erase("measured_warm");
    EXPECT_FALSE(core::real::profileFromJson(old, "old.json").readsWarm(1));
}

TEST(Calibration, NoWarmStepsAreMeasuredWithoutACacheToFitThem)
{
    core::real::CalibrationOptions options = tinyCalibration();
    options.warmBytes = 0;
    const HardwareProfile none = core::real::calibrate(options);
    EXPECT_TRUE(none.warmRows.empty());
    EXPECT_FALSE(toJson(none)["attention"].contains("warm_bytes"));
    // A cache smaller than one block (16 tokens of 256 bytes) has no context to measure.
    options.warmBytes = 2048;
    EXPECT_TRUE(core::real::calibrate(options).warmRows.empty());
}

TEST(Calibration, TellsEachMeasurementBeforeItAndStopsAtTheNextWhenCancelled)
{
    core::real::CalibrationOptions options = tinyCalibration();
    options.warmBytes = 256 << 10;
    std::vector<std::pair<double, std::string>> told;
    options.progress = [&](double fraction, const std::string& what) { told.emplace_back(fraction, what); };
    const HardwareProfile p = core::real::calibrate(options);
    // real-cpu: its steps, its warm steps, its copies whole and in descriptors, a quarter of the way each.
    const std::vector<std::pair<double, std::string>> all{
        {0.0, "attention"}, {0.25, "attention, warm steps"}, {0.5, "copies"}, {0.75, "copies in descriptors"}};
    EXPECT_EQ(told, all);
    EXPECT_FALSE(p.copy.descriptorRows.empty());
    // Without descriptors and a cache, two measurements.
    told.clear();
    options.descriptorBytes = 0;
    options.warmBytes = 0;
    core::real::calibrate(options);
    EXPECT_EQ(told, (std::vector<std::pair<double, std::string>>{{0.0, "attention"}, {0.5, "copies"}}));
    // Cancelled while its steps are measured: the copies are not, and the calibration throws.
    std::atomic<bool> cancel{false};
    options.cancel = &cancel;
    told.clear();
    options.progress = [&](double fraction, const std::string& what) {
        told.emplace_back(fraction, what);
        cancel = true;
    };
    EXPECT_THROW(core::real::calibrate(options), core::RunCancelled);
    EXPECT_EQ(told.size(), 1u);
}

// The one problem profileFromJson names in `j` (none, and a failure, where it takes the profile or names more).
core::InputProblem theOneProblem(const nlohmann::json& j)
{
    try {
        core::real::profileFromJson(j, "p.json");
        ADD_FAILURE() << "the profile was taken: " << j.dump();
    } catch (const core::InputError& e) {
        EXPECT_EQ(e.problems().size(), 1u) << e.what();
        if (!e.problems().empty())
            return e.problems()[0];
    }
    return {};
}

TEST(Calibration, AStepWhoseLayerFitsInTheCoresCacheCostsTheWarmLine)
{
    const Scenario s = smallAttentionScenario(3);
    HardwareProfile p{.attentionStepNs = 1000,
                      .attentionBytesPerNs = 2,
                      .attentionWarmBytes = 300000,
                      .attentionWarmStepNs = 500,
                      .attentionWarmBytesPerNs = 8};
    const CostModel cost(s.model, s.serving);
    const InstanceState inst = decodeInstance(cost, s, {1}, 2, 500);
    const SimTime linear = cost.decodeLinear(2, inst.hw);
    // 500 tokens of 512 bytes: 256000 bytes a layer, under 300000: 500 + 256000 / 8 = 32500 ns for each of 3 layers.
    CalibratedCompute warm(cost, s.model, 16, p);
    EXPECT_EQ(warm.decode(inst, {}), linear + 3 * 32500);
    BackendSummary summary;
    warm.describe(summary);
    EXPECT_NE(summary.scaledDown.find("500 ns + K/V bytes / 8.00 GB/s where a layer reads at most 292 KiB"),
              std::string::npos)
        << summary.scaledDown;
    // A smaller cache: the same step reads from memory, 1000 + 128000 ns a layer.
    p.attentionWarmBytes = 200000;
    EXPECT_EQ(CalibratedCompute(cost, s.model, 16, p).decode(inst, {}), linear + 3 * 129000);
    // Exactly the cache's bytes still fit.
    p.attentionWarmBytes = 256000;
    EXPECT_EQ(CalibratedCompute(cost, s.model, 16, p).decode(inst, {}), linear + 3 * 32500);
    p.attentionWarmBytes = 200000;
    // The warm figures round-trip; a cache no machine has is refused naming its field.
    p.copy.bytesPerNs = 1;
    const auto j = nlohmann::json::parse(toJson(p).dump());
    const HardwareProfile back = core::real::profileFromJson(j, "p.json");
    EXPECT_EQ(back.attentionWarmBytes, 200000u);
    EXPECT_DOUBLE_EQ(back.attentionWarmBytesPerNs, 8);
    EXPECT_TRUE(back.readsWarm(200000));
    EXPECT_FALSE(back.readsWarm(200001));
    for (const nlohmann::json& bad :
         {nlohmann::json(-1), nlohmann::json("2M"), nlohmann::json(1e300), nlohmann::json(std::uint64_t{2} << 30)}) {
        auto hostile = j;
        hostile["attention"]["warm_bytes"] = bad;
        EXPECT_EQ(theOneProblem(hostile).field, "/attention/warm_bytes") << bad;
    }
    // A GPU's cache is not modelled: a real-cuda profile with warm steps is refused.
    auto cuda = j;
    cuda["profile"] = "real-cuda";
    cuda["attention"]["element_bytes"] = 2;
    const core::InputProblem refused = theOneProblem(cuda);
    EXPECT_EQ(refused.field, "/attention/warm_bytes");
    EXPECT_NE(refused.message.find("only a real-cpu profile"), std::string::npos) << refused.message;
}

TEST(Calibration, EachDescriptorBeyondTheFirstCostsWhatTheRowsSayAndSlowsTheProfiledLinks)
{
    HardwareProfile p;
    p.copy.latencyNs = 100;
    p.copy.bytesPerNs = 10;
    p.descriptorBytes = 1000;
    // Three sizes cut into 4, 16 and 64 pieces, each piece after the first adding 400, 500 and 700 ns.
    const std::tuple<double, unsigned, double> sizes[] = {
        {4000.0, 4u, 400.0}, {16000.0, 16u, 500.0}, {64000.0, 64u, 700.0}};
    for (const auto& [bytes, pieces, each] : sizes)
        p.copy.descriptorRows.push_back(
            {static_cast<std::size_t>(bytes), 0, 100 + bytes / 10 + (pieces - 1) * each, 0, pieces});
    p.copy.descriptorRows.push_back({500, 0, 1, 0, 1});          // one piece: no descriptor cost to see
    EXPECT_DOUBLE_EQ(core::real::descriptorCost(p.copy), 500.0); // the median
    p.copy.descriptorNs = 500;
    // A byte costs 0.1 ns and its share of a descriptor 0.5 ns: 1.67 GB/s for whole descriptors.
    EXPECT_NEAR(p.effectiveCopyBytesPerNs(), 1.0 / 0.6, 1e-12);
    Topology t;
    t.nodes = {servingNode("a", NodeRole::Prefill), servingNode("b", NodeRole::Decode)};
    EXPECT_NEAR(core::real::profiledTopology(t, p).links.at(0).bandwidthBytesPerSec, 1e9 / 0.6, 1e-3);
    // Pieces faster than the whole copy's fit (noise) cost nothing, not a negative time.
    p.copy.descriptorRows = {{4000, 0, 100, 0, 4}};
    EXPECT_EQ(core::real::descriptorCost(p.copy), 0.0);
}

TEST(Calibration, TheProfiledTopologyJoinsEveryPairOfMemoriesDirectly)
{
    HardwareProfile p;
    p.copy.latencyNs = 1200;
    p.copy.bytesPerNs = 7.5;
    Topology t;
    t.nodes = {servingNode("a", NodeRole::Prefill), servingNode("sw", NodeRole::None),
               servingNode("b", NodeRole::Decode), dramHost("c")};
    t.nodes[1].kind = NodeKind::Switch;
    t.links = {link("a", "sw", kMicrosecond, 1e9), link("sw", "b", kMicrosecond, 1e9)};
    const Topology mesh = core::real::profiledTopology(t, p);
    ASSERT_EQ(mesh.nodes.size(), 4u);
    ASSERT_EQ(mesh.links.size(), 3u); // a-b, a-c, b-c; the switch joins nothing
    for (const auto& l : mesh.links) {
        EXPECT_NE(l.a, "sw");
        EXPECT_NE(l.b, "sw");
        EXPECT_EQ(l.latency, 1200);
        EXPECT_DOUBLE_EQ(l.bandwidthBytesPerSec, 7.5e9);
    }
    // The scenario's stored JSON says what ran, so the replay finds these links.
    Scenario scenario;
    scenario.topology = t;
    scenario.json = R"({"topology": {"nodes": [], "links": [{"id": "a-sw"}]}})";
    const Scenario profiled = core::real::profiledScenario(scenario, p);
    EXPECT_EQ(profiled.topology.links.size(), 3u);
    const auto links = nlohmann::json::parse(profiled.json).at("topology").at("links");
    ASSERT_EQ(links.size(), 3u);
    EXPECT_EQ(links[0].at("id"), "a~b");
    EXPECT_EQ(links[0].at("latency"), "1200 ns");
    EXPECT_EQ(links[0].at("bandwidth"), "7.5 GB/s");
}

// real-cuda measures two copy paths: within and between GPUs, and across the bus to and from pinned host memory. A
// pair with a node the backend places in host memory (a CPU socket here) takes the host path's figures.
TEST(Calibration, OnRealCudaACopyToOrFromHostMemoryTakesTheHostPath)
{
    HardwareProfile p;
    p.backend = "real-cuda";
    p.copy.latencyNs = 1200;
    p.copy.bytesPerNs = 900;
    p.hostCopy.latencyNs = 2500;
    p.hostCopy.bytesPerNs = 50;
    p.attentionBytesPerNs = 3000;
    p.attentionShape = {32, 8, 128, 16};
    Topology t;
    t.nodes = {servingNode("a", NodeRole::Prefill), servingNode("b", NodeRole::Decode), dramHost("c")};
    ASSERT_EQ(t.nodes[2].kind, NodeKind::CpuSocket);
    const Topology mesh = core::real::profiledTopology(t, p);
    ASSERT_EQ(mesh.links.size(), 3u);
    for (const auto& l : mesh.links) {
        SCOPED_TRACE(l.id);
        const bool host = l.a == "c" || l.b == "c";
        EXPECT_EQ(l.latency, host ? 2500 : 1200);
        EXPECT_DOUBLE_EQ(l.bandwidthBytesPerSec, host ? 50e9 : 900e9);
        EXPECT_EQ(l.source.find("host memory") != std::string::npos, host) << l.source;
    }
    // Descriptors cost each path its own: 100 ns per 64 KiB piece on the host path.
    p.descriptorBytes = 64 << 10;
    p.hostCopy.descriptorNs = 100;
    EXPECT_DOUBLE_EQ(p.effectiveHostCopyBytesPerNs(), 1.0 / (1.0 / 50 + 100.0 / 65536));
    EXPECT_DOUBLE_EQ(p.effectiveCopyBytesPerNs(), 900); // no descriptor cost on the device path here

    // The file keeps the path, and reads it back.
    const HardwareProfile back = core::real::profileFromJson(nlohmann::json(core::real::toJson(p)), "p.json");
    EXPECT_DOUBLE_EQ(back.hostCopy.latencyNs, 2500);
    EXPECT_DOUBLE_EQ(back.hostCopy.bytesPerNs, 50);
    EXPECT_DOUBLE_EQ(back.hostCopy.descriptorNs, 100);
    // Without one, every pair takes the device path; a profile of real-cpu has none (its memories are all the host's).
    HardwareProfile cpu = p;
    cpu.hostCopy = {};
    for (const auto& l : core::real::profiledTopology(t, cpu).links)
        EXPECT_DOUBLE_EQ(l.bandwidthBytesPerSec, 900e9);
    auto json = nlohmann::json(core::real::toJson(p));
    json["profile"] = "real-cpu";
    json["attention"]["element_bytes"] = 4;
    try {
        core::real::profileFromJson(json, "p.json");
        FAIL() << "a real-cpu profile has no host path";
    } catch (const core::InputError& e) {
        EXPECT_NE(std::string(e.what()).find("/host_copy"), std::string::npos) << e.what();
    }
    // A host path's figures are read as hostile as the others', its descriptor cost always among them.
    json = nlohmann::json(core::real::toJson(p));
    json["host_copy"]["bandwidth_gbps"] = 1e300;
    EXPECT_THROW(core::real::profileFromJson(json, "p.json"), core::InputError);
    json = nlohmann::json(core::real::toJson(p));
    json["copy"].erase("descriptor_bytes");
    json["host_copy"].erase("descriptor_ns");
    EXPECT_THROW(core::real::profileFromJson(json, "p.json"), core::InputError);

    // compare-real on real-cuda refuses a profile without the host path for a scenario with a node in host memory.
    Scenario s = twoGpuScenario();
    s.topology.nodes.push_back(dramHost("c"));
    const auto wanted = core::calibrationFor(s, "real-cuda", {});
    p.attentionShape = wanted.attention.shape;
    p.attentionElementBytes = 2;
    p.descriptorBytes = wanted.descriptorBytes;
    EXPECT_NO_THROW(core::checkProfileFits(p, "real-cuda", s, {}));
    p.hostCopy = {};
    try {
        core::checkProfileFits(p, "real-cuda", s, {});
        FAIL() << "host memory's copies would be priced as the GPUs'";
    } catch (const core::InputError& e) {
        EXPECT_NE(std::string(e.what()).find("node \"c\" is pinned host memory"), std::string::npos) << e.what();
    }
}

TEST(Calibration, ACalibratedDecodeStepIsTheLinearRooflinePlusThePredictedAttention)
{
    const Scenario s = smallAttentionScenario(3);
    HardwareProfile p;
    p.attentionStepNs = 1000;
    p.attentionBytesPerNs = 2;
    const CostModel cost(s.model, s.serving);
    CalibratedCompute compute(cost, s.model, 16, p);
    const InstanceState inst = decodeInstance(cost, s, {1}, 2, 500);
    // Per layer: 1000 ns + 500 tokens x (K and V) x 2 KV heads x 32 x 4 bytes / 2 bytes per ns = 1000 + 128000.
    EXPECT_EQ(compute.decode(inst, {}), cost.decodeLinear(2, inst.hw) + 3 * 129000);
    BackendSummary summary;
    compute.describe(summary);
    EXPECT_EQ(summary.name, "simulated");
    EXPECT_NE(summary.scaledDown.find("calibrated profile"), std::string::npos);
}

TEST(Calibration, TheSimulatorOnTheProfilePredictsRealCpuOnSpacedRequests)
{
    // Spaced requests: no transfer races, so both backends send the same messages, and the simulator's times follow
    // from the profile that real-cpu's own measurements gave.
    Scenario s = twoGpuScenario();
    s.coherence.decode = "msi-directory";
    Workload w;
    for (std::uint32_t i = 0; i < 4; ++i)
        w.requests.push_back({static_cast<SimTime>(i) * kSecond, 3000u, 8, 0, 0});
    RunOptions real;
    real.backend.name = "real-cpu";
    real.backend.realCpu.arenaBytes = 4 << 20;
    core::real::CalibrationOptions calibration;
    calibration.copy.sizes = {64, 4096, 1 << 16, 1 << 20};
    calibration.copy.rounds = 5;
    calibration.copy.arenaBytes = 4 << 20;
    calibration.attention.shape = decodeAttentionShape(s.model, s.serving.blockTokens, 1);
    calibration.attention.contexts = {1024, 4096};
    RunOptions sim;
    sim.backend.profile = core::real::calibrate(calibration);
    const RunResult r = runScenario(s, w, real);
    const RunResult m = runScenario(core::real::profiledScenario(s, *sim.backend.profile), w, sim);
    EXPECT_EQ(m.summary.flows, r.summary.flows);
    ASSERT_EQ(m.summary.messagesByKind.size(), r.summary.messagesByKind.size());
    for (std::size_t k = 0; k < r.summary.messagesByKind.size(); ++k)
        EXPECT_EQ(m.summary.messagesByKind[k].count, r.summary.messagesByKind[k].count);
    EXPECT_EQ(m.summary.completed, 4u);
    EXPECT_EQ(m.summary.backend.name, "simulated");
    EXPECT_FALSE(m.summary.backend.scaledDown.empty());
    // Times are not asserted here (timing goals belong to benchmarks): `cohsim compare-real` reports the error.
}

TEST(Calibration, AProfileIsRefusedOnARealBackend)
{
    BackendOptions b;
    b.name = "real-cpu";
    b.profile = HardwareProfile{};
    EXPECT_THROW(checkBackendRuns(b, twoGpuScenario()), core::InputError);
}

TEST(Calibration, AProfileSaysWhichBackendItMeasuredAndInWhatElementSize)
{
    HardwareProfile cuda = smallCalibration();
    EXPECT_EQ(cuda.backend, "real-cpu");
    // real-cpu measures fp16 unless told otherwise: what a run of an fp16 (or bf16) model holds.
    EXPECT_DOUBLE_EQ(cuda.attentionElementBytes, 2);
    cuda.backend = "real-cuda";
    cuda.attentionElementBytes = 2;
    cuda.attentionWarmBytes = 0; // real-cuda measures none
    const auto j = nlohmann::json::parse(toJson(cuda).dump());
    EXPECT_EQ(j.at("profile"), "real-cuda");
    const HardwareProfile back = core::real::profileFromJson(j, "gpu.json");
    EXPECT_EQ(back.backend, "real-cuda");
    EXPECT_DOUBLE_EQ(back.attentionElementBytes, 2);
    // A profile from before real-cuda names neither: it is real-cpu's, fp32.
    auto old = nlohmann::json::parse(toJson(smallCalibration()).dump());
    old.erase("profile");
    old["attention"].erase("element_bytes");
    const HardwareProfile cpu = core::real::profileFromJson(old, "old.json");
    EXPECT_EQ(cpu.backend, "real-cpu");
    EXPECT_DOUBLE_EQ(cpu.attentionElementBytes, 4);
    // Anything else is named.
    auto bad = j;
    bad["profile"] = "tpu";
    bad["attention"]["element_bytes"] = 3;
    try {
        core::real::profileFromJson(bad, "bad.json");
        FAIL() << "a profile of no backend was taken";
    } catch (const core::InputError& e) {
        ASSERT_EQ(e.problems().size(), 2u);
        EXPECT_EQ(e.problems()[0].field, "/profile");
        EXPECT_EQ(e.problems()[1].field, "/attention/element_bytes");
    }
}

TEST(Calibration, AnFp16ProfilePredictsAttentionOverHalfTheBytes)
{
    const Scenario s = smallAttentionScenario(1);
    HardwareProfile p;
    p.attentionStepNs = 0;
    p.attentionBytesPerNs = 2;
    const CostModel cost(s.model, s.serving);
    const InstanceState inst = decodeInstance(cost, s, {1}, 1, 500);
    const SimTime linear = cost.decodeLinear(1, inst.hw);
    CalibratedCompute fp32(cost, s.model, 16, p);
    // 500 tokens x (K and V) x 2 KV heads x 32 x 4 bytes / 2 bytes per ns = 128000 ns; in fp16, half.
    EXPECT_EQ(fp32.decode(inst, {}), linear + 128000);
    p.backend = "real-cuda";
    p.attentionElementBytes = 2;
    CalibratedCompute fp16(cost, s.model, 16, p);
    EXPECT_EQ(fp16.decode(inst, {}), linear + 64000);
    BackendSummary summary;
    fp16.describe(summary);
    EXPECT_NE(summary.scaledDown.find("as real-cuda measured them"), std::string::npos) << summary.scaledDown;
}

TEST(Calibration, WhereSequencesRunSideBySideAStepLastsAtLeastItsLongestSequence)
{
    const Scenario s = smallAttentionScenario(1);
    HardwareProfile p;
    p.attentionStepNs = 1000;
    p.attentionBytesPerNs = 2; // the batch side by side
    const CostModel cost(s.model, s.serving);
    const InstanceState inst = decodeInstance(cost, s, {1}, 2, 500);
    const std::vector<std::uint32_t> contexts{100, 400};
    const SimTime linear = cost.decodeLinear(2, inst.hw);
    // fp32 rows of 2 KV heads x 32: 512 bytes of K and V per token. All 500 tokens at 2 bytes per ns: 128000 ns.
    CalibratedCompute batchOnly(cost, s.model, 16, p);
    EXPECT_FALSE(batchOnly.wantsContexts());
    EXPECT_EQ(batchOnly.decode(inst, {contexts, {}}), linear + 1000 + 128000);
    // A lone sequence at 0.5 bytes per ns: the 400-token one alone takes 409600 ns, longer than the batch's bytes.
    p.attentionSequenceBytesPerNs = 0.5;
    CalibratedCompute bound(cost, s.model, 16, p);
    EXPECT_TRUE(bound.wantsContexts());
    EXPECT_EQ(bound.decode(inst, {contexts, {}}), linear + 1000 + 409600);
    // Fast enough alone, and the batch's bytes set the time again.
    p.attentionSequenceBytesPerNs = 100;
    CalibratedCompute fast(cost, s.model, 16, p);
    EXPECT_EQ(fast.decode(inst, {contexts, {}}), linear + 1000 + 128000);
    // The figure round-trips; a profile without it has none.
    p.copy.bytesPerNs = 1;
    const auto j = nlohmann::json::parse(toJson(p).dump());
    EXPECT_DOUBLE_EQ(core::real::profileFromJson(j, "p.json").attentionSequenceBytesPerNs, 100);
    auto old = j;
    old["attention"].erase("sequence_bandwidth_gbps");
    EXPECT_DOUBLE_EQ(core::real::profileFromJson(old, "old.json").attentionSequenceBytesPerNs, 0);
}

TEST(Calibration, RealCudaIsCalibratedOnAGpu)
{
    const core::GpuInventory gpus = core::probeGpus();
    core::real::CalibrationOptions options;
    options.backend = "real-cuda";
    options.copy.sizes = {4096, 1 << 20, 8 << 20};
    options.copy.rounds = 3;
    options.copy.arenaBytes = 16 << 20;
    options.attention.contexts = {256, 2048};
    options.attention.rounds = 3;
    options.attention.poolBytes = 16 << 20;
    if (gpus.devices.empty()) {
        // Without a GPU there is nothing to measure, and it says why.
        EXPECT_THROW(core::real::calibrate(options), core::GpuError);
        return;
    }
    std::vector<std::string> told;
    options.progress = [&told](double, const std::string& what) { told.push_back(what); };
    const HardwareProfile p = core::real::calibrate(options);
    // Eight measurements, each told before it: the batch, one sequence, the copies and the host path both ways.
    EXPECT_EQ(told, (std::vector<std::string>{"attention, a batch of sequences", "attention, one sequence", "copies",
                                              "copies in descriptors", "copies to host memory",
                                              "copies in descriptors to host memory", "copies from host memory",
                                              "copies in descriptors from host memory"}));
    EXPECT_EQ(p.backend, "real-cuda");
    EXPECT_EQ(p.cpu, gpus.devices.front().name);
    EXPECT_DOUBLE_EQ(p.attentionElementBytes, 2);
    EXPECT_EQ(p.copy.rows.size(), 3u);
    EXPECT_EQ(p.attentionRows.size(), 2u);
    EXPECT_GT(p.copy.bytesPerNs, 0);
    EXPECT_GT(p.attentionBytesPerNs, 0);
    ASSERT_EQ(p.copy.descriptorRows.size(), 3u);
    EXPECT_EQ(p.copy.descriptorRows[2].descriptors, 128u); // 8 MiB in 64 KiB pieces
    // The host path, both ways, whole and in descriptors.
    EXPECT_EQ(p.hostCopy.rows.size(), 6u);
    EXPECT_EQ(p.hostCopy.descriptorRows.size(), 6u);
    EXPECT_TRUE(p.hostCopy.measured());
    // One sequence alone, measured too: slower per byte than the batch side by side.
    EXPECT_EQ(p.sequenceRows.size(), 2u);
    EXPECT_GT(p.attentionSequenceBytesPerNs, 0);
    EXPECT_LT(p.attentionSequenceBytesPerNs, p.attentionBytesPerNs);
}

} // namespace
} // namespace coh::test
