// Trace replay: the Azure 2023 CSV and Mooncake JSONL readers, on fixtures, the shipped traces and bad input.
#include "core/base/input_error.h"
#include "core/workload/azure_trace.h"
#include "core/workload/mooncake_trace.h"
#include "core/workload/workload_builder.h"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

using namespace coh::core;

namespace {

const std::string kFixtures = COH_TEST_DATA_DIR "/traces/";
const std::string kAzureConv = COH_DATASETS_DIR "/traces/azure_llm_2023/AzureLLMInferenceTrace_conv.csv";
const std::string kMooncakeConv = COH_DATASETS_DIR "/traces/mooncake_fast25/conversation_trace.jsonl";

// Writes `text` to a fresh file in the temp folder; removed when the test ends.
class TempTrace {
  public:
    TempTrace(const std::string& name, const std::string& text)
        : m_path((std::filesystem::temp_directory_path() /
                  (std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) + "_" + name))
                     .string())
    {
        std::ofstream(m_path, std::ios::binary) << text;
    }
    ~TempTrace() { std::filesystem::remove(m_path); }
    const std::string& path() const { return m_path; }

  private:
    std::string m_path;
};

template <class F> InputProblem expectInputError(F&& f)
{
    try {
        f();
    } catch (const InputError& e) {
        EXPECT_EQ(e.problems().size(), 1u);
        return e.problems().front();
    }
    ADD_FAILURE() << "no InputError";
    return {};
}

InputProblem azureError(const std::string& text)
{
    TempTrace t("bad.csv", text);
    InputProblem p = expectInputError([&] { readAzureTrace(t.path(), 1.0, 0); });
    EXPECT_EQ(p.file, t.path());
    EXPECT_FALSE(p.fix.empty());
    return p;
}

InputProblem mooncakeError(const std::string& text)
{
    TempTrace t("bad.jsonl", text);
    InputProblem p = expectInputError([&] { readMooncakeTrace(t.path(), 1.0, 0); });
    EXPECT_EQ(p.file, t.path());
    EXPECT_FALSE(p.fix.empty());
    return p;
}

bool contains(const std::string& haystack, const std::string& needle)
{
    return haystack.find(needle) != std::string::npos;
}

} // namespace

