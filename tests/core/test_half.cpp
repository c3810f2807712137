// fp16 as K/V bits (core/real/half.h): every half converts to the float it stands for and back, rounding is to
// nearest even, and the bulk widening (F16C where the CPU has it) agrees with the portable conversion.
#include "core/real/half.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <vector>

namespace coh::test {
namespace {

using core::real::Half;
using core::real::toFloat;
using core::real::toHalf;

std::uint16_t bitsOf(float f)
{
    return toHalf(f).bits;
}

TEST(Half, KnownValuesConvertBothWays)
{
    EXPECT_EQ(bitsOf(0.0f), 0x0000);
    EXPECT_EQ(bitsOf(-0.0f), 0x8000);
    EXPECT_EQ(bitsOf(1.0f), 0x3c00);
    EXPECT_EQ(bitsOf(-2.0f), 0xc000);
    EXPECT_EQ(bitsOf(65504.0f), 0x7bff); // the largest half
    EXPECT_EQ(bitsOf(0x1p-14f), 0x0400); // the smallest normal
    EXPECT_EQ(bitsOf(0x1p-24f), 0x0001); // the smallest subnormal
    EXPECT_EQ(bitsOf(INFINITY), 0x7c00);
    EXPECT_TRUE(std::isnan(toFloat(toHalf(NAN))));
    EXPECT_FLOAT_EQ(toFloat(Half{0x3555}), 0.333251953125f);
    EXPECT_FLOAT_EQ(toFloat(Half{0x0001}), 0x1p-24f);
    EXPECT_FLOAT_EQ(toFloat(Half{0x83ff}), -0x3ffp-24f);
    EXPECT_EQ(toFloat(Half{0xfc00}), -INFINITY);
}

TEST(Half, RoundsToNearestEvenAndOverflowsToInfinity)
{
    // 1 + 2^-11 lies halfway between 1 and 1 + 2^-10: ties go to the even mantissa (1); 1 + 3 x 2^-11 goes up.
    EXPECT_EQ(bitsOf(1.0f + 0x1p-11f), 0x3c00);
    EXPECT_EQ(bitsOf(1.0f + 3 * 0x1p-11f), 0x3c02);
    EXPECT_EQ(bitsOf(1.0f + 0x1p-11f + 0x1p-20f), 0x3c01); // just past halfway
    EXPECT_EQ(bitsOf(65519.0f), 0x7bff);                   // below halfway to 65536: the largest half
    EXPECT_EQ(bitsOf(65520.0f), 0x7c00);                   // halfway: rounds to even, which is infinity
    EXPECT_EQ(bitsOf(1e6f), 0x7c00);
    EXPECT_EQ(bitsOf(-1e6f), 0xfc00);
    EXPECT_EQ(bitsOf(0x1p-25f), 0x0000);   // halfway to the smallest subnormal: even is zero
    EXPECT_EQ(bitsOf(0x1.8p-24f), 0x0002); // 1.5 x 2^-24: ties to even (2)
    EXPECT_EQ(bitsOf(0x1p-30f), 0x0000);
}

TEST(Half, EveryHalfRoundTripsAndBulkWideningAgrees)
{
    std::vector<Half> all(65536);
    for (std::uint32_t b = 0; b < all.size(); ++b)
        all[b] = Half{static_cast<std::uint16_t>(b)};
    std::vector<float> wide(all.size() + 1, -7.0f);
    core::real::widen(all.data(), wide.data(), all.size());
    EXPECT_EQ(wide[all.size()], -7.0f); // nothing written past n
    // Every tail length after the groups of eight (taken one at a time), each stopping exactly at n.
    for (std::size_t n = 0; n <= 17; ++n) {
        std::vector<float> some(n + 1, -7.0f);
        core::real::widen(all.data() + 15360, some.data(), n); // halves from 1.0 up
        for (std::size_t i = 0; i < n; ++i)
            EXPECT_EQ(some[i], toFloat(all[15360 + i])) << n << " halves, the " << i << "th";
        EXPECT_EQ(some[n], -7.0f) << n << " halves: one written past them";
    }
    for (std::uint32_t b = 0; b < all.size(); ++b) {
        const float f = toFloat(all[b]);
        if (std::isnan(f)) {
            EXPECT_TRUE(std::isnan(wide[b])) << b;
            EXPECT_EQ(toHalf(f).bits & 0x7c00u, 0x7c00u) << b; // still NaN
            EXPECT_NE(toHalf(f).bits & 0x03ffu, 0u) << b;
            continue;
        }
        ASSERT_EQ(toHalf(f).bits, b) << "half " << b << " came back as " << toHalf(f).bits;
        ASSERT_EQ(std::bit_cast<std::uint32_t>(wide[b]), std::bit_cast<std::uint32_t>(f)) << "half " << b;
    }
}

} // namespace
} // namespace coh::test
