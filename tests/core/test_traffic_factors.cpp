// A profile of a real run's own costs takes its steps' time after each amount of other traffic
// (HardwareProfile::attentionAfterTraffic, real::ownTrafficFactors), keeps it in its file, and the simulator on it
// costs each step out of the core's cache by the bytes its transport sent since the instance's step before.
#include "core/base/input_error.h"
#include "core/net/flow_network.h"
#include "core/net/step_size_buckets.h"
#include "core/real/calibration.h"
#include "core/serving/calibrated_compute.h"
#include "decode_step_fixtures.h"

#include <gtest/gtest.h>

#include <functional>

namespace coh::test {
namespace {

using core::real::HardwareProfile;
using core::real::TrafficFactorPoint;

constexpr double kMiB = 1 << 20;

HardwareProfile withFactors(std::vector<TrafficFactorPoint> points)
{
    HardwareProfile p;
    p.attentionStepNs = 1000;
    p.attentionBytesPerNs = 2;
    p.attentionAfterTraffic = std::move(points);
    return p;
}

TEST(TrafficFactor, AStepTakesItsAmountsFactorAndBetweenTwoAmountsTheLineOverTheirPowersOfTwo)
{
    EXPECT_DOUBLE_EQ(HardwareProfile{}.trafficFactor(1e9), 1); // none: every step as the curve says
    const HardwareProfile p = withFactors({{0, 0.9, 100}, {4 << 20, 1.2, 50}, {64 << 20, 1.5, 10}});
    EXPECT_DOUBLE_EQ(p.trafficFactor(0), 0.9);
    EXPECT_DOUBLE_EQ(p.trafficFactor(0.5), 0.9); // under a byte is none
    // An amount's bucket takes its factor, wherever in the bucket.
    EXPECT_DOUBLE_EQ(p.trafficFactor(4 * kMiB), 1.2);
    EXPECT_DOUBLE_EQ(p.trafficFactor(7.9 * kMiB), 1.2);
    // 16 MiB is 2 of the 4 doublings from 4 to 64 MiB.
    EXPECT_DOUBLE_EQ(p.trafficFactor(16 * kMiB), 1.2 + 0.5 * 0.3);
    // One byte: a doubling past none (half a byte) of the 23 to 4 MiB.
    EXPECT_DOUBLE_EQ(p.trafficFactor(1), 0.9 + 0.3 / 23);
    // Past the last, the last's.
    EXPECT_DOUBLE_EQ(p.trafficFactor(1e12), 1.5);
    // Short of the first where the first is past none.
    EXPECT_DOUBLE_EQ(withFactors({{1 << 20, 1.1, 5}, {2 << 20, 1.3, 5}}).trafficFactor(0), 1.1);
}

// A run's steps out of the cache: `steps` of `bytes` each after `copied`, at `nsPerByte`, kept by size and by traffic.
void addSteps(core::BackendSummary& run, int steps, double copied, double bytes, double nsPerByte)
{
    for (int i = 0; i < steps; ++i) {
        core::addStep(run.attentionBySize, bytes, bytes * nsPerByte);
        core::addTrafficStep(run.attentionByTraffic, copied, bytes, bytes * nsPerByte);
    }
}

TEST(TrafficFactor, ARunsOwnCostsTellTheQuietCurveFromWhatTrafficAddsAndKeepThemInTheirFile)
{
    // Quiet steps of 4.5 MiB at 0.2 ns a byte and of 20 MiB at 0.25; after 8 to 16 MiB copied 1.2 times that, after
    // 1 to 2 GiB 1.5 times. The busy part has the larger steps, so by size alone 20 MiB's mean is mostly busy.
    core::BackendSummary run;
    run.name = "real-cpu";
    run.attentionFit = {0, 6, 500};
    addSteps(run, 10, 0, 4.5 * kMiB, 0.2);
    addSteps(run, 2, 0, 20 * kMiB, 0.25);
    addSteps(run, 3, 9 * kMiB, 4.5 * kMiB, 0.2 * 1.2);
    addSteps(run, 5, 9 * kMiB, 20 * kMiB, 0.25 * 1.2);
    addSteps(run, 6, 1.5 * 1024 * kMiB, 20 * kMiB, 0.25 * 1.5);
    addSteps(run, 3, 3 * 1024 * kMiB, 20 * kMiB, 0.25 * 4); // too few steps to say: left out
    HardwareProfile calibrated;
    calibrated.attentionStepNs = 1000;
    calibrated.attentionBytesPerNs = 5;
    EXPECT_EQ(core::real::ownCostsTaken(run, 0).trafficPoints, 3u);
    const HardwareProfile own = core::real::ownCostProfile(calibrated, run);
    ASSERT_EQ(own.attentionAfterTraffic.size(), 3u);
    EXPECT_EQ(own.attentionAfterTraffic[0].fromBytes, 0u);
    EXPECT_DOUBLE_EQ(own.attentionAfterTraffic[0].factor, 1);
    EXPECT_EQ(own.attentionAfterTraffic[0].steps, 12u);
    EXPECT_EQ(own.attentionAfterTraffic[1].fromBytes, std::uint64_t{8} << 20);
    EXPECT_NEAR(own.attentionAfterTraffic[1].factor, 1.2, 1e-9);
    EXPECT_EQ(own.attentionAfterTraffic[2].fromBytes, std::uint64_t{1} << 30);
    EXPECT_NEAR(own.attentionAfterTraffic[2].factor, 1.5, 1e-9);
    // The curve is the quiet steps': each size at its quiet time, though most of 20 MiB's steps were busy.
    ASSERT_EQ(own.attentionCurve.size(), 2u);
    EXPECT_NEAR(own.attentionCurve[0].ns / own.attentionCurve[0].bytes, 0.2, 1e-9);
    EXPECT_NEAR(own.attentionCurve[1].ns / own.attentionCurve[1].bytes, 0.25, 1e-9);
    // So a busy step costs what such steps took.
    EXPECT_NEAR(own.attentionNs(20 * kMiB, 0) * own.trafficFactor(1.5 * 1024 * kMiB), 20 * kMiB * 0.25 * 1.5, 1e-3);
    // Costs moved by a factor leave what traffic does to them.
    EXPECT_EQ(core::real::withCostsScaled(own, 1.1).attentionAfterTraffic, own.attentionAfterTraffic);
    // Written and read back whole.
    HardwareProfile file = own;
    file.copy.bytesPerNs = 8;
    file.attentionShape = {.queryHeads = 4, .kvHeads = 2, .headDim = 32, .blockTokens = 16};
    const auto j = nlohmann::json::parse(core::real::toJson(file).dump());
    EXPECT_EQ(core::real::profileFromJson(j, "own.json").attentionAfterTraffic, own.attentionAfterTraffic);
    // A hand edit no run makes is refused, naming the list and how to mend it.
    for (const auto& edit : std::vector<std::function<void(nlohmann::json&)>>{
             [](nlohmann::json& t) { t[1]["from_bytes"] = 3000000; }, // not a power of two
             [](nlohmann::json& t) { std::swap(t[0], t[1]); },        // out of order
             [](nlohmann::json& t) { t[1]["factor"] = 9; },           // not what traffic does
             [](nlohmann::json& t) { t[1]["factor"] = "slow"; },      // not a number
             [](nlohmann::json& t) { t[0]["steps"] = 0; },            // over no steps
             [](nlohmann::json& t) { t[0]["from_bytes"] = -1; },      // no amount
             [](nlohmann::json& t) { t[0].erase("steps"); }}) {
        auto hostile = j;
        edit(hostile["attention"]["after_traffic"]);
        try {
            core::real::profileFromJson(hostile, "own.json");
            ADD_FAILURE() << "taken: " << hostile["attention"]["after_traffic"].dump();
        } catch (const core::InputError& e) {
            ASSERT_EQ(e.problems().size(), 1u) << e.what();
            EXPECT_EQ(e.problems()[0].field.rfind("/attention/after_traffic", 0), 0u) << e.what();
            EXPECT_NE(e.problems()[0].fix.find("remove attention.after_traffic"), std::string::npos) << e.what();
        }
    }
}

TEST(TrafficFactor, ARunKeptWithoutSizesTakesEachAmountsStepsOverTheCurve)
{
    // A run stored before its amounts were kept by size: each amount's steps over what the curve costs their mean.
    core::BackendSummary run;
    run.name = "real-cpu";
    run.attentionFit = {0, 6, 500};
    core::addStep(run.attentionBySize, 4 * kMiB, 800e3);
    core::addStep(run.attentionBySize, 16 * kMiB, 3200e3);
    run.attentionByTraffic = {{.fromBytes = 0, .steps = 10, .bytes = 40 * kMiB, .ns = 6400e3},
                              {.fromBytes = 8 << 20, .steps = 6, .bytes = 96 * kMiB, .ns = 24000e3},
                              {.fromBytes = 1 << 30, .steps = 3, .bytes = 48 * kMiB, .ns = 27000e3}};
    HardwareProfile calibrated;
    calibrated.attentionStepNs = 1000;
    calibrated.attentionBytesPerNs = 5;
    EXPECT_TRUE(core::real::fitStepsByTraffic(run).empty());
    const HardwareProfile own = core::real::ownCostProfile(calibrated, run);
    ASSERT_EQ(own.attentionAfterTraffic.size(), 2u);
    EXPECT_NEAR(own.attentionAfterTraffic[0].factor, 0.8, 1e-12);
    EXPECT_EQ(own.attentionAfterTraffic[0].steps, 10u);
    EXPECT_EQ(own.attentionAfterTraffic[1].fromBytes, std::uint64_t{8} << 20);
    EXPECT_NEAR(own.attentionAfterTraffic[1].factor, 1.25, 1e-12);
    EXPECT_DOUBLE_EQ(own.attentionCurve[1].ns, 3200e3); // the curve as its steps took
    // One amount tells no traffic apart; a run stored before kept none.
    run.attentionByTraffic.resize(1);
    EXPECT_EQ(core::real::ownCostsTaken(run, 0).trafficPoints, 0u);
    EXPECT_TRUE(core::real::ownCostProfile(calibrated, run).attentionAfterTraffic.empty());
}

// A rate of one size out of a fit, -1 where it fitted none.
double rateOf(const core::real::StepsByTraffic& fit, double bytes)
{
    for (const auto& [size, nsPerByte] : fit.nsPerByteBySize)
        if (size == core::stepSizeBucketOf(bytes))
            return nsPerByte;
    return -1;
}

TEST(TrafficFactor, APartNoStepJoinsToTheStepsAfterNoneIsLeftOut)
{
    // 20 MiB steps came only after 1 GiB, and 1 GiB's steps were only of 20 MiB: nothing tells their traffic from
    // their size, so neither is fitted, and the curve leaves 20 MiB to the sizes either side.
    core::BackendSummary run;
    run.name = "real-cpu";
    addSteps(run, 10, 0, 4.5 * kMiB, 0.2);
    addSteps(run, 5, 9 * kMiB, 4.5 * kMiB, 0.24);
    addSteps(run, 6, 1.5 * 1024 * kMiB, 20 * kMiB, 0.375);
    const core::real::StepsByTraffic fit = core::real::fitStepsByTraffic(run);
    ASSERT_EQ(fit.factors.size(), 2u);
    EXPECT_NEAR(fit.factors[1].factor, 1.2, 1e-9);
    EXPECT_NEAR(rateOf(fit, 4.5 * kMiB), 0.2, 1e-9);
    EXPECT_EQ(rateOf(fit, 20 * kMiB), -1);
    const core::real::OwnAttention own = core::real::ownAttention(run, 0);
    EXPECT_TRUE(own.quiet);
    ASSERT_EQ(own.curve.size(), 1u);
    EXPECT_NEAR(own.curve[0].ns / own.curve[0].bytes, 0.2, 1e-9);
    // With the steps after 8 MiB gone too, one amount is left: nothing to tell, no factors, the sizes' means.
    run.attentionByTraffic.erase(run.attentionByTraffic.begin() + 1);
    EXPECT_TRUE(core::real::fitStepsByTraffic(run).empty());
    const core::real::OwnAttention means = core::real::ownAttention(run, 0);
    EXPECT_FALSE(means.quiet);
    EXPECT_TRUE(means.factors.empty());
    EXPECT_EQ(means.curve.size(), 2u);
}

TEST(TrafficFactor, AWeakLinkStillSettlesOnTheFactor)
{
    // A thousand steps of each block, and one step joining them: the fit still finds 1 GiB's steps twice as long.
    core::BackendSummary run;
    run.name = "real-cpu";
    addSteps(run, 1000, 0, 4.5 * kMiB, 0.2);
    addSteps(run, 1000, 1.5 * 1024 * kMiB, 20 * kMiB, 0.5);
    addSteps(run, 1, 0, 20 * kMiB, 0.25);
    const core::real::StepsByTraffic fit = core::real::fitStepsByTraffic(run);
    ASSERT_EQ(fit.factors.size(), 2u);
    EXPECT_NEAR(fit.factors[1].factor, 2, 1e-6);
    EXPECT_NEAR(rateOf(fit, 20 * kMiB), 0.25, 1e-6);
}

TEST(TrafficFactor, AnAmountWhoseFactorNoProfileHoldsIsLeftOutAndTheRestFittedAgain)
{
    core::BackendSummary run;
    run.name = "real-cpu";
    addSteps(run, 10, 0, 4.5 * kMiB, 0.2);
    addSteps(run, 5, 0, 20 * kMiB, 0.25);
    addSteps(run, 5, 9 * kMiB, 20 * kMiB, 0.25 * 1.2);
    addSteps(run, 5, 1.5 * 1024 * kMiB, 20 * kMiB, 0.25 * 9); // nine times as long: not what traffic does
    const core::real::StepsByTraffic fit = core::real::fitStepsByTraffic(run);
    ASSERT_EQ(fit.factors.size(), 2u);
    EXPECT_EQ(fit.factors[1].fromBytes, std::uint64_t{8} << 20);
    EXPECT_NEAR(fit.factors[1].factor, 1.2, 1e-9);
    EXPECT_NEAR(rateOf(fit, 20 * kMiB), 0.25, 1e-9); // not pulled towards the nine-fold steps
}

// The simulator's transport, to send bytes on between steps.
struct Traffic : FlowEndpoint {
    Scenario s = smallAttentionScenario(3);
    Simulator sim;
    Routing routing{s.topology};
    FlowNetwork net{s.topology, routing, sim, 0, 1, kSecond};
    void onFlowDelivered(const FlowInfo&) override {}
    void send(double bytes) { net.send(routing.routeId(0, 1), bytes, *this, 0); }
};

TEST(TrafficFactor, TheSimulatorCostsAStepByTheBytesSentSinceItsInstancesStepBefore)
{
    Traffic t;
    const CostModel cost(t.s.model, t.s.serving);
    const InstanceState inst = decodeInstance(cost, t.s, {1}, 2, 500);
    const SimTime linear = cost.decodeLinear(2, inst.hw);
    // Per layer, out of any cache: 1000 ns + 256000 bytes / 2 bytes per ns = 129000 ns; 3 layers.
    const SimTime plain = linear + 3 * 129000;
    core::CalibratedCompute compute(cost, t.s.model, 16, withFactors({{0, 0.5, 10}, {1 << 20, 2, 10}}));
    compute.watchTraffic(t.net);
    EXPECT_EQ(compute.decode(inst, {}), plain);              // its first step: nothing before it to count from
    EXPECT_EQ(compute.decode(inst, {}), linear + 3 * 64500); // nothing sent since: half
    t.send(3 * kMiB);
    EXPECT_EQ(compute.decode(inst, {}), linear + 3 * 258000); // 3 MiB sent since: twice
    EXPECT_EQ(compute.decode(inst, {}), linear + 3 * 64500);  // counted from the step before, not the run's start
    // Another instance's steps count from their own.
    const InstanceState other = decodeInstance(cost, t.s, {0}, 2, 500);
    EXPECT_EQ(compute.decode(other, {}), cost.decodeLinear(2, other.hw) + 3 * 129000);
    core::BackendSummary summary;
    compute.describe(summary);
    // Its steps after its first, kept by the traffic before them as a real run keeps its own: two after none, one
    // after 2 to 4 MiB; each at the time it was costed per layer.
    const std::vector<core::TrafficBucket> kept = core::trafficTotals(summary.attentionByTraffic);
    ASSERT_EQ(kept.size(), 2u);
    EXPECT_EQ(kept[0].fromBytes, 0u);
    EXPECT_EQ(kept[0].steps, 2u);
    EXPECT_DOUBLE_EQ(kept[0].ns, 2 * 64500);
    EXPECT_EQ(kept[1].fromBytes, std::uint64_t{2} << 20);
    EXPECT_DOUBLE_EQ(kept[1].ns, 258000);
    EXPECT_NE(summary.scaledDown.find("times its run's factor after the bytes copied since the instance's step before "
                                      "(0.50 after none to 2.00 after 1 MiB or more; 3 steps"),
              std::string::npos)
        << summary.scaledDown;
    // A step the core's cache holds is not one a run kept by traffic.
    HardwareProfile warm = withFactors({{0, 0.5, 10}, {1 << 20, 2, 10}});
    warm.attentionWarmBytes = 300000;
    warm.attentionWarmStepNs = 500;
    warm.attentionWarmBytesPerNs = 8;
    core::CalibratedCompute cached(cost, t.s.model, 16, warm);
    cached.watchTraffic(t.net);
    cached.decode(inst, {});
    t.send(3 * kMiB);
    EXPECT_EQ(cached.decode(inst, {}), linear + 3 * 32500);
    // Without a transport to watch, or without factors, every step as the lines say.
    core::CalibratedCompute unwatched(cost, t.s.model, 16, withFactors({{0, 0.5, 10}, {1 << 20, 2, 10}}));
    unwatched.decode(inst, {});
    EXPECT_EQ(unwatched.decode(inst, {}), plain);
    core::CalibratedCompute noFactors(cost, t.s.model, 16, withFactors({}));
    noFactors.watchTraffic(t.net);
    noFactors.decode(inst, {});
    t.send(3 * kMiB);
    EXPECT_EQ(noFactors.decode(inst, {}), plain);
}

} // namespace
} // namespace coh::test