TEST(AzureTrace, FixtureArrivalsAndLengths)
{
    const Workload w = readAzureTrace(kFixtures + "azure_small.csv", 1.0, 0);
    ASSERT_EQ(w.requests.size(), 6u);
    const std::vector<SimTime> arrivals = {0, 0, 819'410'000, 13'319'410'000, 20'653'319'409'900, 20'653'319'410'100};
    const std::vector<std::uint32_t> prompts = {374, 396, 1020, 2048, 10, 20};
    const std::vector<std::uint32_t> outputs = {44, 109, 1, 13, 1, 2}; // 0 generated tokens replays as 1
    for (std::size_t i = 0; i < arrivals.size(); ++i) {
        EXPECT_EQ(w.requests[i].arrival, arrivals[i]) << i;
        EXPECT_EQ(w.requests[i].promptTokens, prompts[i]) << i;
        EXPECT_EQ(w.requests[i].outputTokens, outputs[i]) << i;
        EXPECT_EQ(w.requests[i].prefixCount, 0u) << i;
    }
    EXPECT_TRUE(w.prefixHashes.empty());
}

TEST(AzureTrace, AnyColumnOrderExtraColumnsCrlfAndOutOfOrderRows)
{
    const Workload w = readAzureTrace(kFixtures + "azure_reordered.csv", 1.0, 0);
    ASSERT_EQ(w.requests.size(), 3u);
    EXPECT_EQ(w.requests[0].arrival, 0);
    EXPECT_EQ(w.requests[0].promptTokens, 200u);
    EXPECT_EQ(w.requests[0].outputTokens, 7u);
    EXPECT_EQ(w.requests[1].arrival, 750'000'000);
    EXPECT_EQ(w.requests[1].promptTokens, 100u);
    EXPECT_EQ(w.requests[2].arrival, 1'500'000'000);
    EXPECT_EQ(w.requests[2].outputTokens, 9u);
}

TEST(AzureTrace, TimeScaleAndMaxRequests)
{
    const Workload half = readAzureTrace(kFixtures + "azure_small.csv", 0.5, 4);
    ASSERT_EQ(half.requests.size(), 4u);
    EXPECT_EQ(half.requests[2].arrival, 409'705'000);
    EXPECT_EQ(half.requests[3].arrival, 6'659'705'000);
    EXPECT_EQ(half.requests[3].promptTokens, 2048u);

    const Workload slow = readAzureTrace(kFixtures + "azure_small.csv", 3.0, 0);
    EXPECT_EQ(slow.requests[2].arrival, 2'458'230'000);
    EXPECT_EQ(slow.requests[5].arrival, 61'959'958'230'300);
}

TEST(AzureTrace, ShippedConversationTrace)
{
    const auto start = std::chrono::steady_clock::now();
    const Workload w = readAzureTrace(kAzureConv, 1.0, 0);
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    RecordProperty("parse_ms", std::to_string(ms));
    ASSERT_EQ(w.requests.size(), 19'366u);
    EXPECT_EQ(w.requests[0].arrival, 0);
    EXPECT_EQ(w.requests[0].promptTokens, 374u);
    EXPECT_EQ(w.requests[0].outputTokens, 44u);
    EXPECT_EQ(w.requests[1].arrival, 4'314'579'000);
    EXPECT_EQ(w.requests.back().arrival, 3'501'721'937'000); // 19:14:08.4025270 - 18:15:46.6805900
    std::uint64_t prompt = 0, output = 0;
    for (const Request& r : w.requests) {
        prompt += r.promptTokens;
        output += r.outputTokens;
    }
    EXPECT_EQ(prompt, 22'361'870u);
    EXPECT_EQ(output, 4'088'665u);

    EXPECT_EQ(readAzureTrace(kAzureConv, 1.0, 2000).requests.size(), 2000u);
}

TEST(AzureTrace, BadInputNamesFileLineColumnAndFix)
{
    const std::string header = "TIMESTAMP,ContextTokens,GeneratedTokens\n";
    InputProblem p = azureError("TIMESTAMP,ContextTokens\n2023-11-16 18:15:46.6805900,374\n");
    EXPECT_EQ(p.field, "line 1, header");
    EXPECT_EQ(p.message, "column 'GeneratedTokens' is missing from the header; the Azure format needs "
                         "TIMESTAMP,ContextTokens,GeneratedTokens");
    EXPECT_TRUE(contains(azureError("time,ContextTokens,GeneratedTokens\n").message, "'TIMESTAMP' is missing"));

    p = azureError(header + "2023-11-16 18:15:46.6805900,374,44\n2023-11-16 18:15:47.0,abc,44\n");
    EXPECT_EQ(p.field, "line 3, column ContextTokens");
    EXPECT_TRUE(contains(p.message, "'abc' is not a whole number")) << p.message;
    EXPECT_EQ(azureError(header + "2023-11-16 18:15:46,374,4.5\n").field, "line 2, column GeneratedTokens");

    p = azureError(header + "2023-11-16 18:15:46.6805900,-3,44\n");
    EXPECT_EQ(p.field, "line 2, column ContextTokens");
    EXPECT_TRUE(contains(p.message, "negative")) << p.message;

    for (const char* stamp : {"yesterday", "2023-13-16 18:15:46", "2023-11-16 25:15:46", "2023-11-16 18:15:46.",
                              "2023-11-16 18:15:46.1234567890", "2023/11/16 18:15:46", "2023-11-16 18:15",
                              "2023-02-30 00:00:00.0", "2023-02-29 00:00:00", "2023-04-31 12:00:00"}) {
        p = azureError(header + std::string(stamp) + ",374,44\n");
        EXPECT_EQ(p.field, "line 2, column TIMESTAMP") << stamp;
        EXPECT_TRUE(contains(p.message, "is not a timestamp")) << stamp;
        EXPECT_TRUE(contains(p.fix, "2023-11-16 18:15:46.6805900")) << stamp;
    }

    // February 29 of a leap year is a date (2024, and 2000 as a multiple of 400).
    for (const char* leap : {"2024-02-29 00:00:00", "2000-02-29 00:00:00"}) {
        TempTrace t("leap.csv", header + std::string(leap) + ",374,44\n");
        EXPECT_NO_THROW(readAzureTrace(t.path(), 1.0, 0)) << leap;
    }

    p = azureError(header + "2023-11-16 18:15:46,374\n");
    EXPECT_EQ(p.field, "line 2");
    EXPECT_TRUE(contains(p.message, "2 fields but the header has 3")) << p.message;

    EXPECT_EQ(azureError(header + "2023-11-16 18:15:46,0,44\n").field, "line 2, column ContextTokens");
    EXPECT_TRUE(contains(azureError(header).message, "no requests"));
    EXPECT_TRUE(contains(azureError("").message, "empty"));
    EXPECT_TRUE(contains(azureError("\n\n").message, "no header"));
}

TEST(AzureTrace, MissingFileAndBadTimeScale)
{
    const std::string missing = kFixtures + "no_such_trace.csv";
    InputProblem p = expectInputError([&] { readAzureTrace(missing, 1.0, 0); });
    EXPECT_EQ(p.file, missing);
    EXPECT_TRUE(contains(p.message, "cannot open")) << p.message;
    p = expectInputError([&] { readAzureTrace(kFixtures + "azure_small.csv", 0.0, 0); });
    EXPECT_EQ(p.field, "/workload/time_scale");
}

TEST(MooncakeTrace, FixtureArrivalsLengthsAndHashes)
{
    const Workload w = readMooncakeTrace(kFixtures + "mooncake_small.jsonl", 1.0, 0);
    ASSERT_EQ(w.requests.size(), 5u);
    const std::vector<SimTime> arrivals = {0, 27'000'000, 27'000'000, 1'500'500'000, 3'000'000'000};
    const std::vector<std::uint32_t> prompts = {1024, 600, 100, 2048, 512};
    const std::vector<std::uint32_t> outputs = {10, 1, 5, 20, 1}; // output_length 0 replays as 1
    const std::vector<std::uint32_t> counts = {2, 2, 0, 4, 0};
    const std::vector<std::uint32_t> offsets = {0, 2, 4, 4, 8};
    for (std::size_t i = 0; i < arrivals.size(); ++i) {
        EXPECT_EQ(w.requests[i].arrival, arrivals[i]) << i;
        EXPECT_EQ(w.requests[i].promptTokens, prompts[i]) << i;
        EXPECT_EQ(w.requests[i].outputTokens, outputs[i]) << i;
        EXPECT_EQ(w.requests[i].prefixCount, counts[i]) << i;
        EXPECT_EQ(w.requests[i].prefixOffset, offsets[i]) << i;
    }
    EXPECT_EQ(w.prefixHashes, (std::vector<std::uint32_t>{0, 1, 0, 2, 3, 4, 5, 6}));
}

TEST(MooncakeTrace, TimeScaleAndMaxRequestsKeepOnlyUsedHashes)
{
    const Workload w = readMooncakeTrace(kFixtures + "mooncake_small.jsonl", 0.5, 2);
    ASSERT_EQ(w.requests.size(), 2u);
    EXPECT_EQ(w.requests[1].arrival, 13'500'000);
    EXPECT_EQ(w.prefixHashes, (std::vector<std::uint32_t>{0, 1, 0, 2}));

    const Workload slow = readMooncakeTrace(kFixtures + "mooncake_small.jsonl", 2.0, 0);
    EXPECT_EQ(slow.requests[3].arrival, 3'001'000'000);
    EXPECT_EQ(slow.requests[4].arrival, 6'000'000'000);
}

TEST(MooncakeTrace, OutOfOrderLinesAreSortedStablyWithTheirHashes)
{
    TempTrace t("unsorted.jsonl", R"({"timestamp": 50, "input_length": 1, "output_length": 1, "hash_ids": [7, 8]}
{"timestamp": 10, "input_length": 2, "output_length": 2, "hash_ids": [9]}
{"timestamp": 50, "input_length": 3, "output_length": 3, "hash_ids": [4, 5, 6]}
)");
    const Workload w = readMooncakeTrace(t.path(), 1.0, 0);
    ASSERT_EQ(w.requests.size(), 3u);
    EXPECT_EQ(w.requests[0].promptTokens, 2u);
    EXPECT_EQ(w.requests[1].promptTokens, 1u); // equal times keep file order
    EXPECT_EQ(w.requests[2].promptTokens, 3u);
    EXPECT_EQ(w.requests[1].arrival, 40'000'000);
    EXPECT_EQ(w.prefixHashes, (std::vector<std::uint32_t>{9, 7, 8, 4, 5, 6}));
    EXPECT_EQ(w.requests[2].prefixOffset, 3u);
    EXPECT_EQ(w.requests[2].prefixCount, 3u);
}

TEST(MooncakeTrace, ShippedConversationTrace)
{
    const auto start = std::chrono::steady_clock::now();
    const Workload w = readMooncakeTrace(kMooncakeConv, 1.0, 0);
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    RecordProperty("parse_ms", std::to_string(ms));
    ASSERT_EQ(w.requests.size(), 12'031u);
    EXPECT_EQ(w.requests[0].arrival, 0);
    EXPECT_EQ(w.requests[0].promptTokens, 6758u);
    EXPECT_EQ(w.requests[0].outputTokens, 500u);
    EXPECT_EQ(w.requests[0].prefixCount, 14u);
    EXPECT_EQ(w.requests.back().arrival, 3'536'999 * kMillisecond);
    EXPECT_EQ(w.prefixHashes.size(), 288'500u);
    std::uint64_t prompt = 0, output = 0;
    for (const Request& r : w.requests) {
        prompt += r.promptTokens;
        output += r.outputTokens;
    }
    EXPECT_EQ(prompt, 144'793'823u);
    EXPECT_EQ(output, 4'122'048u);
    const Request& last = w.requests.back();
    EXPECT_EQ(last.prefixOffset + last.prefixCount, w.prefixHashes.size());
    EXPECT_EQ(w.prefixHashes.back(), 182'789u);
}

TEST(MooncakeTrace, BadInputNamesFileLineKeyAndFix)
{
    const std::string good = R"({"timestamp": 0, "input_length": 10, "output_length": 5, "hash_ids": [1]})"
                             "\n";
    InputProblem p = mooncakeError(good + R"({"timestamp": 5, "input_length": 10,)" + "\n");
    EXPECT_EQ(p.field, "line 2");
    EXPECT_TRUE(contains(p.message, "malformed JSON")) << p.message;
    EXPECT_TRUE(contains(mooncakeError(good + good + "not json\n").field, "line 3"));
    EXPECT_TRUE(contains(mooncakeError(R"({"timestamp": 0} {})"
                                       "\n")
                             .message,
                         "malformed JSON"));

    p = mooncakeError(good + R"({"timestamp": 5, "output_length": 5})"
                             "\n");
    EXPECT_EQ(p.field, "line 2, input_length");
    EXPECT_TRUE(contains(p.message, "'input_length' is missing")) << p.message;
    EXPECT_EQ(mooncakeError(R"({"input_length": 1, "output_length": 5})").field, "line 1, timestamp");
    // As the scenario reader: a key given twice is named, and nesting is bounded even in keys the reader ignores.
    p = mooncakeError(R"({"timestamp": 0, "input_length": 10, "output_length": 5, "hash_ids": null, "hash_ids": [4]})");
    EXPECT_EQ(p.field, "line 1, hash_ids");
    EXPECT_TRUE(contains(p.message, "given twice")) << p.message;
    p = mooncakeError(R"({"timestamp": 0, "input_length": 10, "output_length": 5, "extra": )" + std::string(100, '[') +
                      std::string(100, ']') + "}");
    EXPECT_TRUE(contains(p.message, "more than 64 levels deep")) << p.message;

    p = mooncakeError(R"({"timestamp": 0, "input_length": 10, "output_length": -5})");
    EXPECT_EQ(p.field, "line 1, output_length");
    EXPECT_TRUE(contains(p.message, "negative")) << p.message;
    EXPECT_EQ(mooncakeError(R"({"timestamp": 0, "input_length": -1, "output_length": 5})").field,
              "line 1, input_length");
    EXPECT_EQ(mooncakeError(R"({"timestamp": 0, "input_length": 0, "output_length": 5})").field,
              "line 1, input_length");

    p = mooncakeError(R"({"timestamp": 0, "input_length": "10", "output_length": 5})");
    EXPECT_EQ(p.field, "line 1, input_length");
    EXPECT_TRUE(contains(p.message, "is a string")) << p.message;
    EXPECT_EQ(mooncakeError(R"({"timestamp": 0, "input_length": 1.5, "output_length": 5})").field,
              "line 1, input_length");
    EXPECT_EQ(mooncakeError(R"({"timestamp": "now", "input_length": 1, "output_length": 5})").field,
              "line 1, timestamp");
    EXPECT_EQ(mooncakeError(R"({"timestamp": 0, "input_length": 1, "output_length": 5, "hash_ids": 3})").field,
              "line 1, hash_ids");
    EXPECT_EQ(mooncakeError(R"({"timestamp": 0, "input_length": 1, "output_length": 5, "hash_ids": [1, -2]})").field,
              "line 1, hash_ids");
    EXPECT_EQ(mooncakeError(R"({"timestamp": 0, "input_length": 1, "output_length": 5, "hash_ids": [[1]]})").field,
              "line 1, hash_ids");
    EXPECT_EQ(mooncakeError(R"({"timestamp": 0, "input_length": 1, "output_length": 5, "hash_ids": ["a"]})").field,
              "line 1, hash_ids");
    EXPECT_EQ(
        mooncakeError(R"({"timestamp": 0, "input_length": 1, "output_length": 5, "hash_ids": [4294967296]})").field,
        "line 1, hash_ids");
    EXPECT_TRUE(contains(mooncakeError("[1, 2]\n").message, "not a JSON object"));
    EXPECT_TRUE(contains(mooncakeError("42\n").message, "not a JSON object"));

    EXPECT_TRUE(contains(mooncakeError("").message, "empty"));
    EXPECT_TRUE(contains(mooncakeError("\n  \n").message, "no requests"));
    const std::string missing = kFixtures + "no_such_trace.jsonl";
    EXPECT_EQ(expectInputError([&] { readMooncakeTrace(missing, 1.0, 0); }).file, missing);
}

TEST(MooncakeTrace, UnknownKeysOfAnyShapeAreIgnored)
{
    TempTrace t("extra.jsonl",
                R"({"x": {"timestamp": "no", "hash_ids": [[-1]]}, "timestamp": 2, "y": [null, true, -3.5, "s"],)"
                R"( "input_length": 7.0, "output_length": 3, "hash_ids": [1e0]})");
    const Workload w = readMooncakeTrace(t.path(), 1.0, 0);
    ASSERT_EQ(w.requests.size(), 1u);
    EXPECT_EQ(w.requests[0].promptTokens, 7u);
    EXPECT_EQ(w.requests[0].outputTokens, 3u);
    EXPECT_EQ(w.prefixHashes, std::vector<std::uint32_t>{1});
}

TEST(WorkloadBuilder, TraceUsesTheResolvedPathWhenSet)
{
    WorkloadSpec spec;
    spec.kind = WorkloadKind::Trace;
    spec.trace.format = TraceFormat::Mooncake;
    spec.trace.path = "traces/mooncake_small.jsonl"; // as written; only resolvedPath exists from here
    spec.trace.resolvedPath = kFixtures + "mooncake_small.jsonl";
    spec.trace.timeScale = 0.5;
    spec.trace.maxRequests = 3;
    const Workload w = buildWorkload(spec, 99);
    ASSERT_EQ(w.requests.size(), 3u);
    EXPECT_EQ(w.requests[2].arrival, 13'500'000);

    spec.trace.format = TraceFormat::Azure;
    spec.trace.resolvedPath.clear();
    spec.trace.path = kFixtures + "azure_small.csv";
    spec.trace.maxRequests = 0;
    EXPECT_EQ(buildWorkload(spec, 99).requests.size(), 6u);
}
