// Run export (CSV and JSON) and the `cohsim runs` / `cohsim export` commands end to end.
#include "core/store/run_export.h"
#include "core/store/run_store.h"

#include "cli_runner.h"
#include "temp_dir.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

#include <sys/wait.h>

namespace coh::core {
namespace {

namespace fs = std::filesystem;
using test::TempDir;

RunResult exportResult()
{
    RunResult r;
    r.scenarioName = "export-test";
    r.instanceIds = {"prefill,0", "decode-0"}; // a comma must be quoted in CSV
    r.summary.requests = 2;
    r.summary.completed = 2;
    r.summary.ttftMs = {2, 12.5, 12.5, 20, 24.75, 25};
    r.summary.throughputTokensPerSec = 321.5;

    RequestMetrics a;
    a.id = 7;
    a.promptTokens = 100;
    a.outputTokens = 11;
    a.prefillInstance = 0;
    a.decodeInstance = 1;
    a.arrival = 1 * kMillisecond;
    a.prefillStart = 3 * kMillisecond;                // queue 2 ms
    a.prefillEnd = a.prefillStart + 10'500'000;       // prefill 10.5 ms
    a.transferStart = a.prefillEnd + 250'000;         // admission 0.25 ms
    a.kvReady = a.transferStart + 1'234'567;          // transfer 1.234567 ms
    a.decodeStart = a.kvReady + 1'000;                // load 0.001 ms
    a.firstToken = a.decodeStart + 5 * kMillisecond;  // first decode 5 ms
    a.finish = a.firstToken + 10 * 20 * kMillisecond; // 10 gaps of 20 ms
    RequestMetrics b = a;
    b.id = 8;
    b.outputTokens = 1;    // TPOT undefined
    b.prefillInstance = 5; // no id for it: the index is shown
    r.requests = {a, b};

    r.nodeIds = {"gpu0", "gpu1"};
    r.linkIds = {"nvlink0"};
    r.linkInterval = kMillisecond;
    r.linkSeries = {{0, false, 450e9, 3072, {1024, 2048}}};
    r.nodeBlocks = {{1, "M", 6, {6, 2.5}}};
    return r;
}

std::vector<std::string> lines(const std::string& text)
{
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);)
        out.push_back(line);
    return out;
}

TEST(RunExport, MillisecondsAreExactDecimals)
{
    EXPECT_EQ(formatMilliseconds(0), "0");
    EXPECT_EQ(formatMilliseconds(1'234'567), "1.234567");
    EXPECT_EQ(formatMilliseconds(1'500'000), "1.5");
    EXPECT_EQ(formatMilliseconds(2'000'000), "2");
    EXPECT_EQ(formatMilliseconds(1), "0.000001");
    EXPECT_EQ(formatMilliseconds(-1'500'000), "-1.5");
    EXPECT_EQ(formatMilliseconds(std::numeric_limits<SimTime>::min()), "-9223372036854.775808");
}

TEST(RunExport, RequestsCsvHasAHeaderAndOneRowPerRequest)
{
    std::ostringstream out;
    writeRequestsCsv(out, exportResult());
    const auto rows = lines(out.str());
    ASSERT_EQ(rows.size(), 3u);
    EXPECT_EQ(
        rows[0],
        "id,prompt_tokens,cached_tokens,output_tokens,prefill_instance,decode_instance,arrival_ms,ttft_ms,queue_ms,"
        "prefill_ms,admission_ms,transfer_ms,load_ms,first_decode_ms,tpot_ms,e2e_ms,decode_compute_ms,"
        "decode_transfer_ms,decode_stall_ms");
    // ttft = 2 + 10.5 + 0.25 + 1.234567 + 0.001 + 5 = 18.985567 ms; e2e = ttft + 200 ms.
    EXPECT_EQ(rows[1],
              "7,100,0,11,\"prefill,0\",decode-0,1,18.985567,2,10.5,0.25,1.234567,0.001,5,20,218.985567,0,0,0");
    EXPECT_EQ(rows[2], "8,100,0,1,5,decode-0,1,18.985567,2,10.5,0.25,1.234567,0.001,5,,218.985567,0,0,0");
}

TEST(RunExport, SummaryCsvIsKeyValue)
{
    std::ostringstream out;
    writeSummaryCsv(out, exportResult().summary);
    const auto rows = lines(out.str());
    ASSERT_FALSE(rows.empty());
    EXPECT_EQ(rows[0], "key,value");
    const auto has = [&](const std::string& row) { return std::find(rows.begin(), rows.end(), row) != rows.end(); };
    EXPECT_TRUE(has("requests,2"));
    EXPECT_TRUE(has("ttft_ms.p50,12.5"));
    EXPECT_TRUE(has("ttft_ms.p99,24.75"));
    EXPECT_TRUE(has("throughput_tok_s,321.5"));
    EXPECT_TRUE(has("first_decode_ms.count,0"));
}

