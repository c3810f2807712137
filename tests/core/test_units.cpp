#include "core/scenario/units.h"

#include <gtest/gtest.h>

using namespace coh::core;

TEST(Units, TimeStringsInNanoseconds)
{
    EXPECT_EQ(parseTime("1.5 us"), 1500);
    EXPECT_EQ(parseTime("700 ns"), 700);
    EXPECT_EQ(parseTime("2 ms"), 2'000'000);
    EXPECT_EQ(parseTime("1 s"), kSecond);
    EXPECT_EQ(parseTime("0.7us"), 700);
    EXPECT_EQ(parseTime("  3 \xC2\xB5s "), 3000); // micro sign
    EXPECT_EQ(parseTime("3 \xCE\xBCs"), 3000);    // Greek mu
    EXPECT_EQ(parseTime("0 s"), 0);
    EXPECT_EQ(parseTime("1e-3 s"), kMillisecond);
}

TEST(Units, TimeRoundsToWholeNanoseconds)
{
    EXPECT_EQ(parseTime("1.0006 us"), 1001);
    EXPECT_EQ(parseTime("0.4 ns"), 0);
    EXPECT_EQ(parseTime("-2 us"), -2000); // sign is kept; callers decide whether negative is allowed
}

TEST(Units, BytesDecimalAndBinary)
{
    EXPECT_DOUBLE_EQ(parseBytes("64 GiB"), 64.0 * (1ull << 30));
    EXPECT_DOUBLE_EQ(parseBytes("80 GB"), 80e9);
    EXPECT_DOUBLE_EQ(parseBytes("512 KiB"), 512.0 * 1024);
    EXPECT_DOUBLE_EQ(parseBytes("1.5 TB"), 1.5e12);
    EXPECT_DOUBLE_EQ(parseBytes("2 TiB"), 2.0 * (1ull << 40));
    EXPECT_DOUBLE_EQ(parseBytes("100 B"), 100);
    EXPECT_DOUBLE_EQ(parseBytes("4 kB"), 4000);
}

TEST(Units, BandwidthBytesAndBits)
{
    EXPECT_DOUBLE_EQ(parseBandwidth("400 Gb/s"), 50e9);
    EXPECT_DOUBLE_EQ(parseBandwidth("400 Gbps"), 50e9);
    EXPECT_DOUBLE_EQ(parseBandwidth("450 GB/s"), 450e9);
    EXPECT_DOUBLE_EQ(parseBandwidth("3.35 TB/s"), 3.35e12);
    EXPECT_DOUBLE_EQ(parseBandwidth("25 GBps"), 25e9);
    EXPECT_DOUBLE_EQ(parseBandwidth("1 GiB/s"), 1024.0 * 1024 * 1024);
    EXPECT_DOUBLE_EQ(parseBandwidth("100 Mbps"), 12.5e6);
}

TEST(Units, FlopsWithPrefixes)
{
    EXPECT_DOUBLE_EQ(parseFlops("989 TFLOP/s"), 9.89e14);
    EXPECT_DOUBLE_EQ(parseFlops("312 TFLOPS"), 3.12e14);
    EXPECT_DOUBLE_EQ(parseFlops("42 GFLOP/s"), 42e9);
    EXPECT_DOUBLE_EQ(parseFlops("1.2 PFLOP/s"), 1.2e15);
    EXPECT_DOUBLE_EQ(parseFlops("5 FLOPS"), 5);
}

TEST(Units, QuantityDispatchesOnKind)
{
    EXPECT_DOUBLE_EQ(parseQuantity(Quantity::Time, "2 ms"), 2e6);
    EXPECT_DOUBLE_EQ(parseQuantity(Quantity::Bytes, "2 KB"), 2e3);
    EXPECT_DOUBLE_EQ(parseQuantity(Quantity::Bandwidth, "8 b/s"), 1);
    EXPECT_DOUBLE_EQ(parseQuantity(Quantity::Flops, "1 kFLOP/s"), 1e3);
}

// The message of a rejected quantity, or "" when it was accepted.
static std::string rejection(Quantity q, const char* text)
{
    try {
        parseQuantity(q, text);
    } catch (const UnitError& e) {
        return e.what();
    }
    return "";
}

TEST(Units, RejectsMalformedStringsWithAReason)
{
    EXPECT_NE(rejection(Quantity::Time, ""), "");
    EXPECT_NE(rejection(Quantity::Time, "fast").find("does not start with a number"), std::string::npos);
    EXPECT_NE(rejection(Quantity::Bytes, "80").find("no unit"), std::string::npos);
    EXPECT_NE(rejection(Quantity::Bytes, "80 GBs").find("unknown size unit 'GBs'"), std::string::npos);
    EXPECT_NE(rejection(Quantity::Bytes, "80 Gb").find("bits"), std::string::npos);
    EXPECT_NE(rejection(Quantity::Bytes, "80 GB/s").find("bandwidth"), std::string::npos);
    EXPECT_NE(rejection(Quantity::Bandwidth, "64 GB").find("add /s"), std::string::npos);
    EXPECT_NE(rejection(Quantity::Bandwidth, "64 furlongs/s"), "");
    EXPECT_NE(rejection(Quantity::Time, "1 parsec").find("unknown time unit"), std::string::npos);
    EXPECT_NE(rejection(Quantity::Flops, "1.5 TFLOP"), "");
    EXPECT_NE(rejection(Quantity::Flops, "1.5 XFLOPS"), "");
    EXPECT_THROW(parseTime("1e300 s"), UnitError);
}

TEST(Units, FormatsReadableSizes)
{
    EXPECT_EQ(formatBytes(80e9), "80 GB");
    EXPECT_EQ(formatBytes(512), "512 B");
    EXPECT_EQ(formatBandwidth(3.35e12), "3.35 TB/s");
}
