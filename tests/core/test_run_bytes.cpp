// A run as bytes and back (what cohsim-tune-mpi's ranks send): every field survives, and bytes that are not a run
// are refused with an error instead of read as one.
#include "core/store/run_bytes.h"
#include "run_store_fixtures.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace coh::test {
namespace {

TEST(RunBytes, ARunRoundTripsFieldForField)
{
    const core::RunResult original = makeResult();
    const std::string bytes = core::encodeRunResult(original);
    EXPECT_GT(bytes.size(), 4096u); // a SQLite database: at least a page per table
    expectEqual(core::decodeRunResult(bytes), original);
}

TEST(RunBytes, BytesThatAreNotARunAreRefused)
{
    EXPECT_THROW(core::decodeRunResult("not a database"), std::exception);
    std::string bytes = core::encodeRunResult(makeResult());
    bytes.resize(bytes.size() / 2);
    EXPECT_THROW(core::decodeRunResult(bytes), std::exception);
}

} // namespace
} // namespace coh::test
