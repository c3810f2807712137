// Input a fuzzer (or a bad day) produces, through the real binary: every class found by fuzzing scenarios and
// traces ends as exit 2 naming the file and the field, never a crash, an exit 1, a silent default or a run that
// "completes" nothing. One test per class; docs/reliability.md lists them.
#include "cli_run_fixture.h"
#include "cli_runner.h"
#include "core/scenario/input_limits.h"
#include "core/scenario/strict_json.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>

#include <sys/stat.h>

namespace coh::test {
namespace {

using nlohmann::json;

class HostileInput : public TestFolder {
  protected:
    static json defaultScenario()
    {
        return json::parse(std::ifstream(std::string(COH_DATASETS_DIR) + "/scenarios/default.json"));
    }
    // `cohsim validate` and `cohsim run` on the same file: both must refuse it the same way.
    // `named` is the file the message must name: the scenario, or the trace it names when the trace is wrong.
    void expectRefused(const std::string& path, const std::string& field, const std::string& words,
                       std::string named = "") const
    {
        if (named.empty())
            named = fs::path(path).filename().string();
        for (const char* command : {"validate ", "run --no-store "}) {
            const CliResult r = runCohsim(command + path);
            EXPECT_EQ(r.exitCode, 2) << command << r.output;
            EXPECT_NE(r.output.find(named), std::string::npos) << command << "does not name " << named << ":\n"
                                                               << r.output;
            EXPECT_NE(r.output.find(field), std::string::npos) << command << "no field " << field << ":\n" << r.output;
            EXPECT_NE(r.output.find(words), std::string::npos) << command << "no '" << words << "':\n" << r.output;
            EXPECT_NE(r.output.find("fix"), std::string::npos) << command << r.output;
        }
    }
};

// Class: stack overflow. A value nested 50,000 deep crashed validate and run (the error dumped it recursively).
TEST_F(HostileInput, NestingBeyondTheLimitIsRefusedNamingTheLimit)
{
    std::string deep = R"({"name": "deep", "description": )";
    deep += std::string(50'000, '[') + std::string(50'000, ']') + "}";
    const std::string path = file("deep.json", deep);
    expectRefused(path, "/description", "nested more than " + std::to_string(core::kMaxJsonDepth));
}

TEST_F(HostileInput, NestingJustInsideTheLimitIsRead)
{
    // The limit counts containers: the top object plus 63 arrays is accepted by the reader.
    std::string text =
        "{\"a\": " + std::string(core::kMaxJsonDepth - 1, '[') + std::string(core::kMaxJsonDepth - 1, ']') + "}";
    EXPECT_NO_THROW(core::parseStrictJson<json>(text, "mem.json"));
    text = "{\"a\": " + std::string(core::kMaxJsonDepth, '[') + std::string(core::kMaxJsonDepth, ']') + "}";
    EXPECT_THROW(core::parseStrictJson<json>(text, "mem.json"), core::InputError);
}

// Class: silent acceptance. A repeated key silently took the last value.
TEST_F(HostileInput, ARepeatedKeyIsRefusedWithItsPointer)
{
    std::string text = defaultScenario().dump();
    // Repeat the first link's bandwidth: {"a": ..., "bandwidth": "128 GB/s", "bandwidth": "1 GB/s", ...}.
    const std::string needle = R"("bandwidth":"128 GB/s")";
    const auto at = text.find(needle);
    ASSERT_NE(at, std::string::npos);
    text.insert(at + needle.size(), R"(,"bandwidth":"1 GB/s")");
    expectRefused(file("repeated.json", text), "/topology/links/0/bandwidth", "appears twice");
}

TEST_F(HostileInput, ANumberBeyondADoubleIsABadInputNamingLineAndColumn)
{
    const std::string path = file("huge-number.json", "{\n  \"name\": \"x\",\n  \"seed\": 1e400\n}");
    const CliResult r = runCohsim("validate " + path);
    EXPECT_EQ(r.exitCode, 2) << r.output;
    EXPECT_NE(r.output.find("line 3, column"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("1e400"), std::string::npos) << r.output;
}

TEST_F(HostileInput, ASeedOfTwoToThe64IsRefusedNotWrappedToZero)
{
    std::string text = defaultScenario().dump();
    const auto at = text.find(R"("seed":1)");
    ASSERT_NE(at, std::string::npos);
    text.replace(at, 8, R"("seed":18446744073709551616)");
    expectRefused(file("seed.json", text), "/seed", "18446744073709551615");
    // The largest seed itself is fine.
    text.replace(text.find("18446744073709551616"), 20, "18446744073709551615");
    const CliResult r = runCohsim("validate " + file("max-seed.json", text));
    EXPECT_EQ(r.exitCode, 0) << r.output;
}

TEST_F(HostileInput, AnInfiniteCapacityIsRefused)
{
    json s = defaultScenario();
    s["topology"]["nodes"][2]["memory"][0]["capacity"] = "1e308 TB";
    expectRefused(file("capacity.json", s.dump()), "/topology/nodes/2/memory/0/capacity", "1e308 TB");
}

TEST_F(HostileInput, ARequestNoDecodeInstanceCanHoldIsRefusedInsteadOfCompletingNothing)
{
    json s = defaultScenario();
    s["workload"] = {{"type", "synthetic"},
                     {"requests", 5},
                     {"arrival", {{"process", "poisson"}, {"rate", 10}}},
                     {"prompt", {{"dist", "fixed"}, {"value", 100}}},
                     {"output", {{"dist", "fixed"}, {"value", 1'000'000'000}}}};
    expectRefused(file("huge-output.json", s.dump()), "/workload/output", "can never be served");
}

// Class: time overflow. Tiny FLOP/s, bandwidth or a huge time scale reached static_cast<SimTime> and ended as
// "event time went backwards" (exit 1).
TEST_F(HostileInput, FlopsFarTooSmallAreRefusedNamingTheNode)
{
    json s = defaultScenario();
    s["topology"]["nodes"][2]["compute"]["peak_flops"] = "1 FLOP/s";
    expectRefused(file("flops.json", s.dump()), "/topology/nodes/2/compute/peak_flops", "limit is one day");
}

TEST_F(HostileInput, ALinkFarTooSlowIsRefusedNamingTheLink)
{
    json s = defaultScenario();
    s["topology"]["links"][3]["bandwidth"] = "0.1 B/s";
    expectRefused(file("slow-link.json", s.dump()), "/topology/links/3/bandwidth", "limit is one day");
}

// Found by a later probe: validate said ok, run ended with "event time went backwards" (exit 1) or "passed the end of
// its clock"; now both refuse the field.
TEST_F(HostileInput, AnIterationOverheadBeyondADayIsRefusedNamingIt)
{
    json s = defaultScenario();
    s["serving"]["iteration_overhead"] = "1e8 s";
    expectRefused(file("overhead.json", s.dump()), "/serving/iteration_overhead", "limit of a step is one day");
}

TEST_F(HostileInput, SyntheticArrivalsPastTheClockAreRefusedNamingTheRateOrTheSpread)
{
    json s = defaultScenario();
    s["workload"] = json::parse(R"({"type": "synthetic", "requests": 50, "arrival": {"process": "poisson", "rate":
        1e-9}, "prompt": {"dist": "fixed", "value": 64}, "output": {"dist": "fixed", "value": 8}})");
    expectRefused(file("rate.json", s.dump()), "/workload/arrival/rate", "beyond the 64-bit nanosecond clock");
    s["workload"]["arrival"] = json::parse(R"({"process": "constant", "rate": 1e-300})");
    expectRefused(file("constant.json", s.dump()), "/workload/arrival/rate", "beyond the 64-bit nanosecond clock");
    // A gap that is no number at all (a Debug build's Boost asserted on it) arrives never.
    s["workload"]["arrival"] = json::parse(R"({"process": "poisson", "rate": 1e-320})");
    expectRefused(file("never.json", s.dump()), "/workload/arrival/rate", "would arrive never");
    for (const double cv : {1e-300, 1e300}) {
        s["workload"]["arrival"] = json::parse(R"({"process": "gamma", "rate": 4})");
        s["workload"]["arrival"]["cv"] = cv;
        expectRefused(file("cv.json", s.dump()), "/workload/arrival/cv", "is outside 0.001 to 1000");
    }
}

TEST_F(HostileInput, AHugeTimeScaleIsRefusedNamingIt)
{
    json s = defaultScenario();
    s["workload"]["time_scale"] = 1e300;
    // The span comes from the trace, the scale from the scenario: the message names the trace and the field.
    expectRefused(file("time-scale.json", s.dump()), "/workload/time_scale", "64-bit nanosecond clock",
                  "AzureLLMInferenceTrace_conv.csv");
}

TEST_F(HostileInput, ATraceDateBeyondTheClockIsRefusedNamingTheRow)
{
    const std::string trace = file("far-future.csv", "TIMESTAMP,ContextTokens,GeneratedTokens\n"
                                                     "2023-11-16 18:15:46.6805900,374,44\n"
                                                     "9999-01-01 00:00:00,374,44\n");
    json s = defaultScenario();
    s["workload"] = {{"type", "trace"}, {"format", "azure"}, {"path", trace}};
    expectRefused(file("far-future.json", s.dump()), "line 3", "outside the range", "far-future.csv");
}

TEST_F(HostileInput, AMooncakeSpanBeyondTheClockIsRefused)
{
    const std::string trace =
        file("span.jsonl", R"({"timestamp": 0, "input_length": 10, "output_length": 5, "hash_ids": [1]})"
                           "\n"
                           R"({"timestamp": 9000000000000, "input_length": 10, "output_length": 5, "hash_ids": [2]})"
                           "\n");
    json s = defaultScenario();
    s["workload"] = {{"type", "trace"}, {"format", "mooncake"}, {"path", trace}, {"time_scale", 10}};
    expectRefused(file("span.json", s.dump()), "/workload/time_scale", "64-bit nanosecond clock", "span.jsonl");
}

// validate read the scenario but not the trace it names: a bad row passed validate and failed run.
TEST_F(HostileInput, ATracePathThatIsAFolderOrADeviceIsNamedAsSuchNotAsMissing)
{
    json s = defaultScenario();
    s["workload"]["path"] = m_dir.string();
    expectRefused(file("folder.json", s.dump()), "/workload/path", "is a folder, not a trace file");
    s["workload"]["path"] = "/dev/zero";
    expectRefused(file("device.json", s.dump()), "/workload/path", "is a device or a pipe, not a trace file");
}

// A named pipe as the scenario (or profile) waited for a writer for ever; a descriptor the shell passes, <(...), has
// one and is read.
TEST_F(HostileInput, ANamedPipeIsRefusedAndAProcessSubstitutionRead)
{
    const fs::path fifo = m_dir / "scenario.fifo";
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    const std::string compare =
        "compare-real --no-store " + std::string(COH_DATASETS_DIR) + "/scenarios/default.json --profile ";
    for (const std::string& command : {std::string("validate "), std::string("run --no-store "), compare}) {
        const CliResult r = runCohsim(command + fifo.string());
        EXPECT_EQ(r.exitCode, 2) << command << r.output;
        EXPECT_NE(r.output.find("scenario.fifo"), std::string::npos) << command << r.output;
        EXPECT_NE(r.output.find("is a named pipe"), std::string::npos) << command << r.output;
    }
    // A pipe the shell hands over (here as standard input) is read.
    const CliResult passed = runShell("cat " + std::string(COH_DATASETS_DIR) + "/scenarios/default.json | " +
                                      COH_COHSIM_PATH + " validate /dev/stdin 2>&1");
    EXPECT_EQ(passed.exitCode, 0) << passed.output;
}

// A device as the scenario was read to its 64 MiB cap ("a request trace belongs in workload.path"), /dev/null as an
// empty scenario; binary data was "line 1, column 1: unexpected end of input". Each now says what it is.
TEST_F(HostileInput, ADeviceOrBinaryDataIsNamedAsSuch)
{
    for (const char* device : {"/dev/zero", "/dev/null"}) {
        const CliResult r = runCohsim(std::string("validate ") + device);
        EXPECT_EQ(r.exitCode, 2) << device << r.output;
        EXPECT_NE(r.output.find("is a device, not a JSON file"), std::string::npos) << device << r.output;
    }
    const std::string binary = file("binary.json", std::string("{\"name\"\0\x7f\x01", 10));
    const CliResult r = runCohsim("validate " + binary);
    EXPECT_EQ(r.exitCode, 2) << r.output;
    EXPECT_NE(r.output.find("holds binary data (a zero byte at byte 7), not JSON text"), std::string::npos) << r.output;
    // A profile's file-level problem gets a profile's fix, not a scenario's.
    const std::string empty = file("empty-profile.json", "");
    const CliResult profile = runCohsim("compare-real --no-store " + std::string(COH_DATASETS_DIR) +
                                        "/scenarios/default.json --profile " + empty);
    EXPECT_EQ(profile.exitCode, 2) << profile.output;
    EXPECT_NE(profile.output.find("the file is empty"), std::string::npos) << profile.output;
    EXPECT_NE(profile.output.find("give the profile `cohsim calibrate -o FILE` wrote"), std::string::npos)
        << profile.output;
    EXPECT_EQ(profile.output.find("model catalog"), std::string::npos) << profile.output;
}

TEST_F(HostileInput, ValidateReadsTheTraceRunWillRead)
{
    const std::string trace = file("bad-row.csv", "TIMESTAMP,ContextTokens,GeneratedTokens\n"
                                                  "2023-11-16 18:15:46.6805900,374,44\n"
                                                  "2023-11-16 18:15:47.0000000,many,44\n");
    json s = defaultScenario();
    s["workload"] = {{"type", "trace"}, {"format", "azure"}, {"path", trace}};
    expectRefused(file("bad-row.json", s.dump()), "ContextTokens", "line 3", "bad-row.csv");
}

// Class: unbounded allocation. 10^8 requests or 100,000 nodes ended in std::bad_alloc.
TEST_F(HostileInput, MoreRequestsThanTheLimitAreRefusedBeforeAnyIsGenerated)
{
    json s = defaultScenario();
    s["workload"] = {{"type", "synthetic"},
                     {"requests", 100'000'000},
                     {"arrival", {{"process", "poisson"}, {"rate", 10}}},
                     {"prompt", {{"dist", "fixed"}, {"value", 100}}},
                     {"output", {{"dist", "fixed"}, {"value", 10}}}};
    expectRefused(file("requests.json", s.dump()), "/workload/requests", std::to_string(core::kMaxRequests));
}

TEST_F(HostileInput, MoreNodesThanTheLimitAreRefusedBeforeAnyIsRead)
{
    json s = defaultScenario();
    json node = s["topology"]["nodes"][0];
    json nodes = json::array();
    for (std::uint32_t i = 0; i <= core::kMaxNodes; ++i) {
        node["id"] = fmt::format("n{}", i); // "n" + to_string trips GCC 12's -Wrestrict here
        nodes.push_back(node);
    }
    s["topology"]["nodes"] = nodes;
    const std::string path = file("nodes.json", s.dump());
    expectRefused(path, "/topology/nodes", std::to_string(core::kMaxNodes));
    // Only that: the instances' nodes were not read, so "no prefill instance" and the like would be false.
    const CliResult r = runCohsim("validate " + path);
    EXPECT_NE(r.output.find("1 problem"), std::string::npos) << r.output;
    EXPECT_EQ(r.output.find("instance"), std::string::npos) << r.output;
}

// An error quotes a bounded excerpt, and a file with thousands of mistakes lists a bounded number of them.
TEST_F(HostileInput, ErrorsQuoteABoundedExcerptAndABoundedList)
{
    json s = defaultScenario();
    json big = json::array();
    for (int i = 0; i < 100'000; ++i)
        big.push_back(i);
    s["seed"] = big;
    for (int i = 0; i < 5'000; ++i)
        s["unknown_key_" + std::to_string(i)] = i;
    const CliResult r = runCohsim("validate " + file("noisy.json", s.dump()));
    EXPECT_EQ(r.exitCode, 2) << r.output.substr(0, 2000);
    EXPECT_LT(r.output.size(), 40'000u) << "the report is not bounded";
    EXPECT_NE(r.output.find("more problems not listed"), std::string::npos) << r.output.substr(0, 2000);
    EXPECT_EQ(r.output.find("99999"), std::string::npos) << "the whole array was quoted";
}

TEST(StrictJson, ExcerptsAreBoundedWhateverTheValue)
{
    json deep = json::array();
    json* at = &deep;
    for (int i = 0; i < 1000; ++i) {
        at->push_back(json::array());
        at = &at->back();
    }
    EXPECT_LE(core::jsonExcerpt(deep).size(), 64u);
    EXPECT_EQ(core::jsonExcerpt(json("short")), "\"short\"");
    EXPECT_EQ(core::jsonExcerpt(json::parse("[1,2]")), "[1, 2]");
    EXPECT_LE(core::jsonExcerpt(json(std::string(1 << 20, 'x'))).size(), 64u);
}

TEST(StrictJson, ReadsWhatNlohmannReadsAndKeepsMemberOrder)
{
    const std::string text = R"({"z": 1, "a": [true, null, -2, 3.5, "s", {"k": {}}], "m": 18446744073709551615})";
    EXPECT_EQ(core::parseStrictJson<json>(text, "mem.json"), json::parse(text));
    const auto ordered = core::parseStrictJson<nlohmann::ordered_json>(text, "mem.json");
    EXPECT_EQ(ordered, nlohmann::ordered_json::parse(text));
    EXPECT_EQ(ordered.begin().key(), "z");
}

TEST(StrictJson, ARepeatedKeyDeepInsideNamesItsPointer)
{
    try {
        core::parseStrictJson<json>(R"({"a": [0, {"b": {"c": 1, "c": 2}}]})", "mem.json");
        FAIL() << "accepted a repeated key";
    } catch (const core::InputError& e) {
        ASSERT_EQ(e.problems().size(), 1u);
        EXPECT_EQ(e.problems()[0].field, "/a/1/b/c");
        EXPECT_EQ(e.problems()[0].file, "mem.json");
    }
}

// The CLI's usage mistakes exit 2 (not CLI11's 104-114) with one line pointing at --help; --help exits 0.
TEST(CliUsage, EveryUsageMistakeExitsTwoPointingAtHelp)
{
    for (const char* args : {"", "no-such-command", "run", "run a.json --seed abc", "run a.json --bogus", "runs show",
                             "lab --caches x", "bench phold --lps"}) {
        const CliResult r = runCohsim(args);
        EXPECT_EQ(r.exitCode, 2) << "cohsim " << args << "\n" << r.output;
        EXPECT_NE(r.output.find("--help"), std::string::npos) << "cohsim " << args << "\n" << r.output;
        EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << "cohsim " << args << "\n" << r.output;
    }
    for (const char* args : {"--help", "run --help", "--version"}) {
        const CliResult r = runCohsim(args, Stderr::Discard);
        EXPECT_EQ(r.exitCode, 0) << "cohsim " << args;
        EXPECT_FALSE(r.output.empty()) << "cohsim " << args;
    }
}

} // namespace
} // namespace coh::test
