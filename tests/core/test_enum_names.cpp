#include "core/scenario/enum_names.h"

#include <gtest/gtest.h>

using namespace coh::core;

template <class E> static void expectRoundTrip(std::size_t expectedCount)
{
    auto names = enumNames<E>();
    EXPECT_EQ(names.size(), expectedCount);
    for (const auto& name : names) {
        auto value = enumFromString<E>(name);
        ASSERT_TRUE(value.has_value()) << name;
        EXPECT_EQ(toString(*value), name);
    }
}

TEST(EnumNames, EveryNameParsesBack)
{
    expectRoundTrip<NodeKind>(6);
    expectRoundTrip<NodeRole>(6);
    expectRoundTrip<Tier>(4);
    expectRoundTrip<LinkKind>(7);
    expectRoundTrip<ArrivalProcess>(3);
    expectRoundTrip<LengthKind>(4);
    expectRoundTrip<TraceFormat>(2);
    expectRoundTrip<WorkloadKind>(2);
    expectRoundTrip<InstanceRole>(2);
    expectRoundTrip<RouterPolicy>(3);
    expectRoundTrip<DecodeAffinity>(2);
}

TEST(EnumNames, SpellingsFromTheScenarioFormat)
{
    EXPECT_EQ(enumFromString<NodeKind>("cpu_socket"), NodeKind::CpuSocket);
    EXPECT_EQ(enumFromString<NodeKind>("cxl_memory"), NodeKind::CxlMemory);
    EXPECT_EQ(enumFromString<LinkKind>("on_chip"), LinkKind::OnChip);
    EXPECT_EQ(enumFromString<LinkKind>("infiniband"), LinkKind::Infiniband);
    EXPECT_EQ(enumFromString<RouterPolicy>("least_loaded"), RouterPolicy::LeastLoaded);
    EXPECT_EQ(enumFromString<RouterPolicy>("cache_aware"), RouterPolicy::CacheAware);
    EXPECT_EQ(enumFromString<DecodeAffinity>("same_node"), DecodeAffinity::SameNode);
    EXPECT_EQ(enumFromString<NodeRole>("both"), NodeRole::Both);
    EXPECT_STREQ(toString(Tier::Hbm), "hbm");
    EXPECT_STREQ(toString(TraceFormat::Mooncake), "mooncake");
}

TEST(EnumNames, MatchIsExact)
{
    EXPECT_FALSE(enumFromString<NodeKind>("GPU").has_value());
    EXPECT_FALSE(enumFromString<NodeKind>("gpu ").has_value());
    EXPECT_FALSE(enumFromString<LinkKind>("nvlink4").has_value());
}