TEST(RunExport, JsonHasRunSummaryAndRequests)
{
    RunInfo info;
    info.id = 3;
    info.name = "my run";
    info.status = RunStatus::Completed;
    const auto text = exportJson(info, R"({"name": "export-test", "seed": 9})", exportResult()).dump();
    const auto j = nlohmann::json::parse(text); // must be valid JSON
    EXPECT_EQ(j.at("run").at("id"), 3);
    EXPECT_EQ(j.at("run").at("name"), "my run");
    EXPECT_EQ(j.at("run").at("status"), "completed");
    EXPECT_EQ(j.at("run").at("scenario").at("seed"), 9);
    EXPECT_EQ(j.at("summary").at("ttft_ms").at("p50"), 12.5);
    EXPECT_EQ(j.at("summary").at("throughput_tok_s"), 321.5);
    ASSERT_EQ(j.at("requests").size(), 2u);
    EXPECT_EQ(j.at("requests")[0].at("id"), 7);
    EXPECT_EQ(j.at("requests")[0].at("prefill_instance"), "prefill,0");
    EXPECT_DOUBLE_EQ(j.at("requests")[0].at("ttft_ms").get<double>(), 18.985567);
    EXPECT_EQ(j.at("requests")[0].at("tpot_ms"), 20.0);
    EXPECT_TRUE(j.at("requests")[1].at("tpot_ms").is_null());

    // The per-bucket series the replay draws, with ids instead of indices.
    ASSERT_EQ(j.at("link_series").size(), 1u);
    EXPECT_EQ(j.at("link_series")[0].at("link"), "nvlink0");
    EXPECT_EQ(j.at("link_series")[0].at("direction"), "reverse");
    EXPECT_EQ(j.at("link_series")[0].at("total_bytes"), 3072.0);
    EXPECT_EQ(j.at("link_series")[0].at("bytes_per_bucket"), nlohmann::json::array({1024.0, 2048.0}));
    EXPECT_EQ(j.at("run").at("link_interval_ns"), 1'000'000);
    ASSERT_EQ(j.at("node_blocks").size(), 1u);
    EXPECT_EQ(j.at("node_blocks")[0].at("node"), "gpu1");
    EXPECT_EQ(j.at("node_blocks")[0].at("state"), "M");
    EXPECT_EQ(j.at("node_blocks")[0].at("peak_blocks"), 6.0);
    EXPECT_EQ(j.at("node_blocks")[0].at("blocks_per_bucket"), nlohmann::json::array({6.0, 2.5}));
}

struct CommandOutput {
    int exitCode = -1;
    std::string out;
};

// Runs cohsim with the given arguments (stderr goes to the test log).
CommandOutput cohsim(const std::string& args)
{
    test::CliResult r = test::runCohsim(args, test::Stderr::Inherit);
    CommandOutput result;
    result.out = std::move(r.output);
    result.exitCode = r.exitCode;
    return result;
}

TEST(RunExport, CohsimListsShowsExportsAndDeletesRuns)
{
    TempDir dir;
    const std::string db = dir.file("runs.db");
    std::int64_t id = 0;
    {
        RunStore store(db);
        id = store.beginRun("cli run", R"({"name": "export-test"})", 4);
        store.completeRun(id, exportResult());
    }
    const std::string dbArg = " --db '" + db + "'";

    const auto list = cohsim("runs list" + dbArg);
    EXPECT_EQ(list.exitCode, 0);
    EXPECT_NE(list.out.find("cli run"), std::string::npos);
    EXPECT_NE(list.out.find("completed"), std::string::npos);
    const auto listJson = nlohmann::json::parse(cohsim("runs list --json" + dbArg).out);
    ASSERT_EQ(listJson.size(), 1u);
    EXPECT_EQ(listJson[0].at("ttft_p50_ms"), 12.5);

    const auto show = cohsim("runs show " + std::to_string(id) + dbArg);
    EXPECT_EQ(show.exitCode, 0);
    EXPECT_NE(show.out.find("TTFT"), std::string::npos);
    EXPECT_NE(show.out.find("12.5"), std::string::npos);
    const auto showJson = nlohmann::json::parse(cohsim("runs show --json " + std::to_string(id) + dbArg).out);
    EXPECT_EQ(showJson.at("summary").at("ttft_ms").at("p99"), 24.75);

    EXPECT_EQ(cohsim("runs show 999" + dbArg + " 2>/dev/null").exitCode, 2);
    EXPECT_EQ(cohsim("runs show abc" + dbArg + " 2>/dev/null").exitCode, 2);
    EXPECT_EQ(cohsim("export 999 --format csv" + dbArg + " 2>/dev/null").exitCode, 2);

    const std::string csvFile = dir.file("requests.csv");
    EXPECT_EQ(cohsim("export " + std::to_string(id) + " --format csv -q -o '" + csvFile + "'" + dbArg).exitCode, 0);
    std::ifstream csv(csvFile);
    std::string header;
    std::getline(csv, header);
    EXPECT_EQ(header.rfind("id,prompt_tokens,cached_tokens,output_tokens,", 0), 0u);

    const auto json = cohsim("export " + std::to_string(id) + " --format json" + dbArg);
    EXPECT_EQ(json.exitCode, 0);
    EXPECT_EQ(nlohmann::json::parse(json.out).at("requests").size(), 2u);
    const auto summary = cohsim("export " + std::to_string(id) + " --format csv --summary" + dbArg);
    EXPECT_NE(summary.out.find("ttft_ms.p50,12.5"), std::string::npos);

    EXPECT_EQ(cohsim("runs delete " + std::to_string(id) + " -q" + dbArg).exitCode, 0);
    EXPECT_EQ(cohsim("runs delete " + std::to_string(id) + dbArg + " 2>/dev/null").exitCode, 2);
    EXPECT_TRUE(RunStore(db).listRuns().empty());
}

TEST(RunExport, CohsimRefusesAGarbageDatabaseWithExitCode2)
{
    TempDir dir;
    const std::string db = dir.file("garbage.db");
    std::ofstream(db) << std::string(2048, 'x');
    EXPECT_EQ(cohsim("runs list --db '" + db + "' 2>/dev/null").exitCode, 2);
}

} // namespace
} // namespace coh::core
