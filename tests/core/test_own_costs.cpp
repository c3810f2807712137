// A real run's own costs (core/net/cost_fit.h, real::ownCostProfile): every copy and decode step it times is fitted,
// the fits are stored with the run, and the simulator can run on them in place of a calibration's.
#include "core/real/calibration.h"
#include "core/real/core_cache.h"
#include "core/serving/own_costs_text.h"
#include "core/serving/serving_engine.h"
#include "core/store/backend_json.h"
#include "engine_fixtures.h"

#include <gtest/gtest.h>

#include <utility>
#include <vector>

namespace coh::test {
namespace {

TEST(CostFit, BothFitsRecoverAFixedCostAndABandwidthAsPointsArrive)
{
    core::CostFitSums sums;
    EXPECT_FALSE(sums.relativeFit().measured());
    EXPECT_FALSE(sums.totalFit().measured());
    for (const double bytes : {64.0, 4096.0, 1e6, 1e8})
        sums.add(bytes, 500 + bytes / 4);
    sums.add(1e6, 0); // a time no clock gives: left out
    for (const core::CostFit& fit : {sums.relativeFit(), sums.totalFit()}) {
        EXPECT_NEAR(fit.fixedNs, 500, 1e-3);
        EXPECT_NEAR(fit.bytesPerNs, 4, 1e-9);
        EXPECT_EQ(fit.points, 4u);
    }
    // Noise that would make the fixed cost negative: through the origin, as calibration fits.
    core::CostFitSums noisy;
    noisy.add(1000, 100);
    noisy.add(2000, 300);
    EXPECT_EQ(noisy.relativeFit().fixedNs, 0);
    const auto [zero, through] = core::real::fitLatencyBandwidth({{1000, 100}, {2000, 300}});
    EXPECT_EQ(zero, 0);
    EXPECT_DOUBLE_EQ(through, noisy.relativeFit().bytesPerNs);
    // The total fit keeps the totals: no fixed cost here, so 3000 bytes in 400 ns.
    EXPECT_EQ(noisy.totalFit().fixedNs, 0);
    EXPECT_DOUBLE_EQ(noisy.totalFit().bytesPerNs, 7.5);
    // With a fixed cost, the relative fit's, and the bytes over the time left: 2 x 50 ns fixed, 5000 B in 500 ns.
    core::CostFitSums fixed;
    fixed.add(1000, 150);
    fixed.add(4000, 450);
    EXPECT_NEAR(fixed.totalFit().fixedNs, 50, 1e-9);
    EXPECT_NEAR(fixed.totalFit().bytesPerNs, 10, 1e-9);
}

TEST(CostFit, PointsOfSizesTooCloseTogetherHaveNoFixedCost)
{
    // 2 to 3 MiB, 10 us + bytes / 5 GB/s with a little noise: the span cannot tell the fixed cost from the bandwidth
    // (a probe's run fitted 533 us + bytes / 57.8 GB/s to such steps), so the fit goes through the origin.
    core::CostFitSums narrow;
    for (const double mib : {2.0, 2.2, 2.5, 2.8, 3.0})
        narrow.add(mib * (1 << 20), (10e3 + mib * (1 << 20) / 5) * (mib == 2.5 ? 1.04 : 1.0));
    EXPECT_EQ(narrow.relativeFit().fixedNs, 0);
    EXPECT_EQ(narrow.totalFit().fixedNs, 0);
    EXPECT_NEAR(narrow.totalFit().bytesPerNs, 5, 0.2);
    // Four times apart, the same line is told apart again.
    core::CostFitSums wide;
    for (const double mib : {1.0, 4.0})
        wide.add(mib * (1 << 20), 10e3 + mib * (1 << 20) / 5);
    EXPECT_NEAR(wide.relativeFit().fixedNs, 10e3, 1e-6);
    EXPECT_NEAR(wide.relativeFit().bytesPerNs, 5, 1e-9);
}

TEST(CostFit, ARunsFitAddsUpToTheTimeItMeasuredWhereTheRelativeFitDoesNot)
{
    // Many small fast points (cached) beside a few large slow ones (from memory), as a run's copies and steps are.
    core::CostFitSums sums;
    std::vector<std::pair<double, double>> points;
    for (int i = 0; i < 200; ++i)
        points.emplace_back(4096 + 64 * i, 300 + (4096 + 64 * i) / 20.0);
    for (const double bytes : {5e7, 6e7, 7e7})
        points.emplace_back(bytes, bytes / 5.0);
    double measured = 0;
    for (const auto& [bytes, ns] : points) {
        sums.add(bytes, ns);
        measured += ns;
    }
    const auto predicted = [&](const core::CostFit& fit) {
        double total = 0;
        for (const auto& [bytes, ns] : points)
            total += fit.fixedNs + bytes / fit.bytesPerNs;
        return total;
    };
    EXPECT_NEAR(predicted(sums.totalFit()), measured, 1e-9 * measured);
    // Its fixed cost is about the small points' (300 ns), not one the few large ones would set.
    EXPECT_NEAR(sums.totalFit().fixedNs, 300, 30);
    // Weighted by relative error, the small points set the bandwidth: the large ones' time is badly under-predicted.
    EXPECT_LT(predicted(sums.relativeFit()), 0.5 * measured);
}

TEST(CostFit, AProfileOnARunsOwnCostsTakesEachFigureTheRunMeasured)
{
    core::real::HardwareProfile calibrated;
    calibrated.copy = {.latencyNs = 300, .bytesPerNs = 5, .descriptorNs = 1200, .rows = {{}}, .descriptorRows = {{}}};
    calibrated.hostCopy = {.latencyNs = 9000, .bytesPerNs = 0.5, .descriptorNs = 2000, .rows = {{}}};
    calibrated.descriptorBytes = 65536;
    calibrated.attentionStepNs = 40000;
    calibrated.attentionBytesPerNs = 3;
    calibrated.attentionSequenceBytesPerNs = 0.1;
    calibrated.attentionShape.queryHeads = 8;
    calibrated.attentionElementBytes = 2;
    calibrated.attentionRows.resize(2);
    core::BackendSummary run;
    EXPECT_FALSE(core::real::fittedOwnCosts(run));
    run.copyFit = {.fixedNs = 100, .bytesPerNs = 2, .points = 7};
    run.attentionFit = {.fixedNs = 20000, .bytesPerNs = 6, .points = 9};
    EXPECT_TRUE(core::real::fittedOwnCosts(run));
    const core::real::HardwareProfile own = core::real::ownCostProfile(calibrated, run);
    EXPECT_EQ(own.copy.latencyNs, 100);
    EXPECT_EQ(own.copy.bytesPerNs, 2);
    // A run's copies are already in descriptors: their cost is in the fitted bandwidth, not added again.
    EXPECT_EQ(own.copy.descriptorNs, 0);
    EXPECT_EQ(own.effectiveCopyBytesPerNs(), 2);
    EXPECT_TRUE(own.copy.rows.empty());
    EXPECT_EQ(own.attentionStepNs, 20000);
    EXPECT_EQ(own.attentionBytesPerNs, 6);
    // Its steps already paid for their longest sequences: no lone sequence's bound on top.
    EXPECT_EQ(own.attentionSequenceBytesPerNs, 0);
    EXPECT_TRUE(own.attentionRows.empty());
    // What the run did not measure stays the calibration's, with its rows; what a run cannot change stays too.
    EXPECT_EQ(own.hostCopy.latencyNs, 9000);
    EXPECT_EQ(own.hostCopy.descriptorNs, 2000);
    EXPECT_EQ(own.hostCopy.rows.size(), 1u);
    EXPECT_EQ(own.attentionShape.queryHeads, 8u);
    EXPECT_EQ(own.attentionElementBytes, 2);
    EXPECT_EQ(own.descriptorBytes, 65536u);
    run.hostCopyFit = {.fixedNs = 5000, .bytesPerNs = 0.8, .points = 3};
    run.attentionFit = {};
    const core::real::HardwareProfile host = core::real::ownCostProfile(calibrated, run);
    EXPECT_EQ(host.hostCopy.bytesPerNs, 0.8);
    EXPECT_EQ(host.hostCopy.descriptorNs, 0);
    EXPECT_EQ(host.attentionBytesPerNs, 3);
    EXPECT_EQ(host.attentionSequenceBytesPerNs, 0.1);
    EXPECT_EQ(host.attentionRows.size(), 2u);
    // Warm steps: the run's, with its cache size, where it fitted any; else the calibration's.
    calibrated.attentionWarmBytes = 2 << 20;
    calibrated.attentionWarmStepNs = 100;
    calibrated.attentionWarmBytesPerNs = 9;
    calibrated.warmRows.resize(4);
    EXPECT_EQ(core::real::ownCostProfile(calibrated, run).attentionWarmBytesPerNs, 9);
    EXPECT_EQ(core::real::ownCostProfile(calibrated, run).warmRows.size(), 4u);
    core::BackendSummary warmOnly;
    warmOnly.attentionWarmFit = {.fixedNs = 300, .bytesPerNs = 12, .points = 5};
    EXPECT_FALSE(core::real::fittedOwnCosts(warmOnly)); // fitted under no cache size
    warmOnly.attentionWarmBytes = 1 << 20;
    EXPECT_TRUE(core::real::fittedOwnCosts(warmOnly));
    const core::real::HardwareProfile warm = core::real::ownCostProfile(calibrated, warmOnly);
    EXPECT_EQ(warm.attentionWarmBytes, std::size_t{1} << 20);
    EXPECT_EQ(warm.attentionWarmStepNs, 300);
    EXPECT_EQ(warm.attentionWarmBytesPerNs, 12);
    EXPECT_TRUE(warm.warmRows.empty());
    EXPECT_EQ(warm.attentionBytesPerNs, 3); // the steps out of memory stay the calibration's
    // A fit no machine gives is not taken.
    run.copyFit.bytesPerNs = 1e300;
    EXPECT_EQ(core::real::ownCostProfile(calibrated, run).copy.bytesPerNs, 5);
    // The simulator pays them: every pair of memories joined by a link of the run's copy cost.
    const Topology t = core::real::profiledTopology(twoGpuScenario().topology, own);
    ASSERT_FALSE(t.links.empty());
    EXPECT_EQ(t.links[0].latency, 100);
    EXPECT_DOUBLE_EQ(t.links[0].bandwidthBytesPerSec, 2e9);
}

TEST(CostFit, AStoredFitNoMachineGivesReadsAsNone)
{
    for (const char* fit : {R"({"fixed_ns": -5, "bytes_per_ns": 3, "points": 4})",
                            R"({"fixed_ns": 5, "bytes_per_ns": 1e300, "points": 4})",
                            R"({"fixed_ns": 5, "bytes_per_ns": 3, "points": 0})", R"({"fixed_ns": "x"})", R"(7)"}) {
        SCOPED_TRACE(fit);
        nlohmann::ordered_json j = {{"name", "real-cpu"}};
        j["copy_fit"] = nlohmann::ordered_json::parse(fit);
        EXPECT_FALSE(core::backendFromJson(j).copyFit.measured());
    }
    nlohmann::ordered_json good = {{"name", "real-cpu"}};
    good["attention_fit"] = {{"fixed_ns", 10.0}, {"bytes_per_ns", 3.0}, {"points", 4u}};
    EXPECT_EQ(core::backendFromJson(good).attentionFit, (core::CostFit{10, 3, 4}));
    // A warm fit is read with the cache size it was fitted under, and not without one no machine has.
    good["attention_warm_fit"] = {{"fixed_ns", 5.0}, {"bytes_per_ns", 9.0}, {"points", 6u}};
    good["attention_warm_bytes"] = 2u << 20;
    EXPECT_EQ(core::backendFromJson(good).attentionWarmFit, (core::CostFit{5, 9, 6}));
    EXPECT_EQ(core::backendFromJson(good).attentionWarmBytes, 2u << 20);
    for (const nlohmann::ordered_json& bad :
         {nlohmann::ordered_json(std::uint64_t{1} << 40), nlohmann::ordered_json(-1), nlohmann::ordered_json("x")}) {
        auto hostile = good;
        hostile["attention_warm_bytes"] = bad;
        EXPECT_FALSE(core::backendFromJson(hostile).attentionWarmFit.measured()) << bad;
    }
}

TEST(RealCpuBackend, ARunFitsEveryCopyAndDecodeStepItTimedAndStoresTheFits)
{
    Scenario s = twoGpuScenario();
    s.coherence.decode = "msi-directory";
    Workload w;
    for (std::uint32_t i = 0; i < 3; ++i)
        w.requests.push_back({static_cast<SimTime>(i) * kSecond, 1000u + 500 * i, 6, 0, 0});
    RunOptions real;
    real.backend.name = "real-cpu";
    real.backend.realCpu.arenaBytes = 4 << 20;
    // The contexts' 1000 to 2006 tokens are 256 to 514 KB a layer: a cache of 384 KiB tells steps of both kinds apart.
    real.backend.realCpu.warmBytes = 384 << 10;
    const core::BackendSummary b = runScenario(s, w, real).summary.backend;
    ASSERT_GT(b.copies, 0u);
    EXPECT_EQ(b.copyFit.points, b.copies);
    EXPECT_FALSE(b.hostCopyFit.measured()); // real-cpu has one path
    // Every step is in one of the two attention fits, by the bytes its layer read: from the core's cache, or from
    // memory.
    EXPECT_GT(b.attentionFit.points, 0u);
    EXPECT_GT(b.attentionWarmFit.points, 0u);
    EXPECT_EQ(b.attentionFit.points + b.attentionWarmFit.points, b.decodeSteps);
    EXPECT_EQ(b.attentionWarmBytes, 384u << 10);
    EXPECT_NE(core::describeOwnCosts(b).find("where a layer read at most 384 KiB"), std::string::npos)
        << core::describeOwnCosts(b);
    // A fixed cost in the unit that keeps it short: "347 µs", not "3.47e+05 ns".
    core::BackendSummary shown;
    shown.copyFit = {295, 6.38, 112};
    shown.attentionFit = {3.47e5, 21, 55};
    EXPECT_EQ(core::describeOwnCosts(shown), "a copy 295 ns + bytes / 6.38 GB/s (fitted over 112 copies); a layer of a "
                                             "decode step's attention 347 µs + K/V bytes / 21 GB/s (over 55 steps)");
    // Figures a machine gives: a bandwidth the profile would accept, a fixed cost under a second.
    for (const core::CostFit& fit : {b.copyFit, b.attentionFit, b.attentionWarmFit}) {

        EXPECT_GT(fit.bytesPerNs, core::real::kMinProfileGBps);
        EXPECT_LT(fit.bytesPerNs, core::real::kMaxProfileGBps);
        EXPECT_GE(fit.fixedNs, 0);
        EXPECT_LT(fit.fixedNs, core::real::kMaxProfileNs);
    }
    const core::BackendSummary stored = core::backendFromJson(core::toJson(b));
    EXPECT_EQ(stored.copyFit, b.copyFit);
    EXPECT_EQ(stored.attentionFit, b.attentionFit);
    EXPECT_EQ(stored.attentionWarmFit, b.attentionWarmFit);
    // Left to the machine, the steps are told apart by its core's cache; with none given, all are in one fit.
    real.backend.realCpu.warmBytes.reset();
    EXPECT_EQ(runScenario(s, w, real).summary.backend.attentionWarmBytes, core::real::coreCacheBytes());
    real.backend.realCpu.warmBytes = 0;
    const core::BackendSummary one = runScenario(s, w, real).summary.backend;
    EXPECT_EQ(one.attentionFit.points, one.decodeSteps);
    EXPECT_FALSE(one.attentionWarmFit.measured());
    // A simulated run times nothing: no fits, and none stored.
    const core::BackendSummary sim = runScenario(s, w, {}).summary.backend;
    EXPECT_EQ(sim.copyFit.points + sim.attentionFit.points, 0u);
    EXPECT_FALSE(core::toJson(sim).contains("copy_fit"));
}

} // namespace
} // namespace coh::test
