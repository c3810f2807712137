// Requests routed where another run routed them (compare-real --real-routes): each policy choice taken from the
// recorded run while its instance is up and of the role, the scenario's router otherwise; and a whole run on other
// costs that routes every request as the recorded one did, where its own router would not have.
#include "core/scenario/scenario_loader.h"
#include "core/serving/cluster_view.h"
#include "core/serving/replayed_routes.h"
#include "core/serving/serving_engine.h"
#include "core/store/run_serialization.h"
#include "core/workload/workload_builder.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <string>
#include <vector>

namespace coh::core {
namespace {

const std::vector<RequestMetrics> kNoMetrics;

// Prefill instances 0 and 2, decode instances 1 and 3; instance 3 holds the most sequences.
std::vector<InstanceState> fourInstances()
{
    std::vector<InstanceState> instances(4);
    for (std::size_t i = 0; i < instances.size(); ++i)
        instances[i].role = i % 2 == 0 ? InstanceRole::Prefill : InstanceRole::Decode;
    instances[3].assigned = 9;
    return instances;
}

TEST(ReplayedRoutes, TakesTheRecordedInstanceWhileItIsUpAndOfTheRoleElseItsRouter)
{
    auto instances = fourInstances();
    Workload workload;
    workload.requests.resize(5);
    const ClusterView view(instances, workload, kNoMetrics);
    // Request 0 recorded on 2 and 3 (the least-loaded router would take 0 and 1); 1 on a prefill index for decode; 2
    // on an index the scenario does not have; 3 has none; 4 is past the recording.
    ReplayedRoutes routes({{2, 3}, {0, 2}, {7, 99}, {}}, std::make_unique<LeastLoadedPolicy>());
    EXPECT_EQ(routes.pickPrefill(view, 0), 2u);
    EXPECT_EQ(routes.pickDecode(view, 0), 3u);
    EXPECT_EQ(routes.pickPrefill(view, 1), 0u);
    EXPECT_EQ(routes.pickDecode(view, 1), 1u); // 2 is a prefill instance: the router's least loaded
    EXPECT_EQ(routes.pickPrefill(view, 2), 0u);
    EXPECT_EQ(routes.pickDecode(view, 2), 1u);
    EXPECT_EQ(routes.pickDecode(view, 3), 1u);
    EXPECT_EQ(routes.pickDecode(view, 4), 1u);
    EXPECT_EQ(routes.replayed(), 3u);
    EXPECT_EQ(routes.routedAnew(), 5u);
    // The recorded instance down: the router's choice, which routes only to instances that are up.
    instances[3].life = InstanceLife::Failed;
    EXPECT_EQ(routes.pickDecode(view, 0), 1u);
    instances[1].life = InstanceLife::Failed;
    EXPECT_EQ(routes.pickDecode(view, 0), kNoInstance);
}

TEST(ReplayedRoutes, ItsRouterIsAskedEveryTimeSoItsOwnChoicesFollowTheRecordedRuns)
{
    const auto instances = fourInstances();
    Workload workload;
    workload.requests.resize(4);
    const ClusterView view(instances, workload, kNoMetrics);
    // Round robin over decode instances 1 and 3: the recorded run's router gave 1, 3, 1 to the first three requests
    // and would give 3 to the fourth; replayed, it still does.
    ReplayedRoutes routes({{0, 1}, {0, 3}, {0, 1}}, std::make_unique<RoundRobinPolicy>());
    for (std::uint32_t r = 0; r < 3; ++r)
        routes.pickDecode(view, r);
    EXPECT_EQ(routes.pickDecode(view, 3), 3u);
}

TEST(ReplayedRoutes, RoutesOfARunAreEachRequestsInstancesAndNoneForOneGivenUpOrMovedByAFailure)
{
    RunResult run;
    run.requests.resize(3);
    for (std::uint32_t i = 0; i < 3; ++i) {
        run.requests[i].id = i;
        run.requests[i].prefillInstance = i;
        run.requests[i].decodeInstance = 10 + i;
    }
    run.requests[1].failed = true;
    run.requests[2].failureHits = 1;
    const std::vector<RequestRoute> routes = routesOf(run);
    ASSERT_EQ(routes.size(), 3u);
    EXPECT_EQ(routes[0].prefill, 0u);
    EXPECT_EQ(routes[0].decode, 10u);
    EXPECT_EQ(routes[1].decode, kNoInstance);
    EXPECT_EQ(routes[2].prefill, kNoInstance);
}

// The default scenario's first 60 requests, its bandwidth efficiency set to `efficiency`.
Scenario defaultScenario(double efficiency)
{
    const std::string path = std::string(COH_DATASETS_DIR) + "/scenarios/default.json";
    std::ifstream in(path);
    nlohmann::json root = nlohmann::json::parse(in);
    root["workload"]["max_requests"] = 60;
    root["serving"]["bandwidth_efficiency"] = efficiency;
    return parseScenario(root, path);
}

TEST(ReplayedRoutes, ARunOnOtherCostsRoutesEveryRequestAsTheRecordedRunDid)
{
    const Scenario fast = defaultScenario(0.9), slow = defaultScenario(0.3);
    const Workload workload = buildWorkload(fast.workload, fast.seed);
    const RunResult recorded = runScenario(fast, workload);
    const RunResult own = runScenario(slow, workload);
    RunOptions options;
    options.routes = routesOf(recorded);
    const RunResult replayed = runScenario(slow, workload, options);
    ASSERT_EQ(replayed.requests.size(), recorded.requests.size());
    std::size_t ownDiffers = 0;
    for (std::size_t i = 0; i < recorded.requests.size(); ++i) {
        EXPECT_EQ(replayed.requests[i].prefillInstance, recorded.requests[i].prefillInstance) << i;
        EXPECT_EQ(replayed.requests[i].decodeInstance, recorded.requests[i].decodeInstance) << i;
        ownDiffers += own.requests[i].decodeInstance != recorded.requests[i].decodeInstance ? 1 : 0;
    }
    // On its own times, the slower run's least-loaded router sent some requests elsewhere: the replay is what kept
    // them where they were.
    EXPECT_GT(ownDiffers, 0u);
    EXPECT_TRUE(replayed.summary.replayedRoutes.on);
    EXPECT_EQ(replayed.summary.replayedRoutes.replayed, 2 * recorded.requests.size());
    EXPECT_EQ(replayed.summary.replayedRoutes.routedAnew, 0u);
    EXPECT_FALSE(own.summary.replayedRoutes.on);
    // Its costs are still its own: the same routes, later tokens.
    EXPECT_GT(replayed.summary.tpotMs.p50, recorded.summary.tpotMs.p50);
    // An empty recording replays nothing, and the run says every decision was its router's.
    options.routes = std::vector<RequestRoute>{};
    const RunResult none = runScenario(slow, workload, options);
    EXPECT_TRUE(none.summary.replayedRoutes.on);
    EXPECT_EQ(none.summary.replayedRoutes.replayed, 0u);
    EXPECT_EQ(none.summary.replayedRoutes.routedAnew, 2 * recorded.requests.size());
}

TEST(ReplayedRoutes, TheCountsAreKeptWithTheRunAndAHandEditOfThemReadsAsNoReplay)
{
    RunSummary s;
    s.replayedRoutes = {true, 98, 2};
    const RunSummary back = summaryFromJson(toJson(s));
    EXPECT_TRUE(back.replayedRoutes.on);
    EXPECT_EQ(back.replayedRoutes.replayed, 98u);
    EXPECT_EQ(back.replayedRoutes.routedAnew, 2u);
    EXPECT_EQ(back.replayedRoutes.decisions(), 100u);
    EXPECT_FALSE(summaryFromJson(toJson(RunSummary{})).replayedRoutes.on);
    for (const nlohmann::ordered_json& hostile :
         {nlohmann::ordered_json(-5), nlohmann::ordered_json(~std::uint64_t{0}), nlohmann::ordered_json(1.5),
          nlohmann::ordered_json("98"), nlohmann::ordered_json(nullptr)}) {
        auto j = toJson(s);
        j["replayed_routes"]["replayed"] = hostile;
        EXPECT_FALSE(summaryFromJson(j).replayedRoutes.on) << hostile.dump();
    }
    auto notAnObject = toJson(s);
    notAnObject["replayed_routes"] = 7;
    EXPECT_FALSE(summaryFromJson(notAnObject).replayedRoutes.on);
}

TEST(ReplayedRoutes, EveryViewSaysTheCountsInOneSentence)
{
    EXPECT_EQ(describeReplayedRoutes({true, 24, 0}), "24 of 24 routing decisions as the real run made them");
    EXPECT_EQ(describeReplayedRoutes({true, 98, 2}),
              "98 of 100 routing decisions as the real run made them, 2 by the scenario's router (requests the real "
              "run gave up or a failure moved, or whose instance was down)");
}

} // namespace
} // namespace coh::core
