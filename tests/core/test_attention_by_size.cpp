// A real run's decode steps by the bytes a layer read (core/net/step_size_buckets.h), kept with the run, and set
// against what a profile predicts for the same steps (core/store/attention_by_size.h).
#include "core/base/input_error.h"
#include "core/net/step_size_buckets.h"
#include "core/net/traffic_buckets.h"
#include "core/real/calibration.h"
#include "core/store/attention_by_size.h"
#include "core/store/backend_json.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>

namespace coh::core {
namespace {

constexpr double kMiB = 1 << 20;

TEST(StepSizeBuckets, EachStepGoesToThePowerOfTwoAtOrBelowItsBytesInOrder)
{
    EXPECT_EQ(stepSizeBucketOf(0), 1u);
    EXPECT_EQ(stepSizeBucketOf(1.5), 1u);
    EXPECT_EQ(stepSizeBucketOf(kMiB), std::uint64_t{1} << 20);
    EXPECT_EQ(stepSizeBucketOf(2 * kMiB - 1), std::uint64_t{1} << 20);
    EXPECT_EQ(stepSizeBucketOf(3 * kMiB), std::uint64_t{2} << 20);
    std::vector<StepSizeBucket> buckets;
    addStep(buckets, 5 * kMiB, 800e3);
    addStep(buckets, 1.5 * kMiB, 200e3);
    addStep(buckets, 6 * kMiB, 1000e3);
    addStep(buckets, 3 * kMiB, 0);                                        // no measurement: left out
    addStep(buckets, 3 * kMiB, std::numeric_limits<double>::quiet_NaN()); // nor this
    ASSERT_EQ(buckets.size(), 2u);
    EXPECT_EQ(buckets[0].fromBytes, std::uint64_t{1} << 20);
    EXPECT_EQ(buckets[0].steps, 1u);
    EXPECT_EQ(buckets[1].fromBytes, std::uint64_t{4} << 20);
    EXPECT_EQ(buckets[1].steps, 2u);
    EXPECT_DOUBLE_EQ(buckets[1].bytes, 11 * kMiB);
    EXPECT_DOUBLE_EQ(buckets[1].ns, 1800e3);
    EXPECT_DOUBLE_EQ(buckets[1].meanBytes(), 5.5 * kMiB);
    EXPECT_DOUBLE_EQ(buckets[1].meanNs(), 900e3);
    // Another run's steps merge bucket by bucket.
    std::vector<StepSizeBucket> more;
    addStep(more, 64 * 1024, 10e3);
    addStep(more, 4 * kMiB, 700e3);
    addSteps(buckets, more);
    ASSERT_EQ(buckets.size(), 3u);
    EXPECT_EQ(buckets[0].fromBytes, 64u * 1024);
    EXPECT_EQ(buckets[2].steps, 3u);
    EXPECT_DOUBLE_EQ(buckets[2].ns, 2500e3);
}

TEST(StepSizeBuckets, AreKeptWithTheRunAndWhatNoRunMakesIsLeftOut)
{
    BackendSummary s;
    s.name = "real-cpu";
    addStep(s.attentionBySize, 1.5 * kMiB, 200e3);
    addStep(s.attentionBySize, 5 * kMiB, 800e3);
    const auto j = toJson(s);
    ASSERT_TRUE(j.contains("attention_by_size"));
    EXPECT_EQ(backendFromJson(j).attentionBySize, s.attentionBySize);
    // A run stored before the steps were told by size has none.
    auto old = j;
    old.erase("attention_by_size");
    EXPECT_TRUE(backendFromJson(old).attentionBySize.empty());
    // A bucket no run makes: of a size not a power of two, bytes outside its size, no steps, no time, not an object.
    // (Unsigned, as a file holds counts: a signed count reads as none, and would be left out for that.) One that is
    // whole is taken, so the ones below are left out for what they say.
    auto whole = j;
    whole["attention_by_size"].push_back(
        nlohmann::ordered_json{{"from_bytes", 8388608u}, {"steps", 1u}, {"bytes", 9e6}, {"ns", 1e6}});
    EXPECT_EQ(backendFromJson(whole).attentionBySize.size(), 3u);
    for (const nlohmann::ordered_json& bad :
         {nlohmann::ordered_json{{"from_bytes", 3000000u}, {"steps", 1u}, {"bytes", 3000000}, {"ns", 1e5}},
          nlohmann::ordered_json{{"from_bytes", 1048576u}, {"steps", 1u}, {"bytes", 9e9}, {"ns", 1e5}},
          nlohmann::ordered_json{{"from_bytes", 1048576u}, {"steps", 0u}, {"bytes", 0}, {"ns", 1e5}},
          nlohmann::ordered_json{{"from_bytes", 1048576u}, {"steps", 1u}, {"bytes", 1048576}, {"ns", -1}},
          nlohmann::ordered_json("many")}) {
        auto hostile = j;
        hostile["attention_by_size"].push_back(bad);
        EXPECT_EQ(backendFromJson(hostile).attentionBySize, s.attentionBySize) << bad.dump();
    }
}

TEST(TrafficBuckets, EachStepGoesToThePowerOfTwoOfWhatWasCopiedBeforeItInOrder)
{
    EXPECT_EQ(trafficBucketOf(0), 0u);
    EXPECT_EQ(trafficBucketOf(0.5), 0u);
    EXPECT_EQ(trafficBucketOf(1), 1u);
    EXPECT_EQ(trafficBucketOf(3 * kMiB), std::uint64_t{2} << 20);
    std::vector<TrafficBucket> buckets;
    addTrafficStep(buckets, 40 * kMiB, 8 * kMiB, 2e6);
    addTrafficStep(buckets, 0, 8 * kMiB, 1e6);
    addTrafficStep(buckets, 33 * kMiB, 4 * kMiB, 1e6);
    addTrafficStep(buckets, 5 * kMiB, 4 * kMiB, 0);                                  // no measurement
    addTrafficStep(buckets, std::numeric_limits<double>::infinity(), 4 * kMiB, 1e6); // nor this
    // Each amount's sizes apart, in order of the amount and then the size.
    ASSERT_EQ(buckets.size(), 3u);
    EXPECT_EQ(buckets[0].fromBytes, 0u);
    EXPECT_EQ(buckets[0].sizeFromBytes, std::uint64_t{8} << 20);
    EXPECT_EQ(buckets[0].steps, 1u);
    EXPECT_DOUBLE_EQ(buckets[0].gbps(), 8 * kMiB / 1e6);
    EXPECT_EQ(buckets[1].fromBytes, std::uint64_t{32} << 20);
    EXPECT_EQ(buckets[1].sizeFromBytes, std::uint64_t{4} << 20);
    EXPECT_EQ(buckets[2].fromBytes, std::uint64_t{32} << 20);
    EXPECT_EQ(buckets[2].sizeFromBytes, std::uint64_t{8} << 20);
    // An amount's sizes together.
    const std::vector<TrafficBucket> totals = trafficTotals(buckets);
    ASSERT_EQ(totals.size(), 2u);
    EXPECT_EQ(totals[1].fromBytes, std::uint64_t{32} << 20);
    EXPECT_EQ(totals[1].sizeFromBytes, 0u);
    EXPECT_EQ(totals[1].steps, 2u);
    EXPECT_DOUBLE_EQ(totals[1].gbps(), 12 * kMiB / 3e6);
}

TEST(TrafficBuckets, AreKeptWithTheRunAndWhatNoRunMakesIsLeftOut)
{
    BackendSummary s;
    s.name = "real-cpu";
    addTrafficStep(s.attentionByTraffic, 0, 8 * kMiB, 1e6);
    addTrafficStep(s.attentionByTraffic, 40 * kMiB, 8 * kMiB, 2e6);
    const auto j = toJson(s);
    ASSERT_TRUE(j.contains("attention_by_traffic"));
    EXPECT_EQ(backendFromJson(j).attentionByTraffic, s.attentionByTraffic);
    auto old = j;
    old.erase("attention_by_traffic");
    EXPECT_TRUE(backendFromJson(old).attentionByTraffic.empty());
    EXPECT_EQ(backendFromJson(j).attentionByTraffic[0].sizeFromBytes, std::uint64_t{8} << 20);
    auto whole = j;
    whole["attention_by_traffic"].push_back(nlohmann::ordered_json{
        {"copied_from_bytes", 4194304u}, {"steps", 1u}, {"bytes", 9e6}, {"ns", 1e6}, {"size_from_bytes", 8388608u}});
    EXPECT_EQ(backendFromJson(whole).attentionByTraffic.size(), 3u);
    EXPECT_EQ(backendFromJson(whole).attentionByTraffic[1].fromBytes, 4194304u); // in order
    // A run stored before its amounts were kept by size: every size together, read as such.
    auto before = j;
    for (auto& b : before["attention_by_traffic"])
        b.erase("size_from_bytes");
    ASSERT_EQ(backendFromJson(before).attentionByTraffic.size(), 2u);
    EXPECT_EQ(backendFromJson(before).attentionByTraffic[1].sizeFromBytes, 0u);
    // Each with a size, so that each is left out for its own fault.
    const auto entry = [](std::uint64_t amount, std::uint64_t steps, double bytes, double ns, std::uint64_t size) {
        return nlohmann::ordered_json{
            {"copied_from_bytes", amount}, {"steps", steps}, {"bytes", bytes}, {"ns", ns}, {"size_from_bytes", size}};
    };
    constexpr std::uint64_t k2MiB = 2097152u;
    for (const nlohmann::ordered_json& bad :
         {entry(3000000u, 1, 3e6, 1e5, k2MiB), // an amount not a power of two
          entry(1048576u, 1, 3e6, 1e5, 3u),    // a size not a power of two
          entry(1048576u, 2, 3e6, 1e5, k2MiB), // steps not of their size (1.5 MB each)
          entry(0u, 1, 9e6, 1e5, 8388608u),    // an amount and size twice
          entry(1048576u, 0, 3e6, 1e5, k2MiB), // no steps
          entry(1048576u, 1, 0, 1e5, k2MiB),   // no bytes
          entry(1048576u, 1, 3e6, -1, k2MiB),  // no time
          nlohmann::ordered_json{{"copied_from_bytes", 1048576u}, {"steps", 1u}, {"bytes", 3e6}, {"ns", 1e5}},
          // ^ no size beside sized entries
          nlohmann::ordered_json("many")}) {
        auto hostile = j;
        hostile["attention_by_traffic"].push_back(bad);
        EXPECT_EQ(backendFromJson(hostile).attentionByTraffic, s.attentionByTraffic) << bad.dump();
    }
}

TEST(AttentionBySize, EachSizeIsSetAgainstWhatTheProfileCostsTheSameSteps)
{
    // A layer costs 1000 ns + bytes / 4 GB/s out of the cache, bytes / 8 GB/s within 2 MiB.
    real::HardwareProfile profile;
    profile.attentionStepNs = 1000;
    profile.attentionBytesPerNs = 4;
    profile.attentionWarmBytes = 2 << 20;
    profile.attentionWarmBytesPerNs = 8;
    EXPECT_DOUBLE_EQ(profile.attentionNs(kMiB, kMiB), kMiB / 8);
    EXPECT_DOUBLE_EQ(profile.attentionNs(4 * kMiB, kMiB), 1000 + 4 * kMiB / 4);
    std::vector<StepSizeBucket> run;
    addStep(run, kMiB, kMiB / 8 * 1.25, true); // 25% slower than the warm line
    addStep(run, 4 * kMiB, 1000 + kMiB);
    addStep(run, 6 * kMiB, 1000 + 1.5 * kMiB); // both on the cold line: the bucket's mean is exact
    real::HardwareProfile own = profile;
    own.attentionWarmBytes = 0; // one line through everything: bytes / 5 GB/s
    own.attentionStepNs = 0;
    own.attentionBytesPerNs = 5;
    std::vector<AttentionSizeRow> rows;
    addAttentionBySize(rows, run, profile, &own);
    ASSERT_EQ(rows.size(), 2u);
    EXPECT_EQ(rows[0].steps, 1u);
    EXPECT_TRUE(rows[0].inCache);
    EXPECT_NEAR(rows[0].profileErrorPct(), -20.0, 1e-9); // predicted 1 / 1.25 of the time
    EXPECT_TRUE(rows[0].ownLineCoversAll());
    EXPECT_NEAR(rows[0].ownLineNs, kMiB / 5, 1e-6);
    EXPECT_EQ(rows[1].steps, 2u);
    EXPECT_NEAR(rows[1].profileErrorPct(), 0.0, 1e-9);
    EXPECT_NEAR(rows[1].realGBps(), 10 * kMiB / (2000 + 2.5 * kMiB), 1e-12);
    // A second run that fitted no costs of its own: the column no longer covers every step.
    addAttentionBySize(rows, run, profile, nullptr);
    EXPECT_EQ(rows[1].steps, 4u);
    EXPECT_FALSE(rows[1].ownLineCoversAll());
}

TEST(AttentionBySize, AGpusStepLastsItsLongestSequenceAndACacheSplitsASize)
{
    // A GPU's profile: 2000 ns + bytes / 1000 GB/s for the batch, and a lone sequence's bytes at 100 GB/s at least.
    real::HardwareProfile gpu;
    gpu.backend = "real-cuda";
    gpu.attentionStepNs = 2000;
    gpu.attentionBytesPerNs = 1000;
    gpu.attentionSequenceBytesPerNs = 100;
    std::vector<StepSizeBucket> run;
    addStep(run, 4 * kMiB, 50e3, false, 4 * kMiB);   // one sequence: its own bytes bound the step
    addStep(run, 4 * kMiB, 10e3, false, 0.5 * kMiB); // 8 of them: the batch's bandwidth
    ASSERT_EQ(run.size(), 1u);
    EXPECT_DOUBLE_EQ(run[0].meanLongestBytes(), 2.25 * kMiB);
    std::vector<AttentionSizeRow> rows;
    addAttentionBySize(rows, run, gpu, nullptr);
    ASSERT_EQ(rows.size(), 1u);
    EXPECT_DOUBLE_EQ(rows[0].profileNs, 2 * (2000 + 2.25 * kMiB / 100));
    // A longest sequence past the step's bytes (no such step) counts as the step's.
    addStep(run, 5 * kMiB, 10e3, false, 9 * kMiB);
    EXPECT_DOUBLE_EQ(run[0].longestBytes, 4.5 * kMiB + 5 * kMiB);
    // Steps of one size either side of the run's cache are kept apart, the cache's first.
    std::vector<StepSizeBucket> split;
    addStep(split, 2 * kMiB, 200e3, false);
    addStep(split, 2 * kMiB, 250e3, true);
    addStep(split, 3 * kMiB, 400e3, false);
    ASSERT_EQ(split.size(), 2u);
    EXPECT_TRUE(split[0].inCache);
    EXPECT_EQ(split[0].steps, 1u);
    EXPECT_FALSE(split[1].inCache);
    EXPECT_EQ(split[1].steps, 2u);
    EXPECT_EQ(split[0].fromBytes, split[1].fromBytes);
    // Kept with the run, apart, and a second bucket of one size and side (a hand edit) left out.
    BackendSummary s;
    s.attentionBySize = split;
    s.attentionWarmBytes = 2 << 20; // the cache the run told them apart by
    auto j = toJson(s);
    EXPECT_EQ(backendFromJson(j).attentionBySize, split);
    j["attention_by_size"].push_back(j["attention_by_size"][0]);
    EXPECT_EQ(backendFromJson(j).attentionBySize, split);
    // Sizes past any memory are no run's: twice them would not be a count.
    j = toJson(s);
    j["attention_by_size"].push_back(
        {{"from_bytes", std::uint64_t{1} << 63}, {"steps", 1u}, {"bytes", 1e19}, {"ns", 5}});
    EXPECT_EQ(backendFromJson(j).attentionBySize, split);
    // What a probe stored by hand: a bandwidth no memory gives (1.2e10 GB/s, 1e-293 GB/s), more steps than the run
    // made, an in_cache that is no flag, one in the cache past the run's cache: each left out. (Counts as a file holds
    // them: unsigned.)
    const auto bucket = [](std::uint64_t steps, double ns) {
        return nlohmann::ordered_json{
            {"from_bytes", std::uint64_t{8} << 20}, {"steps", steps}, {"bytes", 9e6 * steps}, {"ns", ns}};
    };
    s.decodeSteps = 3;
    auto notAFlag = bucket(1, 1e6), pastTheCache = bucket(1, 1e6);
    notAFlag["in_cache"] = "yes";
    pastTheCache["in_cache"] = true;
    for (const nlohmann::ordered_json& bad :
         {bucket(1, 1e-3), bucket(1, 1e300), bucket(1, 1e6), notAFlag, pastTheCache}) {
        auto hostile = toJson(s);
        hostile["attention_by_size"].push_back(bad);
        EXPECT_EQ(backendFromJson(hostile).attentionBySize, split) << bad.dump();
    }
    // The same step of 8 MiB in a run of four steps is one of them, as it is out of the cache in a run of five.
    s.decodeSteps = 4;
    auto more = toJson(s);
    more["attention_by_size"].push_back(bucket(1, 1e6));
    ASSERT_EQ(backendFromJson(more).attentionBySize.size(), 3u);
    EXPECT_EQ(backendFromJson(more).attentionBySize[2].fromBytes, std::uint64_t{8} << 20);
    s.decodeSteps = 5;
    auto marked = toJson(s);
    notAFlag["in_cache"] = false;
    marked["attention_by_size"].push_back(notAFlag);
    EXPECT_EQ(backendFromJson(marked).attentionBySize.size(), 3u);
}

} // namespace
} // namespace coh::core

