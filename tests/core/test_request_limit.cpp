// A request limit written into a scenario's JSON (core/scenario/request_limit.h), as the tuner's points and the
// screenshot tour's short runs limit a scenario before it is parsed.
#include "core/scenario/request_limit.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <utility>

namespace coh::core {
namespace {

using nlohmann::json;

TEST(RequestLimit, ATraceTakesMaxRequestsAndASyntheticWorkloadRequests)
{
    json trace = json::parse(R"({"workload": {"type": "trace", "max_requests": 300}})");
    limitScenarioRequests(trace, 20);
    EXPECT_EQ(trace["workload"]["max_requests"], 20);
    EXPECT_FALSE(trace["workload"].contains("requests"));
    // A trace without a count replays all of it: the limit is its count now. A smaller count stays.
    json whole = json::parse(R"({"workload": {"type": "trace"}})");
    limitScenarioRequests(whole, 20);
    EXPECT_EQ(whole["workload"]["max_requests"], 20);
    json small = json::parse(R"({"workload": {"type": "trace", "max_requests": 5}})");
    limitScenarioRequests(small, 20);
    EXPECT_EQ(small["workload"]["max_requests"], 5);
    // A synthetic workload without a count has 100 requests.
    nlohmann::ordered_json synthetic = nlohmann::ordered_json::parse(R"({"workload": {"type": "synthetic"}})");
    limitScenarioRequests(synthetic, 500);
    EXPECT_EQ(synthetic["workload"]["requests"], 100);
    limitScenarioRequests(synthetic, 20);
    EXPECT_EQ(synthetic["workload"]["requests"], 20);
}

TEST(RequestLimit, WhatItCannotLimitIsLeftForTheLoaderToName)
{
    // No limit (0), a count that is no whole number, or no workload object: nothing changes.
    const std::pair<const char*, std::uint64_t> cases[] = {
        {R"({"workload": {"type": "trace", "max_requests": 300}})", 0},
        {R"({"workload": {"type": "trace", "max_requests": "many"}})", 20},
        {R"({"workload": {"type": "synthetic", "requests": -3}})", 20},
        {R"({"workload": 7})", 20},
        {R"({"name": "no workload"})", 20},
        {"[]", 20}};
    for (const auto& [text, limit] : cases) {
        SCOPED_TRACE(text);
        const json before = json::parse(text);
        json after = before;
        limitScenarioRequests(after, limit);
        EXPECT_EQ(after, before);
    }
}

} // namespace
} // namespace coh::core
