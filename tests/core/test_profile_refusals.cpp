// A hardware profile is refused, naming the field and the fix, when it is broken, holds a figure no machine measures,
// or was measured for another backend, element, descriptor or attention shape than the run it would stand for;
// compare-real refuses such a profile before any run starts.
#include "calibration_fixtures.h"
#include "core/base/input_error.h"
#include "core/real/calibration.h"
#include "core/serving/measured_compute.h"
#include "core/serving/serving_engine.h"
#include "core/store/sim_vs_real.h"
#include "engine_fixtures.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <tuple>
#include <vector>

namespace coh::test {
namespace {

using core::real::HardwareProfile;

TEST(Calibration, ABrokenProfileNamesTheFieldAndTheFix)
{
    auto j = nlohmann::json::parse(toJson(smallCalibration()).dump());
    j["copy"]["bandwidth_gbps"] = 0;
    j["attention"].erase("step_ns");
    j["attention"]["kv_heads"] = "eight";
    j["cores"] = "many";                      // not a figure the simulator uses, but shown as the machine's
    j["copy"]["message_overhead_ns"] = -1e12; // shown as a measured time: checked as one
    try {
        core::real::profileFromJson(j, "p.json");
        FAIL() << "a profile without a bandwidth was taken";
    } catch (const core::InputError& e) {
        ASSERT_EQ(e.problems().size(), 5u);
        EXPECT_EQ(e.problems()[0].field, "/cores");
        EXPECT_EQ(e.problems()[1].field, "/copy/message_overhead_ns");
        EXPECT_EQ(e.problems()[2].field, "/copy/bandwidth_gbps");
        EXPECT_EQ(e.problems()[3].field, "/attention/step_ns");
        EXPECT_EQ(e.problems()[4].field, "/attention/kv_heads");
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

TEST(Calibration, AnUnknownKeyInAProfileIsRefusedWithTheNearestKnownOne)
{
    auto j = nlohmann::json::parse(toJson(smallCalibration()).dump());
    j["copy"]["bandwith_gbps"] = 40; // a typo: read as if absent, the file's figure would silently not count
    j["attention"]["notes"] = "hand-tuned";
    j["comment"] = "from the lab machine";
    try {
        core::real::profileFromJson(j, "p.json");
        FAIL() << "a profile with unknown keys was taken";
    } catch (const core::InputError& e) {
        ASSERT_EQ(e.problems().size(), 3u) << e.what();
        EXPECT_EQ(e.problems()[0].field, "/comment");
        EXPECT_EQ(e.problems()[1].field, "/copy/bandwith_gbps");
        EXPECT_NE(e.problems()[1].message.find("did you mean 'bandwidth_gbps'?"), std::string::npos)
            << e.problems()[1].message;
        EXPECT_EQ(e.problems()[2].field, "/attention/notes");
        EXPECT_NE(e.problems()[2].fix.find("step_ns"), std::string::npos) << e.problems()[2].fix;
    }
    // Every key toJson writes is known: a profile it wrote reads back.
    EXPECT_NO_THROW(core::real::profileFromJson(nlohmann::json::parse(toJson(smallCalibration()).dump()), "p.json"));
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

} // namespace
} // namespace coh::test
