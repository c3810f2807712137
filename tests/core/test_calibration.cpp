// Calibration of the real backends, the profile it writes, and the simulator running on it.
#include "core/base/input_error.h"
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

#include <tuple>

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

HardwareProfile smallCalibration()
{
    core::real::CalibrationOptions options;
    options.copy.sizes = {64, 1 << 16, 1 << 20};
    options.copy.rounds = 3;
    options.copy.arenaBytes = 4 << 20;
    options.attention.contexts = {64, 512};
    options.attention.rounds = 3;
    options.attention.shape.queryHeads = 4;
    options.attention.shape.kvHeads = 2;
    options.attention.shape.headDim = 32;
    options.warmBytes = 256 << 10; // whatever this machine's cache
    return core::real::calibrate(options);
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
    EXPECT_FALSE(core::real::profileFromJson(old, "old.json").readsWarm(1));
}

TEST(Calibration, NoWarmStepsAreMeasuredWithoutACacheToFitThem)
{
    core::real::CalibrationOptions options;
    options.copy.sizes = {64, 1 << 16};
    options.copy.rounds = 1;
    options.copy.arenaBytes = 1 << 20;
    options.attention.contexts = {64, 512};
    options.attention.rounds = 1;
    options.attention.shape = {.queryHeads = 4, .kvHeads = 2, .headDim = 32, .blockTokens = 16};
    options.warmBytes = 0;
    const HardwareProfile none = core::real::calibrate(options);
    EXPECT_TRUE(none.warmRows.empty());
    EXPECT_FALSE(toJson(none)["attention"].contains("warm_bytes"));
    // A cache smaller than one block (16 tokens of 256 bytes) has no context to measure.
    options.warmBytes = 2048;
    EXPECT_TRUE(core::real::calibrate(options).warmRows.empty());
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

TEST(Calibration, ABrokenProfileNamesTheFieldAndTheFix)
{
    auto j = nlohmann::json::parse(toJson(smallCalibration()).dump());
    j["copy"]["bandwidth_gbps"] = 0;
    j["attention"].erase("step_ns");
    j["attention"]["kv_heads"] = "eight";
    j["cores"] = "many";                      // not a figure the simulator uses: read as unknown
    j["copy"]["message_overhead_ns"] = -1e12; // shown as a measured time: checked as one
    try {
        core::real::profileFromJson(j, "p.json");
        FAIL() << "a profile without a bandwidth was taken";
    } catch (const core::InputError& e) {
        ASSERT_EQ(e.problems().size(), 4u);
        EXPECT_EQ(e.problems()[0].field, "/copy/message_overhead_ns");
        EXPECT_EQ(e.problems()[1].field, "/copy/bandwidth_gbps");
        EXPECT_EQ(e.problems()[2].field, "/attention/step_ns");
        EXPECT_EQ(e.problems()[3].field, "/attention/kv_heads");
        EXPECT_NE(e.problems()[0].fix.find("cohsim calibrate"), std::string::npos);
    }
    EXPECT_THROW(core::real::profileFromJson(nlohmann::json::array(), "p.json"), core::InputError);
    // A scenario given as a profile says so, not which of a profile's fields it lacks.
    try {
        core::real::profileFromJson(nlohmann::json{{"name", "s"}, {"topology", nlohmann::json::object()}}, "s.json");
        FAIL() << "a scenario was taken as a profile";
    } catch (const core::InputError& e) {
        EXPECT_NE(std::string(e.what()).find("this is a scenario, not a hardware profile"), std::string::npos)
            << e.what();
    }
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

// compare-real of one request on `s` with the profile in `options`: refused before any run starts, the first problem
// it names.
Workload oneRequest()
{
    Workload w;
    w.requests.push_back({0, 1000, 4, 0, 0});
    return w;
}

// A profile that fits `s` but for what a test changes: measured here, with the scenario's decode shape and
// descriptor.
HardwareProfile profileFor(const Scenario& s)
{
    HardwareProfile p = smallCalibration();
    p.attentionShape = core::decodeAttentionShape(s.model, s.serving.blockTokens, 1);
    p.descriptorBytes = core::descriptorBytesFor(s);
    return p;
}

core::InputProblem refusedProfile(const Scenario& s, SimVsRealOptions options, const std::string& why)
{
    options.stage = [](const std::string& stage) { FAIL() << "started " << stage; };
    try {
        runSimVsReal(nullptr, s, oneRequest(), options);
        ADD_FAILURE() << why;
    } catch (const core::InputError& e) {
        return e.problems()[0];
    }
    return {};
}

TEST(Calibration, CompareRealRefusesAProfileOfTheOtherBackendBeforeAnyRun)
{
    const Scenario s = twoGpuScenario();
    SimVsRealOptions options;
    options.profile = profileFor(s);
    options.profile->backend = "real-cuda";
    const auto problem = refusedProfile(s, options, "a real-cuda profile stood for real-cpu");
    EXPECT_EQ(problem.field, "--profile");
    EXPECT_NE(problem.message.find("the profile measured real-cuda, and the real side runs on real-cpu"),
              std::string::npos);
    EXPECT_NE(problem.fix.find("cohsim calibrate SCENARIO --backend real-cpu"), std::string::npos) << problem.fix;
    options.backend = "simulated";
    EXPECT_THROW(runSimVsReal(nullptr, s, oneRequest(), options), core::InputError);
}

TEST(Calibration, CompareRealRefusesAProfileOfAnotherElementThanTheModelsBeforeAnyRun)
{
    // The scenario's model is fp16, so real-cpu attends over fp16: a profile measured over fp32 would predict twice
    // the bytes at fp32's speed.
    Scenario s = twoGpuScenario();
    ASSERT_EQ(s.model.dtypeBytes, 2u);
    SimVsRealOptions options;
    options.profile = profileFor(s);
    options.profile->attentionElementBytes = 4;
    const auto fp32 = refusedProfile(s, options, "an fp32 profile stood for an fp16 model");
    EXPECT_EQ(fp32.field, "--profile");
    EXPECT_NE(fp32.message.find("over fp32 K/V"), std::string::npos) << fp32.message;
    EXPECT_NE(fp32.message.find("held in fp16 on real-cpu"), std::string::npos) << fp32.message;
    // The scenario says the element: the fix is a profile measured for it.
    EXPECT_NE(fp32.fix.find("cohsim calibrate SCENARIO --backend real-cpu -o FILE"), std::string::npos) << fp32.fix;
    // A model of 4-byte elements is held in fp32: an fp16 profile does not fit it, and an fp32 one gets past the
    // check to the first run (the stage stops it there).
    s.model.dtypeBytes = 4;
    options.profile->attentionElementBytes = 2;
    const auto fp16 = refusedProfile(s, options, "an fp16 profile stood for an fp32 model");
    EXPECT_EQ(fp16.field, "--profile");
    EXPECT_NE(fp16.message.find("held in fp32 on real-cpu"), std::string::npos) << fp16.message;
    struct Started {};
    options.profile = profileFor(s); // fp32's pieces are twice fp16's
    options.profile->attentionElementBytes = 4;
    options.stage = [](const std::string&) { throw Started{}; };
    EXPECT_THROW(runSimVsReal(nullptr, s, oneRequest(), options), Started);
}

TEST(Calibration, CompareRealRefusesAProfileOfOtherDescriptorsBeforeAnyRun)
{
    // A descriptor's cost is per piece: measured on 64 KiB pieces, it is half the cost per byte of 32 KiB ones.
    const Scenario s = twoGpuScenario();
    SimVsRealOptions options;
    options.profile = profileFor(s);
    const std::size_t run = core::descriptorBytesFor(s);
    options.profile->descriptorBytes = run * 2;
    const auto problem = refusedProfile(s, options, "a profile of other descriptors stood for the run's");
    EXPECT_EQ(problem.field, "--profile");
    EXPECT_NE(problem.message.find(
                  fmt::format("descriptors of {} B, and this run copies in descriptors of {} B", 2 * run, run)),
              std::string::npos)
        << problem.message;
    EXPECT_NE(problem.fix.find("cohsim calibrate SCENARIO --backend real-cpu -o FILE"), std::string::npos)
        << problem.fix;
    // The run's own pieces, or a profile made before descriptors were measured (it copies whole), pass the check.
    struct Started {};
    options.stage = [](const std::string&) { throw Started{}; };
    for (const std::size_t fitting : {run, std::size_t{0}}) {
        options.profile->descriptorBytes = fitting;
        EXPECT_THROW(runSimVsReal(nullptr, s, oneRequest(), options), Started) << fitting;
    }
}

TEST(Calibration, AFigureNoMachineMeasuresIsRefusedNamingItsField)
{
    const auto base = nlohmann::json::parse(toJson(smallCalibration()).dump());
    // Each figure far outside what a memory or a copy engine measures: the simulator's clock would pass its end (or
    // a copy take years), so the profile is refused before anything runs.
    const std::vector<std::tuple<const char*, const char*, double>> hostile{
        {"copy", "latency_ns", 1e300},           {"copy", "bandwidth_gbps", 1e-300},
        {"copy", "descriptor_ns", 1e300},        {"attention", "step_ns", 1e300},
        {"attention", "bandwidth_gbps", 1e-300}, {"attention", "sequence_bandwidth_gbps", 1e-300},
        {"copy", "bandwidth_gbps", 1e300},       {"copy", "latency_ns", -1},
        {"attention", "warm_step_ns", 1e300},    {"attention", "warm_bandwidth_gbps", 1e-300}};
    for (const auto& [section, key, value] : hostile) {
        auto j = base;
        j[section][key] = value;
        try {
            core::real::profileFromJson(j, "p.json");
            ADD_FAILURE() << section << "/" << key << " = " << value << " was taken";
        } catch (const core::InputError& e) {
            ASSERT_EQ(e.problems().size(), 1u) << section << "/" << key;
            EXPECT_EQ(e.problems()[0].field, fmt::format("/{}/{}", section, key));
            EXPECT_EQ(e.problems()[0].file, "p.json");
            EXPECT_NE(e.problems()[0].fix.find("cohsim calibrate"), std::string::npos);
        }
    }
    // A descriptor cost that leaves whole descriptors under a megabyte a second names the cost.
    auto slow = base;
    slow["copy"]["descriptor_bytes"] = 1;
    slow["copy"]["descriptor_ns"] = 1e8;
    try {
        core::real::profileFromJson(slow, "p.json");
        ADD_FAILURE() << "a copy of 10 B/s was taken";
    } catch (const core::InputError& e) {
        EXPECT_EQ(e.problems().at(0).field, "/copy/descriptor_ns");
        EXPECT_NE(e.problems()[0].message.find("leaves copies at"), std::string::npos) << e.problems()[0].message;
    }
    // The slowest profile the ranges allow still runs on the simulator's clock.
    auto slowest = base;
    slowest["copy"]["latency_ns"] = core::real::kMaxProfileNs;
    slowest["copy"]["bandwidth_gbps"] = core::real::kMinProfileGBps;
    slowest["copy"]["descriptor_bytes"] = 0;
    slowest["attention"]["step_ns"] = core::real::kMaxProfileNs;
    slowest["attention"]["bandwidth_gbps"] = core::real::kMinProfileGBps;
    const HardwareProfile p = core::real::profileFromJson(slowest, "p.json");
    const Scenario s = core::real::profiledScenario(twoGpuScenario(), p);
    RunOptions options;
    options.backend.profile = p;
    const RunResult r = runScenario(s, oneRequest(), options);
    EXPECT_EQ(r.summary.completed, 1u);
}

TEST(Calibration, CompareRealRefusesAProfileOfAnotherAttentionShapeBeforeAnyRun)
{
    // The CPU kernel is bound by its arithmetic, which grows with the query heads each KV head serves: a profile of
    // Llama-3-8B's shape (4 per KV head) misjudges a model of another.
    Scenario s = twoGpuScenario();
    s.sourcePath = "two-gpu.json";
    SimVsRealOptions options;
    options.profile = profileFor(s);
    options.profile->attentionShape.queryHeads = 4;
    options.profile->attentionShape.kvHeads = 2;
    const auto problem = refusedProfile(s, options, "a profile of another shape stood for the scenario's");
    EXPECT_EQ(problem.field, "--profile");
    EXPECT_NE(problem.message.find("4 query heads over 2 KV heads of 64"), std::string::npos) << problem.message;
    EXPECT_NE(problem.message.find("attend with 1, 1, 64"), std::string::npos) << problem.message;
    EXPECT_NE(problem.fix.find("cohsim calibrate two-gpu.json --backend real-cpu"), std::string::npos) << problem.fix;
    // What compare-real (and `cohsim calibrate SCENARIO`) measures for the scenario fits it.
    const core::real::CalibrationOptions calibration = core::calibrationFor(s, "real-cpu", {});
    EXPECT_TRUE(core::real::sameShape(calibration.attention.shape,
                                      core::decodeAttentionShape(s.model, s.serving.blockTokens, 1)));
    EXPECT_EQ(calibration.attention.elementBytes, 2u);
    EXPECT_EQ(calibration.descriptorBytes, core::descriptorBytesFor(s));
    EXPECT_EQ(calibration.attention.poolBytes, core::real::RealCpuOptions{}.arenaBytes);
    options.profile->attentionShape = calibration.attention.shape;
    struct Started {};
    options.stage = [](const std::string&) { throw Started{}; };
    EXPECT_THROW(runSimVsReal(nullptr, s, oneRequest(), options), Started);
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
    const HardwareProfile p = core::real::calibrate(options);
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
