// A real backend's memories are checked against the machine's before a run makes any: each node touches its arena
// first, so an allocation past the machine's memory would end in the kernel killing the run, not in an error.
#include "core/base/input_error.h"
#include "core/real/backend.h"
#include "core/real/gpu_nodes.h"
#include "core/real/memory_fit.h"
#include "engine_fixtures.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <sstream>

namespace coh::test {
namespace {

constexpr std::size_t kMiB = std::size_t{1} << 20;

TEST(MemoryFit, CountsAnArenaPerNodeThatCopiesAndAPoolPerDecodeInstance)
{
    Scenario s = twoGpuScenario();
    EXPECT_EQ(core::real::realMemoryNeed(s).arenas, 2u);
    EXPECT_EQ(core::real::realMemoryNeed(s).pools, 1u);
    // A switch copies nothing; a second decode instance on its own node attends there too.
    Node sw = servingNode("sw", NodeRole::None);
    sw.kind = NodeKind::Switch;
    s.topology.nodes.push_back(sw);
    s.topology.nodes.push_back(servingNode("d1", NodeRole::Decode));
    s.serving.instances.push_back({"decode1", InstanceRole::Decode, {"d1"}, 0, 0});
    const auto need = core::real::realMemoryNeed(s);
    EXPECT_EQ(need.arenas, 3u);
    EXPECT_EQ(need.pools, 2u);
    EXPECT_EQ(need.bytes(64 * kMiB), 5 * 64 * kMiB);
    EXPECT_EQ(need.hostArenas, 0u);
    // real-cuda places CPU sockets, CXL memory and storage in pinned host memory: counted apart, among the arenas.
    for (const NodeKind kind : {NodeKind::CpuSocket, NodeKind::CxlMemory, NodeKind::Storage, NodeKind::Accelerator}) {
        Node n = servingNode(fmt::format("n{}", static_cast<int>(kind)), NodeRole::Memory);
        n.kind = kind;
        s.topology.nodes.push_back(n);
    }
    const auto withHost = core::real::realMemoryNeed(s);
    EXPECT_EQ(withHost.arenas, 7u);
    EXPECT_EQ(withHost.hostArenas, 3u); // not the accelerator: its memory is its own
    EXPECT_TRUE(core::real::hostMemoryOnGpus(NodeKind::CpuSocket));
    EXPECT_FALSE(core::real::hostMemoryOnGpus(NodeKind::Gpu));
    EXPECT_FALSE(core::real::hostMemoryOnGpus(NodeKind::Switch));
}

TEST(MemoryFit, SomeOfTheMemoriesAreCheckedAgainstTheirOwnMemory)
{
    // real-cuda's host part: two pinned arenas of 64 MiB fit 1 GiB, not 100 MiB, and the error counts only them.
    const core::real::MemoryNeed host{2, 0, 2};
    EXPECT_NO_THROW(core::real::checkMemoryFits(host, 64 * kMiB, 1024 * kMiB, "this machine's memory (pinned)"));
    try {
        core::real::checkMemoryFits(host, 64 * kMiB, 100 * kMiB, "this machine's memory (pinned)");
        FAIL() << "two 64 MiB arenas do not fit 80% of 100 MiB";
    } catch (const core::InputError& e) {
        EXPECT_NE(std::string(e.what()).find("2 node memories and 0 K/V pools of 64 MiB each"), std::string::npos)
            << e.what();
        EXPECT_NE(std::string(e.what()).find("this machine's memory (pinned) has"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("--arena-mib 40"), std::string::npos) << e.what();
    }
}

TEST(MemoryFit, ArenasPastTheMachinesMemoryAreRefusedWithTheLargestThatFits)
{
    const Scenario s = twoGpuScenario(); // two arenas and one pool: three memories
    // 192 MiB of a gigabyte available fits.
    EXPECT_NO_THROW(core::real::checkMemoryFits(s, 64 * kMiB, 1024 * kMiB, "this machine's memory"));
    try {
        core::real::checkMemoryFits(s, 64 * kMiB, 100 * kMiB, "this machine's memory");
        FAIL() << "192 MiB of memories were taken with 100 MiB available";
    } catch (const core::InputError& e) {
        ASSERT_EQ(e.problems().size(), 1u);
        const auto& p = e.problems()[0];
        EXPECT_EQ(p.field, "--arena-mib");
        EXPECT_NE(p.message.find("2 node memories and 1 K/V pools of 64 MiB each"), std::string::npos) << p.message;
        // The check is against 80% of what is available, and the message says so, to the second decimal (the need
        // rounded up, the share down: 80 MiB is 0.078 GiB).
        EXPECT_NE(p.message.find("need 0.19 GiB, more than the 80% of the 0.10 GiB this machine's memory has available "
                                 "that a run's memories may take (0.07 GiB)"),
                  std::string::npos)
            << p.message;
        // 80% of 100 MiB over three memories: 26 MiB each.
        EXPECT_NE(p.fix.find("--arena-mib 26 "), std::string::npos) << p.fix;
    }
    // Past 10 GiB, a need just over the share still reads as more than it: 14 memories of 1352 MiB (18.48 GiB)
    // against 80% of a MiB and a quarter less than that over 0.8 ("18.5 GiB, more than ... (18.5 GiB)").
    try {
        const core::real::MemoryNeed fourteen{10, 4, 0};
        core::real::checkMemoryFits(fourteen, 1352 * kMiB, (14 * 1352 * kMiB - kMiB) * 5 / 4, "this machine's memory");
        FAIL() << "a need past the share was taken";
    } catch (const core::InputError& e) {
        EXPECT_NE(e.problems()[0].message.find("need 18.49 GiB"), std::string::npos) << e.problems()[0].message;
        EXPECT_NE(e.problems()[0].message.find("may take (18.48 GiB)"), std::string::npos) << e.problems()[0].message;
    }
    // Less than a MiB each: no arena size fits.
    try {
        core::real::checkMemoryFits(s, 64 * kMiB, kMiB, "the GPUs' memory");
        FAIL() << "a MiB was enough for three memories";
    } catch (const core::InputError& e) {
        EXPECT_NE(e.problems()[0].fix.find("more memory"), std::string::npos) << e.problems()[0].fix;
    }
}

TEST(MemoryFit, ABlockMessageNoMemoryHereHoldsIsRefusedWithTheLargestBlockThatFits)
{
    Scenario s = twoGpuScenario();
    s.sourcePath = "s.json";
    s.serving.blockTokens = 1000;
    const std::uint64_t block = s.model.kvBytesPerToken() * 1000; // K and V of every layer
    // 80% of the memory holds it exactly, and no more.
    const auto exact = static_cast<std::uint64_t>(static_cast<double>(block) / 0.8) + 1;
    EXPECT_NO_THROW(core::real::checkBlockMessageFits(s, exact, "this machine's memory"));
    try {
        core::real::checkBlockMessageFits(s, exact / 4, "this machine's memory");
        FAIL() << "a block message of four times what a run may take was taken";
    } catch (const core::InputError& e) {
        ASSERT_EQ(e.problems().size(), 1u);
        const auto& p = e.problems()[0];
        EXPECT_EQ(p.file, "s.json");
        EXPECT_EQ(p.field, "/serving/block_tokens");
        EXPECT_NE(p.message.find(fmt::format("K and V of all {} layers for 1000 tokens", s.model.layers)),
                  std::string::npos)
            << p.message;
        EXPECT_NE(p.message.find("more than this machine's memory can give a run (80% of"), std::string::npos)
            << p.message;
        // A quarter of the memory holds a quarter of the block.
        EXPECT_NE(p.fix.find("give block_tokens 250 or less"), std::string::npos) << p.fix;
    }
    // Not one token's K and V fits: only the simulator runs it.
    try {
        core::real::checkBlockMessageFits(s, 16, "the GPU's memory");
        FAIL() << "16 bytes held a block";
    } catch (const core::InputError& e) {
        EXPECT_EQ(e.problems()[0].fix, "run this model on the simulator");
    }
}

TEST(MemoryFit, AContainersLimitLeavesItsRoomAndNoLimitLeavesNone)
{
    const auto room = [](const std::string& limit, const std::string& usage, const std::string& stat = "") {
        std::istringstream l(limit), u(usage), s(stat);
        return core::real::cgroupRoom(l, u, s);
    };
    EXPECT_EQ(room("8589934592\n", "2147483648\n"), std::uint64_t{6} << 30); // 8 GiB, 2 GiB used
    EXPECT_EQ(room("1048576", "2097152"), 0u);                               // past its limit already
    EXPECT_FALSE(room("max\n", "2147483648"));                               // cgroup v2 without a limit
    EXPECT_FALSE(room("9223372036854771712", "2147483648"));                 // cgroup v1 without a limit
    EXPECT_FALSE(room("", ""));                                              // nothing to read
    // Inactive page cache counts in the usage, but the kernel reclaims it: 1 GiB of it leaves 7 GiB (v2, then v1).
    EXPECT_EQ(room("8589934592", "2147483648", "anon 1073741824\ninactive_file 1073741824\nactive_file 0\n"),
              std::uint64_t{7} << 30);
    EXPECT_EQ(room("8589934592", "2147483648", "inactive_file 4096\ntotal_inactive_file 1073741824\n"),
              std::uint64_t{7} << 30);
}

TEST(MemoryFit, ThisMachinesAvailableMemoryIsReadAndARealRunChecksIt)
{
    const auto available = core::real::availableHostMemory();
    ASSERT_TRUE(available) << "/proc/meminfo has no MemAvailable";
    EXPECT_GT(*available, 0u);
    // Arenas of more than the machine has are refused before anything is made.
    core::BackendOptions options;
    options.name = "real-cpu";
    options.realCpu.arenaBytes = static_cast<std::size_t>(*available);
    try {
        core::checkBackendRuns(options, twoGpuScenario());
        FAIL() << "arenas of all the machine's memory were taken";
    } catch (const core::InputError& e) {
        EXPECT_EQ(e.problems()[0].field, "--arena-mib");
    }
    options.realCpu.arenaBytes = kMiB;
    EXPECT_NO_THROW(core::checkBackendRuns(options, twoGpuScenario()));
}

} // namespace
} // namespace coh::test
