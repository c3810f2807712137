// cohsim's number options take what they say: a whole number within its range, never a sign that wraps to the
// largest value, and a request past the process's memory ends with exit 2 and words, not an internal error.
#include "cli_runner.h"

#include <gtest/gtest.h>

#include <string>

// GCC says __SANITIZE_ADDRESS__; Clang before 22 only answers __has_feature.
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#define COH_HAS_SANITIZER 1
#endif
#endif
#ifndef COH_HAS_SANITIZER
#define COH_HAS_SANITIZER 0
#endif

namespace coh::test {
namespace {

const std::string kScenario = std::string(COH_DATASETS_DIR) + "/scenarios/default.json";

CliResult cohsim(const std::string& args)
{
    return runCohsim(args, Stderr::Merge);
}

void expectRefused(const std::string& args, const std::string& says)
{
    const CliResult r = cohsim(args);
    EXPECT_EQ(r.exitCode, 2) << args << "\n" << r.output;
    EXPECT_NE(r.output.find(says), std::string::npos) << args << "\n" << r.output;
}

void expectAccepted(const std::string& args, const std::string& says)
{
    const CliResult r = cohsim(args);
    EXPECT_EQ(r.exitCode, 0) << args << "\n" << r.output;
    EXPECT_NE(r.output.find(says), std::string::npos) << args << "\n" << r.output;
}

TEST(CliNumberOptions, ASignOrAValuePastTheTypeIsRefusedNotWrapped)
{
    const std::string run = "run " + kScenario + " --no-store --max-requests 2 ";
    // CLI11 alone read -1 as 18446744073709551615 and ran with it.
    expectRefused(run + "--seed -1", "--seed: '-1' is not a whole number");
    expectRefused(run + "--seed 18446744073709551616", "is larger than 18446744073709551615");
    expectRefused(run + "--seed 12abc", "'12abc' is not a whole number");
    expectRefused("run " + kScenario + " --no-store --max-requests 4294967296", "is larger than 4294967295");
    // The real backends' sizes and layers alike (CLI11's own "Could not convert" named no range).
    expectRefused(run + "--backend real-cpu --layers -1", "--layers: '-1' is not a whole number");
    expectRefused(run + "--backend real-cpu --arena-mib -1", "--arena-mib: '-1' is not a whole number");
    expectRefused("compare-real " + kScenario + " --no-store --layers 18446744073709551615",
                  "--layers: '18446744073709551615' is larger than 4294967295");
    expectRefused("validate " + kScenario + " --pool-mib -3", "--pool-mib: '-3' is not a whole number");
    expectRefused("verify --protocol msi-directory --max-states -1", "--max-states: '-1' is not a whole number");
    expectRefused("bench phold --seed -5", "--seed: '-5'");
    // CLI11 reads numbers in base 0: "010" would have been octal 8.
    expectAccepted(run + "--seed 010 -q", "seed 10)");
    // The largest seed is a seed.
    expectAccepted(run + "--seed 18446744073709551615 -q", "seed 18446744073709551615");
}

TEST(CliNumberOptions, RepeatsAndLogicalProcessesHaveBounds)
{
    expectRefused("bench scenario " + kScenario + " --repeat 0", "--repeat: Value 0 not in range 1 to 1000");
    expectRefused("bench scenario " + kScenario + " --repeat 1000000", "not in range 1 to 1000");
    expectRefused("bench copy --repeat -1", "--repeat");
    expectRefused("bench phold --lps 10000000", "--lps: Value 10000000 not in range 1 to 1000000");
}

TEST(CliNumberOptions, RunningOutOfMemoryEndsWithExitTwoAndWhatToAskForInstead)
{
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__) || COH_HAS_SANITIZER
    GTEST_SKIP() << "AddressSanitizer reserves terabytes of address space, so ulimit -v stops it at its start, and "
                    "it aborts on a failed allocation rather than throwing";
#endif
    // A million PHOLD processes take about 0.8 GB; the process may have 0.6 GB.
    const CliResult r =
        runShell("ulimit -v 600000; " + std::string(COH_COHSIM_PATH) + " bench phold --lps 1000000 --end 1 2>&1");
    EXPECT_EQ(r.exitCode, 2) << r.output;
    EXPECT_NE(r.output.find("error: cohsim ran out of memory"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("fewer --lps"), std::string::npos) << r.output;
    EXPECT_EQ(r.output.find("bad_alloc"), std::string::npos) << r.output;

    // The real backend's memory check counts the address-space limit as it counts the machine's free memory: ten
    // arenas and four pools of 1000 MiB cannot fit 4 GB, whatever the machine has.
    const CliResult arenas = runShell("ulimit -v 4000000; " + std::string(COH_COHSIM_PATH) + " validate " + kScenario +
                                      " --backend real-cpu --arena-mib 1000 2>&1");
    EXPECT_EQ(arenas.exitCode, 2) << arenas.output;
    EXPECT_NE(arenas.output.find("--arena-mib: 10 node memories and 4 K/V pools of 1000 MiB"), std::string::npos)
        << arenas.output;
}

} // namespace
} // namespace coh::test
