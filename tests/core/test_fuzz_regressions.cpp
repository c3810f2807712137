// Every input kept in tests/data/fuzz/<target>/ (the fuzzers' findings, minimised, and inputs written for the
// classes docs/reliability.md lists) goes through its fuzz target again in the ordinary build: it must be
// accepted or refused with an InputError, never crash or throw anything else. scripts/fuzz adds new findings.
#include "tests/fuzz/fuzz_targets.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

namespace coh::test {
namespace {

namespace fs = std::filesystem;

TEST(FuzzRegressions, EveryKeptInputIsAcceptedOrRefusedByName)
{
    const fs::path root = fs::path(COH_TEST_DATA_DIR) / "fuzz";
    std::size_t replayed = 0;
    for (const auto& folder : fs::directory_iterator(root)) {
        const auto target = fuzz::targetFromName(folder.path().filename().string());
        ASSERT_TRUE(target) << "unknown fuzz target folder " << folder.path();
        for (const auto& entry : fs::directory_iterator(folder.path())) {
            std::ifstream in(entry.path(), std::ios::binary);
            const std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(in)), {});
            SCOPED_TRACE(entry.path().string());
            EXPECT_NO_THROW(fuzz::runInput(*target, bytes.data(), bytes.size()));
            ++replayed;
        }
    }
    EXPECT_GT(replayed, 0u) << "no inputs under " << root;
}

} // namespace
} // namespace coh::test
