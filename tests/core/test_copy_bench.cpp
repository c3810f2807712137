// `cohsim bench copy`'s two sides: each size and round timed on both, each backend copy sealed and checked as a run's
// (docs/real-backend.md#copy-speed).
#include "core/real/copy_bench.h"

#include <gtest/gtest.h>

#include <span>
#include <string>
#include <vector>

namespace coh::test {
namespace {

using namespace coh::core;

TEST(RealCpuBackend, TheCopyBenchTimesBothSidesForEverySize)
{
    real::CopyBenchOptions options;
    options.sizes = {64, 100000};
    options.rounds = 3;
    options.arenaBytes = 64 << 10; // the larger copy wraps the arena
    const auto rows = real::runCopyBench(options);
    ASSERT_EQ(rows.size(), 2u);
    for (std::size_t i = 0; i < rows.size(); ++i) {
        EXPECT_EQ(rows[i].bytes, options.sizes[i]);
        EXPECT_GE(rows[i].plainNs, 1.0);
        EXPECT_GE(rows[i].copyNs, 1.0);
        // The sender waits for the copy and more: the hand-over, the check and the wake-up.
        EXPECT_GE(rows[i].messageNs, rows[i].copyNs);
    }
}

TEST(RealCpuBackend, TheCopyBenchSealsAndChecksEachCopyAsARunDoes)
{
    real::CopyBenchOptions options;
    options.sizes = {4096};
    options.rounds = 3;
    std::vector<std::string> calls;
    std::vector<std::size_t> plainAt, copyAt;
    const auto sealOf = [](std::span<const real::CopyPiece> pieces) {
        return static_cast<std::uint32_t>(0x1234 + pieces.front().srcOffset);
    };
    real::CopyBenchSides sides;
    sides.plain = [&](std::size_t offset, std::size_t, std::uint64_t) {
        calls.push_back("plain");
        plainAt.push_back(offset);
        return 100.0;
    };
    sides.seal = [&](std::span<const real::CopyPiece> pieces, real::CopyStamp& stamp) {
        calls.push_back("seal");
        stamp.checksum = sealOf(pieces);
    };
    sides.copy = [&](std::span<const real::CopyPiece> pieces, const real::CopyStamp& stamp) {
        calls.push_back("copy");
        copyAt.push_back(pieces.front().srcOffset);
        EXPECT_EQ(stamp.checksum, sealOf(pieces)); // sealed before it is copied
        real::CopyResult result;
        result.ns = 50;
        return result;
    };
    sides.landed = [&](std::span<const real::CopyPiece> pieces) {
        calls.push_back("landed");
        return sealOf(pieces);
    };
    const auto rows = real::runCopyRows(options, 1 << 20, sides);
    // Each round: the plain copy, then what a run does, in its order: the sender seals, the backend copies, the
    // receiver checks what landed.
    std::vector<std::string> round{"plain", "seal", "copy", "landed"}, expected;
    for (int r = 0; r < options.rounds; ++r)
        expected.insert(expected.end(), round.begin(), round.end());
    EXPECT_EQ(calls, expected);
    // Both walk their memories from round to round, so the large copies come from memory.
    EXPECT_EQ(plainAt, (std::vector<std::size_t>{0, 4096, 8192}));
    EXPECT_EQ(copyAt, plainAt);
    ASSERT_EQ(rows.size(), 1u);
    EXPECT_EQ(rows[0].plainNs, 100.0);
    EXPECT_EQ(rows[0].copyNs, 50.0);
    // What landed does not match its seal: no figure.
    sides.landed = [](std::span<const real::CopyPiece>) { return std::uint32_t{0}; };
    EXPECT_THROW(real::runCopyRows(options, 1 << 20, sides), std::runtime_error);
}

} // namespace
} // namespace coh::test
