// cohsim bench phold --protocol through the real binary: both executors take the same protocol steps on the
// same PHOLD events, the JSON says which ran and how big the automaton grew, and a wrong executor is refused; bench
// attention measures the K/V element it is asked for.
#include "cli_runner.h"
#include "core/gpu/cuda_devices.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace coh::test {
namespace {

nlohmann::json benchJson(const std::string& args)
{
    const CliResult r = runCohsim("bench phold --lps 64 --end 20 --repeat 1 --json " + args, Stderr::Inherit);
    EXPECT_EQ(r.exitCode, 0) << r.output;
    return nlohmann::json::parse(r.output, nullptr, false);
}

TEST(CliBench, BothExecutorsTakeTheSameStepsOnPholdsEvents)
{
    const nlohmann::json automaton = benchJson("--protocol moesi-directory");
    const nlohmann::json interpreter = benchJson("--protocol moesi-directory --executor interpreter");
    ASSERT_TRUE(automaton.is_object() && interpreter.is_object());
    EXPECT_EQ(automaton["executor"], "automaton");
    EXPECT_EQ(interpreter["executor"], "interpreter");
    EXPECT_TRUE(automaton["same_events_as_plain"].get<bool>());
    EXPECT_TRUE(interpreter["same_events_as_plain"].get<bool>());
    for (const char* field : {"committed", "delivered", "issued", "stalled", "sent", "deadlocked_blocks"})
        EXPECT_EQ(automaton[field], interpreter[field]) << field;
    EXPECT_GT(automaton["automaton_states"].get<int>(), 1);
    EXPECT_LT(automaton["automaton_transitions"].get<std::uint64_t>(),
              automaton["delivered"].get<std::uint64_t>() + automaton["issued"].get<std::uint64_t>());
    EXPECT_FALSE(automaton["automaton_abandoned"].get<bool>());
    EXPECT_EQ(interpreter["automaton_states"], 0);
}

TEST(CliBench, AnAutomatonOverItsBudgetSaysTheInterpreterTookOver)
{
    const CliResult r = runCohsim(
        "bench phold --lps 64 --end 20 --repeat 1 --protocol moesi-directory --caches 4 --automaton-states 30");
    EXPECT_EQ(r.exitCode, 0) << r.output;
    EXPECT_NE(r.output.find("outgrew its budget of 30 block states"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("invariants held"), std::string::npos) << r.output;
}

TEST(CliBench, AnUnknownExecutorIsRefusedNamingTheChoices)
{
    const CliResult r = runCohsim("bench phold --protocol msi-directory --executor jit");
    EXPECT_NE(r.exitCode, 0);
    EXPECT_NE(r.output.find("--executor"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("automaton"), std::string::npos) << r.output;
}

TEST(CliBench, AttentionBenchesTheElementAsked)
{
    // fp16 (the default, as a model's cache holds K and V) reads half the bytes fp32 reads at every context.
    const CliResult fp16 = runCohsim("bench attention --repeat 1 --contexts 128,1000 --json", Stderr::Inherit);
    const CliResult fp32 =
        runCohsim("bench attention --repeat 1 --contexts 128,1000 --kv-dtype fp32 --json", Stderr::Inherit);
    ASSERT_EQ(fp16.exitCode, 0) << fp16.output;
    ASSERT_EQ(fp32.exitCode, 0) << fp32.output;
    const auto half = nlohmann::json::parse(fp16.output), single = nlohmann::json::parse(fp32.output);
    EXPECT_EQ(half["kv_dtype"], "fp16");
    EXPECT_EQ(single["kv_dtype"], "fp32");
    ASSERT_EQ(half["contexts"].size(), 2u);
    ASSERT_EQ(single["contexts"].size(), 2u);
    EXPECT_EQ(half["contexts"][1]["context"], 1000);
    // Llama-3-8B's 8 KV heads of 128: a token's K and V are 4 KiB in fp16.
    EXPECT_EQ(half["contexts"][0]["kv_bytes"].get<double>(), half["contexts"][0]["context"].get<double>() * 4096);
    for (std::size_t i = 0; i < half["contexts"].size(); ++i)
        EXPECT_EQ(2 * half["contexts"][i]["kv_bytes"].get<double>(), single["contexts"][i]["kv_bytes"].get<double>());
    // The CUDA kernel reads fp16 only: asking it for fp32 is refused before any GPU is looked for.
    const CliResult cuda = runCohsim("bench attention --backend real-cuda --kv-dtype fp32");
    EXPECT_EQ(cuda.exitCode, 2) << cuda.output;
    EXPECT_NE(cuda.output.find("--kv-dtype"), std::string::npos) << cuda.output;
    // A context past the bench's memory is refused naming the option that asked for it, before anything is allocated.
    const CliResult huge = runCohsim("bench attention --contexts 128,1048576");
    EXPECT_EQ(huge.exitCode, 2) << huge.output;
    EXPECT_NE(huge.output.find("--contexts: 1 sequence(s) of 1048576 tokens need"), std::string::npos) << huge.output;
    // The fix names what fits: 4 GiB over 8 KiB per token (K and V of 8 heads of 128 in fp16, twice: the copy).
    EXPECT_NE(huge.output.find("give --contexts of at most 524288 tokens"), std::string::npos) << huge.output;
    const CliResult many = runCohsim("bench attention --sequences 64");
    EXPECT_EQ(many.exitCode, 2) << many.output;
    EXPECT_NE(many.output.find("give --sequences 16 with the default contexts, or --contexts of at most 8192 tokens "
                               "for 64 sequences"),
              std::string::npos)
        << many.output;
    // Warm: the same blocks every round, said in the JSON; the GPU kernel is not measured so.
    const CliResult warm = runCohsim("bench attention --repeat 1 --contexts 128 --warm --json", Stderr::Inherit);
    ASSERT_EQ(warm.exitCode, 0) << warm.output;
    EXPECT_EQ(nlohmann::json::parse(warm.output)["warm"], true);
    EXPECT_EQ(half["warm"], false);
    const CliResult warmCuda = runCohsim("bench attention --backend real-cuda --warm");
    EXPECT_EQ(warmCuda.exitCode, 2) << warmCuda.output;
    EXPECT_NE(warmCuda.output.find("--warm"), std::string::npos) << warmCuda.output;
    // Other memory read between the rounds, said in the JSON and the text; none by default; not on a GPU.
    EXPECT_TRUE(half["between_bytes"].empty());
    EXPECT_EQ(half["contexts"][0]["between_bytes"], 0);
    // Several amounts: a row for each context and amount, in turn.
    const CliResult between =
        runCohsim("bench attention --repeat 1 --contexts 128,256 --warm --between-mib 0,3 --json", Stderr::Inherit);
    ASSERT_EQ(between.exitCode, 0) << between.output;
    const auto rows = nlohmann::json::parse(between.output);
    EXPECT_EQ(rows["between_bytes"], nlohmann::json::array({0, 3 << 20}));
    ASSERT_EQ(rows["contexts"].size(), 4u);
    EXPECT_EQ(rows["contexts"][0]["context"], 128);
    EXPECT_EQ(rows["contexts"][0]["between_bytes"], 0);
    EXPECT_EQ(rows["contexts"][1]["context"], 128);
    EXPECT_EQ(rows["contexts"][1]["between_bytes"], 3 << 20);
    EXPECT_EQ(rows["contexts"][3]["context"], 256);
    const CliResult betweenText =
        runCohsim("bench attention --repeat 1 --contexts 128 --between-mib 3", Stderr::Inherit);
    ASSERT_EQ(betweenText.exitCode, 0) << betweenText.output;
    EXPECT_NE(betweenText.output.find("instance's steps: 3 MiB"), std::string::npos) << betweenText.output;
    EXPECT_NE(betweenText.output.find("BETWEEN MiB"), std::string::npos) << betweenText.output;
    const CliResult betweenCuda = runCohsim("bench attention --backend real-cuda --between-mib 3");
    EXPECT_EQ(betweenCuda.exitCode, 2) << betweenCuda.output;
    EXPECT_NE(betweenCuda.output.find("--between-mib"), std::string::npos) << betweenCuda.output;
    EXPECT_EQ(runCohsim("bench attention --between-mib 5000").exitCode, 2);
    const CliResult calibrate = runCohsim("calibrate --backend real-cuda --kv-dtype fp32");
    EXPECT_EQ(calibrate.exitCode, 2) << calibrate.output;
    EXPECT_NE(calibrate.output.find("--kv-dtype"), std::string::npos) << calibrate.output;
}

TEST(CliBench, CopyPathsAreRealCudasAndRealCpuHasOne)
{
    // real-cpu's every memory is the host's: asking it for the host path is refused, naming the option and the fix.
    const CliResult cpu = runCohsim("bench copy --path to-host");
    EXPECT_EQ(cpu.exitCode, 2) << cpu.output;
    EXPECT_NE(cpu.output.find("--path: real-cpu has one copy path"), std::string::npos) << cpu.output;
    EXPECT_NE(cpu.output.find("--backend real-cuda"), std::string::npos) << cpu.output;
    // Its one path is not real-cuda's "gpu" either, though that is the path real-cuda takes when none is named.
    const CliResult gpu = runCohsim("bench copy --path gpu");
    EXPECT_EQ(gpu.exitCode, 2) << gpu.output;
    EXPECT_NE(gpu.output.find("not \"gpu\""), std::string::npos) << gpu.output;
    const CliResult bogus = runCohsim("bench copy --path sideways");
    EXPECT_EQ(bogus.exitCode, 2) << bogus.output;
    // Its one path is host memory to host memory.
    const CliResult plain = runCohsim("bench copy --repeat 1 --json", Stderr::Inherit);
    ASSERT_EQ(plain.exitCode, 0) << plain.output;
    EXPECT_EQ(nlohmann::json::parse(plain.output)["path"], "host");
    // A descriptor that holds the whole arena copies every message whole, and the bench says so.
    const CliResult huge = runCohsim("bench copy --repeat 1 --descriptor-kib 1048576", Stderr::Inherit);
    ASSERT_EQ(huge.exitCode, 0) << huge.output;
    EXPECT_NE(huge.output.find("copies whole (a descriptor of 1048576 KiB holds the 128 MiB arena)"), std::string::npos)
        << huge.output;
    EXPECT_EQ(huge.output.find("scattered"), std::string::npos) << huge.output;
}

TEST(CliBench, CopiesLeaveTheCachesAsARunDoesWhenAsked)
{
    const CliResult asIs = runCohsim("bench copy --repeat 1 --json", Stderr::Inherit);
    ASSERT_EQ(asIs.exitCode, 0) << asIs.output;
    EXPECT_EQ(nlohmann::json::parse(asIs.output)["leave_caches"], false);
    const CliResult left = runCohsim("bench copy --repeat 1 --leave-caches --json", Stderr::Inherit);
    ASSERT_EQ(left.exitCode, 0) << left.output;
    EXPECT_EQ(nlohmann::json::parse(left.output)["leave_caches"], true);
    const CliResult text = runCohsim("bench copy --repeat 1 --leave-caches", Stderr::Inherit);
    ASSERT_EQ(text.exitCode, 0) << text.output;
    EXPECT_NE(text.output.find("MiB of other memory before each copy"), std::string::npos) << text.output;
    // A GPU's memory is no core's to cache: refused before anything is measured, GPU or none.
    const CliResult cuda = runCohsim("bench copy --backend real-cuda --leave-caches");
    EXPECT_EQ(cuda.exitCode, 2) << cuda.output;
    EXPECT_NE(cuda.output.find("--leave-caches"), std::string::npos) << cuda.output;
    EXPECT_NE(cuda.output.find("--backend real-cpu"), std::string::npos) << cuda.output;
}

TEST(CliBench, CalibrateSaysADescriptorHoldingEverySizeMeasuredNoCost)
{
    // Every size measured fits one descriptor of a GiB: no copy was cut, so the cost of a piece is unknown, and the
    // calibration says so instead of "each piece ... adds 0 ns".
    const CliResult huge = runCohsim("calibrate --rounds 1 --descriptor-kib 1048576", Stderr::Inherit);
    ASSERT_EQ(huge.exitCode, 0) << huge.output;
    EXPECT_NE(huge.output.find("descriptors none measured: a piece of 1073741824 B holds every size measured, the "
                               "largest 67108864 B"),
              std::string::npos)
        << huge.output;
    EXPECT_EQ(huge.output.find("beyond a message's first adds 0"), std::string::npos) << huge.output;
    // Pieces of 64 KiB cut the larger sizes: their cost is measured.
    const CliResult cut = runCohsim("calibrate --rounds 1", Stderr::Inherit);
    ASSERT_EQ(cut.exitCode, 0) << cut.output;
    EXPECT_NE(cut.output.find("descriptors each piece of 65536 B beyond a message's first adds"), std::string::npos)
        << cut.output;
}

TEST(CliBench, RealCudaWithoutAGpuIsBadInputAsForARun)
{
    if (!core::probeGpus().devices.empty())
        GTEST_SKIP() << "this machine has a GPU";
    // Exit 2 naming --backend and the fix, as `cohsim run --backend real-cuda` says it, not a failure (1).
    for (const char* bench : {"copy", "attention"}) {
        const CliResult r = runCohsim(std::string("bench ") + bench + " --backend real-cuda --repeat 1");
        EXPECT_EQ(r.exitCode, 2) << r.output;
        EXPECT_NE(r.output.find("--backend: bench " + std::string(bench) + " --backend real-cuda needs a GPU"),
                  std::string::npos)
            << r.output;
        EXPECT_NE(r.output.find("fix: --backend real-cpu"), std::string::npos) << r.output;
    }
}

} // namespace
} // namespace coh::test
