// A hardware profile's file: the rows each fit was made from come back as they were written, and what a hand edit
// makes of the informative fields (the machine's names, its cores, the rows) is refused naming the field, as the
// figures are.
#include "core/base/input_error.h"
#include "core/real/calibration.h"
#include "core/real/profile_json.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace coh::core::real {
namespace {

HardwareProfile writtenProfile()
{
    HardwareProfile p;
    p.backend = "real-cuda";
    p.host = "node-7";
    p.cpu = "NVIDIA H100 80GB HBM3";
    p.cores = 16;
    p.copy = {.latencyNs = 2000, .bytesPerNs = 900, .descriptorNs = 300};
    p.copy.rows = {{.bytes = 64, .plainNs = 1500, .copyNs = 2100, .messageNs = 9000},
                   {.bytes = 1 << 20, .plainNs = 3000, .copyNs = 3200, .messageNs = 0}};
    p.copy.descriptorRows = {{.bytes = 1 << 20, .copyNs = 7700, .descriptors = 16}};
    p.descriptorBytes = 64 << 10;
    p.hostCopy = {.latencyNs = 5000, .bytesPerNs = 50};
    p.hostCopy.rows = {{.bytes = 4096, .plainNs = 4000, .copyNs = 5100}};
    p.attentionShape = {.queryHeads = 32, .kvHeads = 8, .headDim = 128, .blockTokens = 16};
    p.attentionElementBytes = 2;
    p.attentionStepNs = 4000;
    p.attentionBytesPerNs = 2500;
    p.attentionSequenceBytesPerNs = 90;
    p.attentionRows = {{.context = 128, .kvBytes = 4.0 * 1024 * 1024, .attentionNs = 5800}};
    p.sequenceRows = {{.context = 32768, .kvBytes = 16.0 * 1024 * 1024, .attentionNs = 190000}};
    return p;
}

// The problems profileFromJson names in `j` (none, and a failure, where it takes the profile).
std::vector<InputProblem> problemsOf(const nlohmann::json& j)
{
    try {
        profileFromJson(j, "p.json");
        ADD_FAILURE() << "the profile was taken: " << j.dump();
    } catch (const InputError& e) {
        return e.problems();
    }
    return {};
}

TEST(ProfileJson, TheMeasuredRowsAndTheMachineComeBackAsWritten)
{
    const HardwareProfile p = writtenProfile();
    const HardwareProfile back = profileFromJson(nlohmann::json::parse(toJson(p).dump()), "p.json");
    EXPECT_EQ(back.host, "node-7");
    EXPECT_EQ(back.cpu, "NVIDIA H100 80GB HBM3");
    EXPECT_EQ(back.cores, 16u);
    ASSERT_EQ(back.copy.rows.size(), 2u);
    EXPECT_EQ(back.copy.rows[1].bytes, std::size_t{1} << 20);
    EXPECT_DOUBLE_EQ(back.copy.rows[0].plainNs, 1500);
    EXPECT_DOUBLE_EQ(back.copy.rows[0].copyNs, 2100);
    EXPECT_DOUBLE_EQ(back.copy.rows[0].messageNs, 9000);
    EXPECT_DOUBLE_EQ(back.copy.rows[1].messageNs, 0); // a GPU's copy bench times no message
    ASSERT_EQ(back.copy.descriptorRows.size(), 1u);
    EXPECT_EQ(back.copy.descriptorRows[0].descriptors, 16u);
    EXPECT_DOUBLE_EQ(back.copy.descriptorRows[0].copyNs, 7700);
    EXPECT_TRUE(back.copy.descriptorMeasured());
    ASSERT_EQ(back.hostCopy.rows.size(), 1u);
    EXPECT_EQ(back.hostCopy.rows[0].bytes, 4096u);
    ASSERT_EQ(back.attentionRows.size(), 1u);
    EXPECT_EQ(back.attentionRows[0].context, 128u);
    EXPECT_DOUBLE_EQ(back.attentionRows[0].kvBytes, 4.0 * 1024 * 1024);
    EXPECT_DOUBLE_EQ(back.attentionRows[0].attentionNs, 5800);
    ASSERT_EQ(back.sequenceRows.size(), 1u);
    EXPECT_EQ(back.sequenceRows[0].context, 32768u);
    // Written again, the file is the same file.
    EXPECT_EQ(toJson(back).dump(), toJson(p).dump());
    // A profile that lists no rows (hand-made, or trimmed) is still a profile: its figures are what the simulator runs.
    auto bare = nlohmann::json::parse(toJson(p).dump());
    bare["copy"].erase("measured");
    bare["attention"].erase("measured_one_sequence");
    const HardwareProfile figures = profileFromJson(bare, "p.json");
    EXPECT_TRUE(figures.copy.rows.empty());
    EXPECT_TRUE(figures.sequenceRows.empty());
    EXPECT_DOUBLE_EQ(figures.copy.bytesPerNs, 900);
}

TEST(ProfileJson, AWarmLinesRowsComeBackWithIt)
{
    HardwareProfile p = writtenProfile();
    p.backend = "real-cpu";
    p.attentionSequenceBytesPerNs = 0;
    p.sequenceRows.clear();
    p.hostCopy = {};
    p.attentionWarmBytes = 2 << 20;
    p.attentionWarmStepNs = 100;
    p.attentionWarmBytesPerNs = 8;
    p.warmRows = {{.context = 64, .kvBytes = 65536, .attentionNs = 8200},
                  {.context = 448, .kvBytes = 458752, .attentionNs = 57000}};
    const auto j = nlohmann::json::parse(toJson(p).dump());
    const HardwareProfile back = profileFromJson(j, "p.json");
    ASSERT_EQ(back.warmRows.size(), 2u);
    EXPECT_EQ(back.warmRows[1].context, 448u);
    EXPECT_DOUBLE_EQ(back.warmRows[1].attentionNs, 57000);
    EXPECT_EQ(toJson(back).dump(), toJson(p).dump());
}

TEST(ProfileJson, AProfileOfARunsOwnCostsNamesTheRunAndAHandEditOfItIsRefused)
{
    HardwareProfile p = writtenProfile();
    EXPECT_FALSE(toJson(p).contains("costs_of_run")); // a calibration's: measured here
    p.costsOfRun = 12;
    const auto j = nlohmann::json::parse(toJson(p).dump());
    EXPECT_EQ(j.at("costs_of_run"), 12);
    const HardwareProfile back = profileFromJson(j, "p.json");
    EXPECT_EQ(back.costsOfRun, 12u);
    EXPECT_EQ(toJson(back).dump(), toJson(p).dump());
    for (const nlohmann::json& hostile :
         {nlohmann::json(-3), nlohmann::json(0), nlohmann::json(1.5), nlohmann::json("twelve"), nlohmann::json(nullptr),
          nlohmann::json(std::uint64_t{1} << 63)}) {
        auto edited = j;
        edited["costs_of_run"] = hostile;
        const std::vector<InputProblem> problems = problemsOf(edited);
        ASSERT_EQ(problems.size(), 1u) << hostile.dump();
        EXPECT_EQ(problems[0].field, "/costs_of_run");
        EXPECT_NE(problems[0].fix.find("cohsim runs list"), std::string::npos) << problems[0].fix;
    }
}

TEST(ProfileJson, HowItsCopiesWereMeasuredComesBackAndOneMadeBeforeIsSaidToBeALoneBenchs)
{
    HardwareProfile p = writtenProfile();
    p.backend = "real-cpu";
    p.hostCopy = {}; // real-cpu has one path
    p.attentionSequenceBytesPerNs = 0;
    p.sequenceRows.clear();
    EXPECT_FALSE(toJson(p).at("copy").contains("caches_left")); // made before: not said, and read as not so
    EXPECT_FALSE(profileFromJson(nlohmann::json::parse(toJson(p).dump()), "p.json").copiesCachesLeft);
    EXPECT_NE(copiesMeasuredAlone(p).find("lone bench"), std::string::npos);
    p.copiesCachesLeft = true;
    const auto j = nlohmann::json::parse(toJson(p).dump());
    EXPECT_EQ(j.at("copy").at("caches_left"), true);
    const HardwareProfile back = profileFromJson(j, "p.json");
    EXPECT_TRUE(back.copiesCachesLeft);
    EXPECT_EQ(toJson(back).dump(), toJson(p).dump());
    EXPECT_EQ(copiesMeasuredAlone(back), "");
    // Nothing to say of a run's own copies, or of a GPU's.
    p.copiesCachesLeft = false;
    p.costsOfRun = 3;
    EXPECT_EQ(copiesMeasuredAlone(p), "");
    EXPECT_EQ(copiesMeasuredAlone(writtenProfile()), "");
    for (const nlohmann::json& hostile : {nlohmann::json(1), nlohmann::json("yes"), nlohmann::json(nullptr)}) {
        auto edited = j;
        edited["copy"]["caches_left"] = hostile;
        const std::vector<InputProblem> problems = problemsOf(edited);
        ASSERT_EQ(problems.size(), 1u) << hostile.dump();
        EXPECT_EQ(problems[0].field, "/copy/caches_left");
    }
}

TEST(ProfileJson, ADescriptorLargerThanEverySizeMeasuredMeasuredNoCost)
{
    HardwareProfile p = writtenProfile();
    p.copy.descriptorRows = {{.bytes = 4096, .copyNs = 2200, .descriptors = 1},
                             {.bytes = 1 << 20, .copyNs = 3300, .descriptors = 1}};
    EXPECT_FALSE(p.copy.descriptorMeasured());
    p.copy.descriptorRows.push_back({.bytes = 64 << 20, .copyNs = 90000, .descriptors = 2});
    EXPECT_TRUE(p.copy.descriptorMeasured());
}

TEST(ProfileJson, WhatAHandEditMakesOfTheMachineOrItsRowsIsRefusedNamingTheField)
{
    const auto good = nlohmann::json::parse(toJson(writtenProfile()).dump());
    const std::vector<std::pair<std::string, std::function<void(nlohmann::json&)>>> edits = {
        {"/cores", [](nlohmann::json& j) { j["cores"] = -4; }},
        {"/cores", [](nlohmann::json& j) { j["cores"] = "sixteen"; }},
        {"/cores", [](nlohmann::json& j) { j["cores"] = 2.5; }},
        {"/cpu", [](nlohmann::json& j) { j["cpu"] = 5; }},
        {"/host", [](nlohmann::json& j) { j["host"] = nlohmann::json::array({"a"}); }},
        {"/host", [](nlohmann::json& j) { j["host"] = std::string(5000, 'h'); }},
        {"/cpu", [](nlohmann::json& j) { j["cpu"] = "\x1b[31mred"; }}, // would recolour the terminal it is printed on
        {"/attention/measured_warm", // warm rows on a profile with no warm line (a GPU's)
         [](nlohmann::json& j) {
             j["attention"]["measured_warm"] = {{{"context", 64}, {"kv_bytes", 65536}, {"attention_ns", 9000}}};
         }},
        {"/copy/measured", [](nlohmann::json& j) { j["copy"]["measured"] = "lots"; }},
        {"/copy/measured/1", [](nlohmann::json& j) { j["copy"]["measured"][1] = 7; }},
        {"/copy/measured/0/copy_ns", [](nlohmann::json& j) { j["copy"]["measured"][0]["copy_ns"] = -1; }},
        {"/copy/measured/0/bytes", [](nlohmann::json& j) { j["copy"]["measured"][0]["bytes"] = 0; }},
        {"/copy/measured/1/memcpy_ns", [](nlohmann::json& j) { j["copy"]["measured"][1]["memcpy_ns"] = 1e300; }},
        {"/copy/measured/1", [](nlohmann::json& j) { j["copy"]["measured"][1]["bandwidth"] = 3; }},
        {"/copy/measured_in_descriptors/0/descriptors",
         [](nlohmann::json& j) { j["copy"]["measured_in_descriptors"][0]["descriptors"] = 0; }},
        {"/host_copy/measured/0/message_ns",
         [](nlohmann::json& j) { j["host_copy"]["measured"][0]["message_ns"] = "fast"; }},
        {"/attention/measured/0/context", [](nlohmann::json& j) { j["attention"]["measured"][0]["context"] = 1.5; }},
        {"/attention/measured/0/kv_bytes", [](nlohmann::json& j) { j["attention"]["measured"][0]["kv_bytes"] = 0; }},
        {"/attention/measured_one_sequence/0/context",
         [](nlohmann::json& j) { j["attention"]["measured_one_sequence"][0]["context"] = std::uint64_t{1} << 33; }},
        {"/attention/measured_warm", [](nlohmann::json& j) { j["attention"]["measured_warm"] = nlohmann::json{}; }},
    };
    for (const auto& [field, edit] : edits) {
        auto hostile = good;
        edit(hostile);
        const std::vector<InputProblem> problems = problemsOf(hostile);
        ASSERT_EQ(problems.size(), 1u) << field << ": " << hostile.dump();
        EXPECT_EQ(problems[0].field, field) << hostile.dump();
        EXPECT_EQ(problems[0].file, "p.json");
        EXPECT_NE(problems[0].fix.find("cohsim calibrate -o FILE"), std::string::npos) << problems[0].fix;
    }
    // Rows past what any calibration measures are one problem, not thousands.
    auto many = good;
    many["copy"]["measured"] = nlohmann::json::array();
    for (int i = 0; i < 5000; ++i)
        many["copy"]["measured"].push_back(7);
    const std::vector<InputProblem> problems = problemsOf(many);
    ASSERT_EQ(problems.size(), 1u);
    EXPECT_EQ(problems[0].field, "/copy/measured");
    // A name of null is no name: the file of a machine that had none to give.
    auto unnamed = good;
    unnamed["host"] = nullptr;
    EXPECT_EQ(profileFromJson(unnamed, "p.json").host, "");
}

} // namespace
} // namespace coh::core::real
