// End to end through the real binary: cohsim run stores a run that runs/export can read back, bad input
// exits 2 with the file, the field and the fix, and a seed makes runs repeatable.
#include "cli_run_fixture.h"
#include "cli_runner.h"
#include "core/gpu/cuda_devices.h"
#include "core/real/core_cache.h"
#include "core/real/profile_json.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>

namespace coh::test {
namespace {

TEST_F(CliRun, RunStoresARunThatListShowAndExportReadBack)
{
    const CliResult run = runCohsim("run " + defaultScenario() + " " + db() + " --json", Stderr::Discard);
    ASSERT_EQ(run.exitCode, 0) << run.output;
    const auto summary = nlohmann::json::parse(run.output);
    const int id = summary.at("run_id").get<int>();
    EXPECT_EQ(summary.at("summary").at("requests").get<int>(), 300);
    EXPECT_EQ(summary.at("summary").at("completed").get<int>(), 300);

    const CliResult list = runCohsim("runs list --json " + db(), Stderr::Discard);
    ASSERT_EQ(list.exitCode, 0) << list.output;
    const auto runs = nlohmann::json::parse(list.output);
    ASSERT_EQ(runs.size(), 1u);
    EXPECT_EQ(runs[0].at("status"), "completed");

    const CliResult show = runCohsim("runs show " + std::to_string(id) + " --json " + db(), Stderr::Discard);
    ASSERT_EQ(show.exitCode, 0) << show.output;
    EXPECT_EQ(nlohmann::json::parse(show.output).at("summary").at("ttft_ms"), summary.at("summary").at("ttft_ms"));

    // The human form shows the blocks each node held, read back from the store without the event record.
    const CliResult text = runCohsim("runs show " + std::to_string(id) + " " + db(), Stderr::Discard);
    ASSERT_EQ(text.exitCode, 0) << text.output;
    EXPECT_NE(text.output.find("PEAK BLOCKS"), std::string::npos) << text.output;
    EXPECT_NE(text.output.find("gpu0  S"), std::string::npos) << text.output;

    const CliResult csv = runCohsim("export " + std::to_string(id) + " --format csv " + db(), Stderr::Discard);
    ASSERT_EQ(csv.exitCode, 0) << csv.output;
    EXPECT_EQ(std::count(csv.output.begin(), csv.output.end(), '\n'), 301); // header + one row per request
    // Without --format the file's name says which: a .JSON file gets JSON, anything else CSV.
    const auto written = [&](const std::string& name, const std::string& flags = "") {
        const std::string path = (m_dir / name).string();
        const CliResult made =
            runCohsim("export " + std::to_string(id) + flags + " -o " + path + " " + db(), Stderr::Discard);
        EXPECT_EQ(made.exitCode, 0) << made.output;
        std::ifstream in(path);
        return std::string(std::istreambuf_iterator<char>(in), {});
    };
    EXPECT_EQ(nlohmann::json::parse(written("run.JSON")).at("summary").at("ttft_ms"),
              summary.at("summary").at("ttft_ms"));
    EXPECT_EQ(written("run.txt"), csv.output);
    // --summary is CSV whatever the name; with --format json it is refused, naming the flag.
    EXPECT_EQ(written("summary.json", " --summary").rfind("key,value\n", 0), 0u);
    const CliResult both = runCohsim("export " + std::to_string(id) + " --summary --format json " + db());
    EXPECT_EQ(both.exitCode, 2) << both.output;
    EXPECT_NE(both.output.find("--summary"), std::string::npos) << both.output;
}

TEST_F(CliRun, APerfettoExportParsesWithATrackPerNodeAndItsPrefillBatchesAndFlows)
{
    const CliResult run = runCohsim("run " + defaultScenario() + " " + db() + " --json", Stderr::Discard);
    ASSERT_EQ(run.exitCode, 0) << run.output;
    const auto summary = nlohmann::json::parse(run.output);
    const std::string id = std::to_string(summary.at("run_id").get<int>());
    const std::string out = (m_dir / "trace.json").string();
    const CliResult exported = runCohsim("export " + id + " --format perfetto -o " + out + " " + db());
    ASSERT_EQ(exported.exitCode, 0) << exported.output;
    EXPECT_NE(exported.output.find(" flows, "), std::string::npos) << exported.output;
    std::ifstream in(out);
    const auto trace = nlohmann::json::parse(in);
    std::set<std::string> processes;
    int prefillBatches = 0, decodes = 0, flowStarts = 0, flowEnds = 0, requests = 0;
    for (const auto& e : trace.at("traceEvents")) {
        if (e.at("ph") == "M" && e.at("name") == "process_name")
            processes.insert(e.at("args").at("name").get<std::string>());
        if (e.at("ph") == "X" && e.at("name") == "prefill batch") {
            ++prefillBatches;
            requests += e.at("args").at("requests").get<int>();
        }
        decodes += e.at("ph") == "b" && e.at("cat") == "decode";
        flowStarts += e.at("ph") == "s";
        flowEnds += e.at("ph") == "f";
    }
    // The DGX preset's eight GPUs and its switch, each a track; every request's prefill sits in one batch.
    for (const char* node : {"gpu0", "gpu7", "nvswitch"})
        EXPECT_EQ(processes.count(node), 1u) << node;
    EXPECT_EQ(requests, 300);
    EXPECT_GT(prefillBatches, 0);
    EXPECT_LE(prefillBatches, 300);
    EXPECT_EQ(decodes, 300);
    EXPECT_GT(flowStarts, 0); // MSI's requests, forwards and data linked
    EXPECT_EQ(flowStarts, flowEnds);
}

TEST_F(CliRun, HumanSummaryShowsTtftAndTpotPercentiles)
{
    const CliResult run = runCohsim("run " + defaultScenario() + " --no-store -q", Stderr::Discard);
    ASSERT_EQ(run.exitCode, 0) << run.output;
    EXPECT_NE(run.output.find("TTFT"), std::string::npos);
    EXPECT_NE(run.output.find("TPOT"), std::string::npos);
    EXPECT_NE(run.output.find("P99"), std::string::npos);
    // The default scenario runs MSI: the blocks each node held, by state.
    EXPECT_NE(run.output.find("PEAK BLOCKS"), std::string::npos);
    EXPECT_NE(run.output.find("gpu0  S"), std::string::npos);
}

TEST_F(CliRun, CacheAwareRunsShowTheirLocalPrefixHitsAndValidateCatchesBadWeights)
{
    auto scenario =
        nlohmann::json::parse(std::ifstream(std::string(COH_DATASETS_DIR) + "/scenarios/prefix-pool-cxl.json"));
    scenario["serving"].erase("prefix_pool");
    scenario["serving"]["router"] = {{"policy", "cache_aware"}, {"overlap_weight", 2}};
    scenario["workload"]["path"] = std::string(COH_DATASETS_DIR) + "/traces/mooncake_fast25/conversation_trace.jsonl";
    const std::string path = file("cache-aware.json", scenario.dump());
    const CliResult run = runCohsim("run " + path + " " + db() + " --json --max-requests 200", Stderr::Discard);
    ASSERT_EQ(run.exitCode, 0) << run.output;
    const auto summary = nlohmann::json::parse(run.output);
    const auto& local = summary.at("summary").at("local_prefix_cache");
    EXPECT_GT(local.at("hit_tokens").get<std::uint64_t>(), 0u);
    EXPECT_EQ(summary.at("summary").at("prefix_pool").at("hit_tokens").get<std::uint64_t>(), 0u);
    const CliResult text =
        runCohsim("runs show " + std::to_string(summary.at("run_id").get<int>()) + " " + db(), Stderr::Discard);
    ASSERT_EQ(text.exitCode, 0) << text.output;
    EXPECT_NE(text.output.find("local prefixes  " + std::to_string(local.at("hit_tokens").get<std::uint64_t>())),
              std::string::npos)
        << text.output;

    scenario["serving"]["router"]["max_imbalance"] = 0.5;
    const CliResult bad = runCohsim("validate " + file("bad-router.json", scenario.dump()));
    EXPECT_EQ(bad.exitCode, 2) << bad.output;
    EXPECT_NE(bad.output.find("/serving/router/max_imbalance"), std::string::npos) << bad.output;
    EXPECT_NE(bad.output.find("fix:"), std::string::npos) << bad.output;
}

TEST_F(CliRun, SharedPrefixBlocksAreCountedStoredAndShownAndWithoutAProtocolExitTwo)
{
    // The Mooncake preset's first 100 requests with their prefix blocks shared under MSI.
    const std::string scenario = std::string(COH_DATASETS_DIR) + "/scenarios/cache-aware-mooncake.json";
    const std::string sets = " --set /coherence/decode=msi-directory --set '/serving/shared_prefix={}' "
                             "--max-requests 100";
    const CliResult run = runCohsim("run " + scenario + sets + " " + db() + " --json", Stderr::Discard);
    ASSERT_EQ(run.exitCode, 0) << run.output;
    const auto summary = nlohmann::json::parse(run.output);
    const auto& shared = summary.at("summary").at("shared_prefix");
    EXPECT_EQ(shared.at("block_tokens").get<int>(), 512);
    const auto blocks = shared.at("blocks").get<std::uint64_t>();
    EXPECT_GT(blocks, 0u);
    EXPECT_EQ(shared.at("writes").get<std::uint64_t>(), blocks); // each block is written once, by its first prefill
    EXPECT_EQ(shared.at("writes").get<std::uint64_t>() + shared.at("writes_skipped").get<std::uint64_t>(),
              shared.at("acquires").get<std::uint64_t>());
    EXPECT_GT(shared.at("acquire_hits").get<std::uint64_t>(), 0u);
    const CliResult text =
        runCohsim("runs show " + std::to_string(summary.at("run_id").get<int>()) + " " + db(), Stderr::Discard);
    ASSERT_EQ(text.exitCode, 0) << text.output;
    EXPECT_NE(text.output.find("shared prefix   " + std::to_string(blocks) + " blocks of 512 tokens"),
              std::string::npos)
        << text.output;

    const CliResult bad = runCohsim("run " + scenario + " --no-store --set '/serving/shared_prefix={}'");
    EXPECT_EQ(bad.exitCode, 2) << bad.output;
    EXPECT_NE(bad.output.find("/serving/shared_prefix"), std::string::npos) << bad.output;
    EXPECT_NE(bad.output.find("/coherence/decode"), std::string::npos) << bad.output;

    // A malformed escape, and removing what is not there, say so in words (not the JSON library's).
    const CliResult escape = runCohsim("run " + scenario + " --no-store --set '/a~2b=1'");
    EXPECT_EQ(escape.exitCode, 2) << escape.output;
    EXPECT_NE(escape.output.find("'/a~2b' is not a JSON pointer: a '~' in it must be followed by 0"), std::string::npos)
        << escape.output;
    const CliResult missing = runCohsim("run " + scenario + " --no-store --set /no/such=null");
    EXPECT_EQ(missing.exitCode, 2) << missing.output;
    EXPECT_NE(missing.output.find("/no/such names nothing in the scenario"), std::string::npos) << missing.output;
    for (const CliResult* r : {&escape, &missing})
        EXPECT_EQ(r->output.find("json.exception"), std::string::npos) << r->output;
}

// The failures line counts hits (a request may be hit again while it recovers) apart from the requests hit, and says
// the restored tokens come from surviving copies under either recovery: under recompute, from the prefix a copy holds.
TEST_F(CliRun, TheFailuresLineTellsHitsFromRequestsAndWhereRestoredTokensCameFrom)
{
    nlohmann::json scenario =
        nlohmann::json::parse(std::ifstream(std::string(COH_DATASETS_DIR) + "/scenarios/replicas-failures.json"));
    scenario["failures"]["events"] = nlohmann::json::array({{{"node", "gpu2"}, {"at", "1 s"}, {"repair", "60 s"}}});
    scenario["failures"]["recovery"] = "recompute";
    const CliResult r = runCohsim("run " + file("failing.json", scenario.dump()) + " --max-requests 4 --no-store");
    ASSERT_EQ(r.exitCode, 0) << r.output;
    const auto line = r.output.substr(r.output.find("  failures "),
                                      r.output.find('\n', r.output.find("  failures ")) - r.output.find("  failures "));
    EXPECT_NE(line.find("1 node failures, recovery recompute; 2 hits on requests (a request may be hit again): 2 hit "
                        "requests completed, 0 failed; 0 read a surviving copy, 2 recomputed, 0 only rerouted; "),
              std::string::npos)
        << line;
    EXPECT_NE(line.find(" tokens restored from surviving copies, "), std::string::npos) << line;
}

TEST_F(CliRun, ALinkFailureIsStoredAndShownAndOneThatNeverHealsExitsTwo)
{
    // The default DGX scenario: gpu4's NVLink fails at 5 s and is back 3 s later; its traffic goes over PCIe and UPI.
    const std::string sets = R"( --set '/failures={"events":[{"link":"gpu4-nvswitch","at":"5 s","repair":"3 s"}]}')";
    const CliResult run = runCohsim("run " + defaultScenario() + sets + " " + db() + " --json", Stderr::Discard);
    ASSERT_EQ(run.exitCode, 0) << run.output;
    const auto summary = nlohmann::json::parse(run.output);
    const auto& failures = summary.at("summary").at("failures");
    ASSERT_EQ(failures.at("failures").size(), 1u);
    EXPECT_EQ(failures.at("failures")[0].at("link"), "gpu4-nvswitch");
    EXPECT_EQ(failures.at("failures")[0].at("detected_ns").get<std::int64_t>(), 5'500'000'000);
    EXPECT_EQ(failures.at("hits").get<std::uint64_t>(), 0u);
    const auto stopped = failures.at("messages_stopped").get<std::uint64_t>();
    EXPECT_GT(stopped, 0u);
    EXPECT_EQ(summary.at("summary").at("completed"), summary.at("summary").at("requests"));
    const CliResult text =
        runCohsim("runs show " + std::to_string(summary.at("run_id").get<int>()) + " " + db(), Stderr::Discard);
    ASSERT_EQ(text.exitCode, 0) << text.output;
    EXPECT_NE(text.output.find("link failures   1 link failure: " + std::to_string(stopped) + " messages stopped"),
              std::string::npos)
        << text.output;
    EXPECT_EQ(text.output.find("node failures"), std::string::npos) << "no node failed";

    // NVLink down for good still leaves PCIe; a gpu's only PCIe link as well cuts it off.
    const CliResult cut = runCohsim(
        "run " + defaultScenario() + " --no-store" +
        R"( --set '/failures={"events":[{"link":"gpu4-nvswitch","at":"5 s"},{"link":"cpu1-gpu4","at":"6 s"}]}')");
    EXPECT_EQ(cut.exitCode, 2) << cut.output;
    EXPECT_NE(cut.output.find("/failures/events/1/link"), std::string::npos) << cut.output;
    EXPECT_NE(cut.output.find("repair"), std::string::npos) << cut.output;
}

TEST_F(CliRun, ARealCpuRunIsStoredWithItsBackendAndMappingAndShownLikeAnyRun)
{
    // The default scenario's first requests, each message a real copy between worker threads' 8 MiB arenas.
    const CliResult run =
        runCohsim("run " + defaultScenario() + " --backend real-cpu --arena-mib 8 --max-requests 4 " + db() + " --json",
                  Stderr::Discard);
    ASSERT_EQ(run.exitCode, 0) << run.output;
    const auto out = nlohmann::json::parse(run.output);
    const auto& backend = out.at("summary").at("backend");
    EXPECT_EQ(backend.at("name"), "real-cpu");
    EXPECT_EQ(backend.at("copies"), out.at("summary").at("flows"));
    EXPECT_EQ(backend.at("verified"), backend.at("copies"));
    ASSERT_FALSE(backend.at("mapping").empty());
    EXPECT_NE(backend.at("mapping")[0].at("resource").get<std::string>().find("8 MiB arena"), std::string::npos);
    EXPECT_EQ(out.at("summary").at("completed"), 4);

    const std::string id = std::to_string(out.at("run_id").get<int>());
    const CliResult text = runCohsim("runs show " + id + " " + db(), Stderr::Discard);
    ASSERT_EQ(text.exitCode, 0) << text.output;
    EXPECT_NE(text.output.find("backend         real-cpu"), std::string::npos) << text.output;
    EXPECT_NE(text.output.find("checked against its stamp and the CRC-32 it seals"), std::string::npos) << text.output;
    const CliResult list = runCohsim("runs list " + db() + " --json", Stderr::Discard);
    ASSERT_EQ(list.exitCode, 0) << list.output;
    EXPECT_EQ(nlohmann::json::parse(list.output).at(0).at("backend"), "real-cpu") << list.output;

    // What the backend cannot run is refused before a run begins, as is a backend that does not exist.
    const CliResult link =
        runCohsim("run " + defaultScenario() + " --backend real-cpu --no-store" +
                  R"( --set '/failures={"events":[{"link":"gpu4-nvswitch","at":"5 s","repair":"3 s"}]}')");
    EXPECT_EQ(link.exitCode, 2) << link.output;
    EXPECT_NE(link.output.find("/failures/events/0/link"), std::string::npos) << link.output;
    const CliResult unknown = runCohsim("run " + defaultScenario() + " --backend quantum --no-store");
    EXPECT_EQ(unknown.exitCode, 2) << unknown.output;
    EXPECT_NE(unknown.output.find("simulated, real-cpu"), std::string::npos) << unknown.output;
    EXPECT_EQ(runCohsim("validate " + defaultScenario() + " --backend real-cpu").exitCode, 0);
}

TEST_F(CliRun, RealCudaWithoutAGpuExitsTwoSayingWhyInEveryCommand)
{
    if (!core::probeGpus().devices.empty())
        GTEST_SKIP() << "this machine has a GPU";
    for (const std::string& command : std::vector<std::string>{
             "run " + defaultScenario() + " --backend real-cuda --no-store",
             "validate " + defaultScenario() + " --backend real-cuda", "calibrate --backend real-cuda",
             "compare-real " + defaultScenario() + " --backend real-cuda --no-store --max-requests 2"}) {
        SCOPED_TRACE(command);
        const CliResult r = runCohsim(command);
        EXPECT_EQ(r.exitCode, 2) << r.output;
        EXPECT_NE(r.output.find("real-cuda needs a GPU, and there is none here"), std::string::npos) << r.output;
    }
}

TEST_F(CliRun, AnInjectedFaultStopsARealRunNamingItAndABadOneExitsTwo)
{
    const std::string run = "run " + defaultScenario() + " --max-requests 3 --no-store";
    const CliResult lost = runCohsim(run + " --backend real-cpu --inject lost-append@5");
    EXPECT_EQ(lost.exitCode, 1) << lost.output;
    // Played on step 5, or on the first after it with an append to lose: which step has one follows the measured
    // times (a sanitizer build's are other than a release build's).
    std::smatch step;
    ASSERT_TRUE(std::regex_search(lost.output, step, std::regex("decode step ([0-9]+) of "))) << lost.output;
    EXPECT_GE(std::stoi(step[1].str()), 5) << lost.output;
    EXPECT_NE(lost.output.find("a write that never landed (a lost append)"), std::string::npos) << lost.output;
    const CliResult never = runCohsim(run + " --backend real-cpu --inject flip-byte@100000");
    EXPECT_EQ(never.exitCode, 0) << never.output;
    EXPECT_NE(never.output.find("--inject flip-byte@100000 was never played"), std::string::npos) << never.output;
    // Stored, each says it was asked for: the failure as injected on purpose, not a defect of the backend; the run
    // that never played it, so.
    const std::string stored = "run " + defaultScenario() + " --max-requests 3 --backend real-cpu " + db();
    ASSERT_EQ(runCohsim(stored + " --inject lost-append@5").exitCode, 1);
    ASSERT_EQ(runCohsim(stored + " --inject flip-byte@100000").exitCode, 0);
    const CliResult failed = runCohsim("runs show 1 " + db());
    EXPECT_NE(failed.output.find("(the fault injected on purpose: --inject lost-append@5)"), std::string::npos)
        << failed.output;
    const CliResult unplayed = runCohsim("runs show 2 " + db());
    EXPECT_NE(unplayed.output.find("injected:     --inject flip-byte@100000 was never played"), std::string::npos)
        << unplayed.output;
    const CliResult changed = runCohsim(run + " --backend real-cpu --inject corrupted-row@2");
    EXPECT_EQ(changed.exitCode, 1) << changed.output;
    EXPECT_NE(changed.output.find("they changed in memory since"), std::string::npos) << changed.output;
    // Without the seal sums the stamps are checked and the run says so; a changed row could not be caught.
    const CliResult unsummed = runCohsim(run + " --backend real-cpu --no-seal-sums");
    EXPECT_EQ(unsummed.exitCode, 0) << unsummed.output;
    EXPECT_NE(unsummed.output.find("(0 of them summed against their seals"), std::string::npos) << unsummed.output;
    for (const std::string& bad :
         {std::string(" --backend real-cpu --inject bogus"), std::string(" --inject flip-byte"),
          std::string(" --backend real-cpu --no-seal-sums --inject corrupted-row")}) {
        const CliResult r = runCohsim(run + bad);
        EXPECT_EQ(r.exitCode, 2) << bad << ": " << r.output;
        EXPECT_NE(r.output.find("--inject"), std::string::npos) << r.output;
    }
    // A run plays one fault: a second --inject is refused in the run's words, not the parser's ("At Most 1 required"),
    // and the scenario may follow --inject (one value each).
    const CliResult two = runCohsim("run --backend real-cpu --inject torn-source@3 --inject flip-byte@4 " +
                                    defaultScenario() + " --max-requests 2 --no-store");
    EXPECT_EQ(two.exitCode, 2) << two.output;
    EXPECT_NE(two.output.find("--inject: a run plays one fault, and stops when its checks catch it; 2 were given"),
              std::string::npos)
        << two.output;
    EXPECT_EQ(two.output.find("At Most"), std::string::npos) << two.output;
    const CliResult simulated = runCohsim(run + " --no-seal-sums");
    EXPECT_EQ(simulated.exitCode, 2) << simulated.output;
    EXPECT_NE(simulated.output.find("--no-seal-sums: the simulated backend holds no K/V blocks"), std::string::npos)
        << simulated.output;
}

TEST_F(CliRun, StalenessCountsTokenStepsNotTheBatchesIterations)
{
    // The staleness line counts a sequence's token at a time; the decode line counts the batch's iterations: the two
    // were both "decode steps" (a probe read 0 of 30 beside 12 iterations).
    nlohmann::json lazy = nlohmann::json::parse(std::ifstream(defaultScenario()));
    lazy["coherence"]["decode"] = "lazy-causal";
    const CliResult r = runCohsim("run " + file("lazy.json", lazy.dump()) + " --max-requests 5 --no-store");
    ASSERT_EQ(r.exitCode, 0) << r.output;
    EXPECT_NE(r.output.find("token steps (a sequence's token each)"), std::string::npos) << r.output;
    EXPECT_EQ(r.output.find("decode steps; "), std::string::npos) << r.output;
}

TEST_F(CliRun, ARealRunsPoolGrowsUnlessToldNotToAndABadLimitExitsTwo)
{
    // Three requests of the default scenario need more than a 1 MiB pool's sixteen 64 KiB blocks.
    const std::string run =
        "run " + defaultScenario() + " --max-requests 3 --no-store --backend real-cpu --arena-mib 1";
    const CliResult grown = runCohsim(run);
    EXPECT_EQ(grown.exitCode, 0) << grown.output;
    EXPECT_NE(grown.output.find("K/V pools       one per decode node, made at 1 MiB; "), std::string::npos)
        << grown.output;
    EXPECT_NE(grown.output.find("grew as their free blocks ran out"), std::string::npos) << grown.output;
    EXPECT_EQ(grown.output.find("borrowed blocks"), std::string::npos) << grown.output;
    const CliResult fixed = runCohsim(run + " --pool-mib 1");
    EXPECT_EQ(fixed.exitCode, 0) << fixed.output;
    EXPECT_NE(fixed.output.find("K/V pools       one per decode node, made at 1 MiB, none grown (they could not grow)"),
              std::string::npos)
        << fixed.output;
    EXPECT_NE(fixed.output.find("would have held every sequence's blocks"), std::string::npos) << fixed.output;
    const std::string base = "run " + defaultScenario() + " --max-requests 3 --no-store --backend real-cpu";
    for (const std::string& bad : {std::string(" --pool-mib 0"), std::string(" --arena-mib 64 --pool-mib 32")}) {
        const CliResult r = runCohsim(base + bad);
        EXPECT_EQ(r.exitCode, 2) << bad << ": " << r.output;
        EXPECT_NE(r.output.find("--pool-mib"), std::string::npos) << r.output;
    }
    const CliResult simulated = runCohsim("run " + defaultScenario() + " --max-requests 3 --no-store --pool-mib 128");
    EXPECT_EQ(simulated.exitCode, 2) << simulated.output;
    EXPECT_NE(simulated.output.find("--pool-mib: the simulated backend holds no K/V pool"), std::string::npos)
        << simulated.output;
    // So are the other real backends' options a simulated run would ignore, and an empty fault.
    for (const auto& [args, option] :
         std::vector<std::pair<std::string, std::string>>{{" --arena-mib 8", "--arena-mib"},
                                                          {" --layers 2", "--layers"},
                                                          {" --inject ''", "--inject"},
                                                          {" --backend real-cpu --inject ''", "--inject"}}) {
        const CliResult r = runCohsim("run " + defaultScenario() + " --max-requests 1 --no-store" + args);
        EXPECT_EQ(r.exitCode, 2) << args << ": " << r.output;
        EXPECT_NE(r.output.find("error: " + option + ": "), std::string::npos) << args << ": " << r.output;
    }

    // validate says the memory a real run would take, and refuses what run refuses; so does compare-real, before it
    // calibrates.
    const std::string validate = "validate " + defaultScenario() + " --backend real-cpu";
    const CliResult plan = runCohsim(validate + " --arena-mib 8");
    EXPECT_EQ(plan.exitCode, 0) << plan.output;
    EXPECT_NE(plan.output.find("real-cpu memory: 10 node memories of 8 MiB; 4 decode K/V pools that start at 8 MiB and "
                               "grow to "),
              std::string::npos)
        << plan.output;
    // On the simulated backend --arena-mib is refused, as run refuses it, not taken silently.
    const CliResult simulatedArena = runCohsim("validate " + defaultScenario() + " --arena-mib 5");
    EXPECT_EQ(simulatedArena.exitCode, 2) << simulatedArena.output;
    EXPECT_NE(simulatedArena.output.find("--arena-mib: the simulated backend makes no node memories"),
              std::string::npos)
        << simulatedArena.output;
    const CliResult fixedPlan = runCohsim(validate + " --pool-mib 64");
    EXPECT_EQ(fixedPlan.exitCode, 0) << fixedPlan.output;
    EXPECT_NE(fixedPlan.output.find("4 decode K/V pools of 64 MiB, not growing, in this machine's memory"),
              std::string::npos)
        << fixedPlan.output;
    for (const std::string& bad : {validate + " --pool-mib 32", "validate " + defaultScenario() + " --pool-mib 128",
                                   "compare-real " + defaultScenario() + " --no-store --arena-mib 8 --pool-mib 4"}) {
        const CliResult r = runCohsim(bad);
        EXPECT_EQ(r.exitCode, 2) << bad << ": " << r.output;
        EXPECT_NE(r.output.find("--pool-mib"), std::string::npos) << r.output;
    }

    // A pool holds at least one block: a block larger than the pool may grow is refused at its field, by run and
    // validate alike, before any memory is made (it used to make a 256 MiB pool past --pool-mib 100). Llama-3-8B's
    // block of 8 KV heads x 128 dimensions, fp16, K and V: 4 KiB a token, so 64 MiB holds 16,384 tokens.
    nlohmann::json huge = nlohmann::json::parse(std::ifstream(defaultScenario()));
    huge["serving"]["block_tokens"] = 16385;
    const std::string scenario = file("huge-blocks.json", huge.dump());
    for (const std::string& command : {"run " + scenario + " --max-requests 1 --no-store", "validate " + scenario}) {
        const CliResult r = runCohsim(command + " --backend real-cpu --pool-mib 64 --arena-mib 1");
        EXPECT_EQ(r.exitCode, 2) << command << ": " << r.output;
        EXPECT_NE(r.output.find("/serving/block_tokens: one K/V block of 16385 tokens takes 64 MiB"), std::string::npos)
            << r.output;
        EXPECT_NE(r.output.find("give block_tokens 16384 or less, or a larger --pool-mib"), std::string::npos)
            << r.output;
    }
}

TEST_F(CliRun, LeaseExpiryIsCountedStoredAndShownAndALeaseWithoutLeasesExitsTwo)
{
    // The default scenario under sealed-lease with a lease far shorter than a decode: trusted reads after expiry.
    const std::string sets = " --set /coherence/decode=sealed-lease --set '/coherence/lease/ttl=1 ms'"
                             " --set /coherence/lease/on_expiry=trust --max-requests 50";
    const CliResult run = runCohsim("run " + defaultScenario() + sets + " " + db() + " --json", Stderr::Discard);
    ASSERT_EQ(run.exitCode, 0) << run.output;
    const auto summary = nlohmann::json::parse(run.output);
    const auto& lease = summary.at("summary").at("lease");
    EXPECT_EQ(lease.at("ttl_ns").get<std::int64_t>(), 1'000'000);
    EXPECT_EQ(lease.at("on_expiry"), "trust");
    const auto expired = lease.at("expired_reads").get<std::uint64_t>();
    EXPECT_GT(expired, 0u);
    EXPECT_LE(expired, lease.at("leased_reads").get<std::uint64_t>());
    const CliResult text =
        runCohsim("runs show " + std::to_string(summary.at("run_id").get<int>()) + " " + db(), Stderr::Discard);
    ASSERT_EQ(text.exitCode, 0) << text.output;
    EXPECT_NE(text.output.find(", trust: " + std::to_string(expired) + " of "), std::string::npos) << text.output;

    const CliResult bad = runCohsim("run " + defaultScenario() + " --no-store --set '/coherence/lease/ttl=1 s'");
    EXPECT_EQ(bad.exitCode, 2) << bad.output;
    EXPECT_NE(bad.output.find("/coherence/lease/ttl"), std::string::npos) << bad.output;
    EXPECT_NE(bad.output.find("grants no leases"), std::string::npos) << bad.output;
}

TEST_F(CliRun, SameSeedSameResultsOtherSeedOtherResults)
{
    // A synthetic workload, so the seed drives the arrivals and lengths.
    const std::string preset = std::string(COH_DATASETS_DIR) + "/presets/cxl-pool.json";
    auto ttft = [&](const std::string& seed) {
        const CliResult r =
            runCohsim("run " + preset + " --no-store --json --max-requests 200 --seed " + seed, Stderr::Discard);
        EXPECT_EQ(r.exitCode, 0) << r.output;
        return nlohmann::json::parse(r.output).at("summary").at("ttft_ms");
    };
    EXPECT_EQ(ttft("5"), ttft("5"));
    EXPECT_NE(ttft("5"), ttft("6"));
}

TEST_F(CliRun, MalformedScenarioExitsTwoNamingFileLineAndFix)
{
    const std::string path = file("broken.json", "{\n  \"name\": \"x\",\n  \"topology\": {\n}");
    const CliResult r = runCohsim("run " + path + " " + db());
    EXPECT_EQ(r.exitCode, 2) << r.output;
    EXPECT_NE(r.output.find("broken.json"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("line"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("fix"), std::string::npos) << r.output;
}

TEST_F(CliRun, UnknownNodeInALinkExitsTwoNamingTheField)
{
    auto scenario = nlohmann::json::parse(std::ifstream(defaultScenario()));
    scenario["topology"]["links"][0]["b"] = "gpu99";
    const std::string path = file("unknown-node.json", scenario.dump());
    const CliResult r = runCohsim("run " + path + " " + db());
    EXPECT_EQ(r.exitCode, 2) << r.output;
    EXPECT_NE(r.output.find("/topology/links/0/b"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("gpu99"), std::string::npos) << r.output;
}

TEST_F(CliRun, NegativeBandwidthExitsTwoNamingTheField)
{
    auto scenario = nlohmann::json::parse(std::ifstream(defaultScenario()));
    scenario["topology"]["links"][1]["bandwidth"] = "-5 GB/s";
    const CliResult r = runCohsim("validate " + file("negative.json", scenario.dump()));
    EXPECT_EQ(r.exitCode, 2) << r.output;
    EXPECT_NE(r.output.find("/topology/links/1/bandwidth"), std::string::npos) << r.output;
}

TEST_F(CliRun, TraceWithMissingColumnExitsTwoNamingTheColumn)
{
    const std::string trace = file("trace.csv", "TIMESTAMP,ContextTokens\n2023-11-16 18:15:46.6805900,374\n");
    auto scenario = nlohmann::json::parse(std::ifstream(defaultScenario()));
    scenario["workload"] = {{"type", "trace"}, {"format", "azure"}, {"path", trace}};
    const CliResult r = runCohsim("run " + file("trace-scenario.json", scenario.dump()) + " " + db());
    EXPECT_EQ(r.exitCode, 2) << r.output;
    EXPECT_NE(r.output.find("GeneratedTokens"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("trace.csv"), std::string::npos) << r.output;
}

TEST_F(CliRun, CorruptDatabaseExitsTwoAndIsLeftUntouched)
{
    const std::string path = file("corrupt.db", std::string(4096, '\x5a'));
    const CliResult r = runCohsim("run " + defaultScenario() + " --db " + path);
    EXPECT_EQ(r.exitCode, 2) << r.output;
    EXPECT_NE(r.output.find("corrupt.db"), std::string::npos) << r.output;
    EXPECT_EQ(fs::file_size(path), 4096u);
}

} // namespace
} // namespace coh::test
