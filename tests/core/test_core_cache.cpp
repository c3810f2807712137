// The core's own cache size (core/real/core_cache.h): what tells a decode step read from it from one read out of
// memory.
#include "core/real/core_cache.h"

#include <gtest/gtest.h>

namespace coh::test {
namespace {

TEST(CoreCache, SizesReadAsSysfsWritesThem)
{
    EXPECT_EQ(core::real::parseCacheSize("2048K"), std::size_t{2} << 20);
    EXPECT_EQ(core::real::parseCacheSize("32M"), std::size_t{32} << 20);
    EXPECT_EQ(core::real::parseCacheSize("1G"), std::size_t{1} << 30);
    EXPECT_EQ(core::real::parseCacheSize("512"), 512u);
    EXPECT_EQ(core::real::parseCacheSize("48K "), std::size_t{48} << 10);
    // Anything else is no size.
    for (const char* bad : {"", "K", "2048KB", "-1K", "2048 K", "12X"})
        EXPECT_EQ(core::real::parseCacheSize(bad), 0u) << bad;
}

} // namespace
} // namespace coh::test