namespace coh::core {
namespace {

TEST(AttentionCurve, ALayerCostsTheLineBetweenTheTwoSizesAroundItOnItsSideOfTheCache)
{
    real::HardwareProfile p;
    p.attentionStepNs = 1e6; // the lines, which the curve replaces
    p.attentionBytesPerNs = 1;
    p.attentionWarmBytes = 2 << 20;
    p.attentionCurve = {{.bytes = 1 * kMiB, .ns = 150e3, .inCache = true},
                        {.bytes = 1.5 * kMiB, .ns = 250e3, .inCache = true},
                        {.bytes = 3 * kMiB, .ns = 450e3},
                        {.bytes = 6 * kMiB, .ns = 900e3},
                        {.bytes = 24 * kMiB, .ns = 4500e3}};
    // Between two points of its side: on the line through them.
    EXPECT_DOUBLE_EQ(p.attentionNs(4.5 * kMiB, 0), 675e3);
    EXPECT_DOUBLE_EQ(p.attentionNs(15 * kMiB, 0), 900e3 + 9 * kMiB * (3600e3 / (18 * kMiB)));
    EXPECT_DOUBLE_EQ(p.attentionNs(1.25 * kMiB, 0), 200e3);
    // At a point: its time.
    EXPECT_DOUBLE_EQ(p.attentionNs(6 * kMiB, 0), 900e3);
    // Beyond the last and short of the first of its side: that point's bandwidth. A step of 2 MiB reads from the
    // cache, so it goes on from the cache's last point, not towards 3 MiB's.
    EXPECT_DOUBLE_EQ(p.attentionNs(48 * kMiB, 0), 9000e3);
    EXPECT_DOUBLE_EQ(p.attentionNs(2 * kMiB, 0), 250e3 * 2 / 1.5);
    EXPECT_DOUBLE_EQ(p.attentionNs(0.5 * kMiB, 0), 75e3);
    EXPECT_DOUBLE_EQ(p.attentionNs(2.5 * kMiB, 0), 375e3);
    // A GPU's longest sequence still bounds its step.
    p.attentionSequenceBytesPerNs = 1;
    EXPECT_DOUBLE_EQ(p.attentionNs(6 * kMiB, 4 * kMiB), 4 * kMiB);
    p.attentionSequenceBytesPerNs = 0;
    // A profile without a cache reads every step as out of it.
    p.attentionWarmBytes = 0;
    EXPECT_DOUBLE_EQ(p.attentionNs(2 * kMiB, 0), 300e3);
    // A side with no point takes them all.
    real::HardwareProfile warmOnly = p;
    warmOnly.attentionWarmBytes = 2 << 20;
    warmOnly.attentionCurve.resize(2);
    EXPECT_DOUBLE_EQ(warmOnly.attentionNs(3 * kMiB, 0), 500e3);
    // Costs moved by a factor move the curve with them.
    EXPECT_DOUBLE_EQ(real::withCostsScaled(p, 1.1).attentionNs(6 * kMiB, 0), 990e3);
}

// The one problem profileFromJson names in profile `j` with its curve edited by `edit` (a failure where it takes
// the profile or names more than one).
InputProblem theCurvesOneProblem(const nlohmann::json& j, const std::function<void(nlohmann::json&)>& edit)
{
    auto hostile = j;
    edit(hostile["attention"]["curve"]);
    try {
        real::profileFromJson(hostile, "own.json");
        ADD_FAILURE() << "taken: " << hostile["attention"]["curve"].dump();
    } catch (const InputError& e) {
        EXPECT_EQ(e.problems().size(), 1u) << e.what();
        if (!e.problems().empty())
            return e.problems()[0];
    }
    return {};
}

TEST(AttentionCurve, ARunsOwnCostsTakeItsStepsTimeAtEachSizeAndKeepItInTheirFile)
{
    BackendSummary run;
    run.name = "real-cpu";
    run.attentionWarmBytes = 2 << 20;
    run.attentionFit = {0, 6, 500};
    run.attentionWarmFit = {0, 7, 300};
    addStep(run.attentionBySize, 1 * kMiB, 150e3, true);
    addStep(run.attentionBySize, 1.5 * kMiB, 250e3, true); // one bucket of 1 to 2 MiB: 1.25 MiB, 200 us
    addStep(run.attentionBySize, 6 * kMiB, 900e3);
    addStep(run.attentionBySize, 3 * kMiB, 450e3);
    real::HardwareProfile calibrated;
    calibrated.attentionStepNs = 1000;
    calibrated.attentionBytesPerNs = 5;
    calibrated.attentionSequenceBytesPerNs = 50;
    const real::HardwareProfile own = real::ownCostProfile(calibrated, run);
    ASSERT_EQ(own.attentionCurve.size(), 3u);
    EXPECT_EQ(own.attentionCurve[0], (real::AttentionCurvePoint{1.25 * kMiB, 200e3, true}));
    EXPECT_EQ(own.attentionCurve[1], (real::AttentionCurvePoint{3 * kMiB, 450e3, false}));
    EXPECT_EQ(own.attentionCurve[2], (real::AttentionCurvePoint{6 * kMiB, 900e3, false}));
    EXPECT_DOUBLE_EQ(own.attentionSequenceBytesPerNs, 0); // its steps already lasted their longest
    EXPECT_DOUBLE_EQ(own.attentionNs(4.5 * kMiB, 4.5 * kMiB), 675e3);
    // Written and read back whole, as compare-real --json prints it.
    real::HardwareProfile file = own;
    file.copy.bytesPerNs = 8;
    file.attentionShape = {.queryHeads = 4, .kvHeads = 2, .headDim = 32, .blockTokens = 16};
    const auto j = nlohmann::json::parse(real::toJson(file).dump());
    EXPECT_EQ(real::profileFromJson(j, "own.json").attentionCurve, own.attentionCurve);
    // A hand edit that leaves no curve a run makes is refused, naming the curve.
    for (const auto& edit : std::vector<std::function<void(nlohmann::json&)>>{
             [](nlohmann::json& c) { std::swap(c[0], c[2]); },    // out of order
             [](nlohmann::json& c) { c[1]["ns"] = 5e9; },         // a layer of five seconds
             [](nlohmann::json& c) { c[1]["in_cache"] = "yes"; }, // not a flag
             [](nlohmann::json& c) { c[0]["bytes"] = 0; }}) {
        const InputProblem problem = theCurvesOneProblem(j, edit);
        EXPECT_EQ(problem.field.rfind("/attention/curve", 0), 0u) << problem.field;
    }
    // Points no run makes are refused too: a bandwidth past any memory's, no time, a larger step faster than a
    // smaller one on its side, a point in the cache past the cache's size, the same size twice.
    for (const auto& edit : std::vector<std::function<void(nlohmann::json&)>>{
             [](nlohmann::json& c) { c[1]["ns"] = 1e-6; }, [](nlohmann::json& c) { c[1]["ns"] = 0; },
             [](nlohmann::json& c) { c[2]["ns"] = 1000; }, [](nlohmann::json& c) { c[2]["in_cache"] = true; },
             [](nlohmann::json& c) { c[2]["bytes"] = c[1]["bytes"]; }}) {
        const InputProblem problem = theCurvesOneProblem(j, edit);
        EXPECT_EQ(problem.field, "/attention/curve");
        EXPECT_NE(problem.fix.find("remove attention.curve"), std::string::npos);
    }
    // A run that kept no steps by size (one stored before) keeps its lines.
    run.attentionBySize.clear();
    EXPECT_TRUE(real::ownCostProfile(calibrated, run).attentionCurve.empty());
}

} // namespace
} // namespace coh::core
