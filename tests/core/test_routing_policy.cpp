// The routing policies through the read-only cluster view: their choices for given loads, ties, instances that
// are down, and the view's figures themselves.
#include "core/serving/cluster_view.h"
#include "core/serving/routing_policy.h"

#include <gtest/gtest.h>

#include <vector>

namespace coh::core {
namespace {

const std::vector<RequestMetrics> kNoMetrics;

InstanceState instance(InstanceRole role)
{
    InstanceState inst;
    inst.role = role;
    return inst;
}

// Prefill instances 0, 2, 4 and decode instances 1, 3, 5, interleaved so a policy must use the view's role lists.
std::vector<InstanceState> sixInstances()
{
    std::vector<InstanceState> instances;
    for (int i = 0; i < 6; ++i)
        instances.push_back(instance(i % 2 == 0 ? InstanceRole::Prefill : InstanceRole::Decode));
    return instances;
}

TEST(ClusterView, ListsInstancesByRoleAndReadsTheirState)
{
    auto instances = sixInstances();
    instances[2].queuedTokens = 300;
    instances[2].batchTokens = 40;
    instances[3].assigned = 7;
    instances[3].kvBlocksTotal = 100;
    instances[3].kvBlocksFree = 25;
    instances[5].life = InstanceLife::Failed;
    Workload workload;
    workload.prefixHashes = {11, 12, 13, 21, 22};
    workload.requests = {{0, 1024, 1, 0, 3}, {0, 1024, 1, 3, 2}, {0, 10, 1, 0, 0}};
    const ClusterView view(instances, workload, kNoMetrics);
    EXPECT_EQ(view.prefillInstances(), (std::vector<std::uint32_t>{0, 2, 4}));
    EXPECT_EQ(view.decodeInstances(), (std::vector<std::uint32_t>{1, 3, 5}));
    EXPECT_EQ(view.promptTokensQueued(2), 340u); // waiting + in the running batch
    EXPECT_EQ(view.load(3), 7u);
    EXPECT_EQ(view.kvBlocksTotal(3), 100u);
    EXPECT_EQ(view.kvBlocksFree(3), 25u);
    EXPECT_TRUE(view.isUp(3));
    EXPECT_FALSE(view.isUp(5));
    EXPECT_EQ(std::vector<std::uint32_t>(view.prefixBlocks(1).begin(), view.prefixBlocks(1).end()),
              (std::vector<std::uint32_t>{21, 22}));
    EXPECT_TRUE(view.prefixBlocks(2).empty());
    // The view reads the live state: a change shows without rebuilding it.
    instances[3].kvBlocksFree = 24;
    EXPECT_EQ(view.kvBlocksFree(3), 24u);
}

TEST(ClusterView, CountsThePromptPrefixAnInstanceHolds)
{
    auto instances = sixInstances();
    Workload workload;
    // Chained block hashes, as Mooncake writes them: 0 and 1 open both prompts of requests 0 and 1; request 2
    // shares only block 0; request 3 names no blocks.
    workload.prefixHashes = {0, 1, 2, 0, 1, 3, 4, 0, 5};
    workload.requests = {{0, 1536, 1, 0, 3}, {0, 2048, 1, 3, 4}, {0, 1024, 1, 7, 2}, {0, 10, 1, 0, 0}};
    const ClusterView view(instances, workload, kNoMetrics);
    EXPECT_EQ(view.heldPrefixBlocks(1, 1), 0u); // holds nothing
    instances[1].held = {0};
    EXPECT_EQ(view.heldPrefixBlocks(1, 1), 2u); // 0, 1 of request 1's 0, 1, 3, 4
    EXPECT_EQ(view.heldPrefixBlocks(1, 2), 1u);
    EXPECT_EQ(view.heldPrefixBlocks(1, 3), 0u);
    EXPECT_EQ(view.heldPrefixBlocks(3, 1), 0u); // another instance
    instances[1].held = {2, 1};
    EXPECT_EQ(view.heldPrefixBlocks(1, 0), 2u); // the longest shared prefix of the held sequences
    EXPECT_EQ(view.heldPrefixBlocks(1, 1), 4u);
}

TEST(RoutingPolicy, RoundRobinCyclesEachRoleOnItsOwn)
{
    const auto instances = sixInstances();
    const Workload workload;
    const ClusterView view(instances, workload, kNoMetrics);
    RoundRobinPolicy policy;
    std::vector<std::uint32_t> prefill, decode;
    for (int i = 0; i < 4; ++i)
        prefill.push_back(policy.pickPrefill(view, 0));
    for (int i = 0; i < 2; ++i)
        decode.push_back(policy.pickDecode(view, 0));
    EXPECT_EQ(prefill, (std::vector<std::uint32_t>{0, 2, 4, 0}));
    EXPECT_EQ(decode, (std::vector<std::uint32_t>{1, 3})); // the decode cursor did not move with prefill's
}

TEST(RoutingPolicy, RoundRobinSkipsInstancesThatAreDown)
{
    auto instances = sixInstances();
    const Workload workload;
    const ClusterView view(instances, workload, kNoMetrics);
    RoundRobinPolicy policy;
    EXPECT_EQ(policy.pickPrefill(view, 0), 0u);
    instances[2].life = InstanceLife::Failed;
    EXPECT_EQ(policy.pickPrefill(view, 0), 4u);
    EXPECT_EQ(policy.pickPrefill(view, 0), 0u);
    instances[2].life = InstanceLife::Up;
    EXPECT_EQ(policy.pickPrefill(view, 0), 2u);
    for (auto d : {1, 3, 5})
        instances[d].life = InstanceLife::Failed;
    EXPECT_EQ(policy.pickDecode(view, 0), kNoInstance);
}

TEST(RoutingPolicy, LeastLoadedPrefillCountsQueuedAndRunningPromptTokens)
{
    auto instances = sixInstances();
    instances[0].queuedTokens = 500;
    instances[2].queuedTokens = 100;
    instances[2].batchTokens = 450; // 550 in all: more than instance 0 although its queue is shorter
    instances[4].queuedTokens = 600;
    const Workload workload;
    const ClusterView view(instances, workload, kNoMetrics);
    LeastLoadedPolicy policy;
    EXPECT_EQ(policy.pickPrefill(view, 0), 0u);
    instances[4].queuedTokens = 499;
    EXPECT_EQ(policy.pickPrefill(view, 0), 4u);
    instances[4].life = InstanceLife::Failed;
    EXPECT_EQ(policy.pickPrefill(view, 0), 0u);
}

TEST(RoutingPolicy, LeastLoadedDecodeCountsSequencesAndBreaksTiesByOrder)
{
    auto instances = sixInstances();
    instances[1].assigned = 3;
    instances[3].assigned = 2;
    instances[5].assigned = 2;
    const Workload workload;
    const ClusterView view(instances, workload, kNoMetrics);
    LeastLoadedPolicy policy;
    EXPECT_EQ(policy.pickDecode(view, 0), 3u); // 3 and 5 tie at 2: the first wins
    instances[3].life = InstanceLife::Failed;
    EXPECT_EQ(policy.pickDecode(view, 0), 5u);
    instances[5].life = InstanceLife::Failed;
    EXPECT_EQ(policy.pickDecode(view, 0), 1u); // the only one up, however loaded
    instances[1].life = InstanceLife::Failed;
    EXPECT_EQ(policy.pickDecode(view, 0), kNoInstance);
}

TEST(RoutingPolicy, TheScenarioNamesItsPolicy)
{
    const auto make = [](RouterPolicy policy, DecodeAffinity affinity = DecodeAffinity::Router) {
        return makeRoutingPolicy(RouterSpec{policy}, affinity);
    };
    EXPECT_NE(dynamic_cast<RoundRobinPolicy*>(make(RouterPolicy::RoundRobin).get()), nullptr);
    EXPECT_NE(dynamic_cast<LeastLoadedPolicy*>(make(RouterPolicy::LeastLoaded).get()), nullptr);
    EXPECT_NE(dynamic_cast<CacheAwarePolicy*>(make(RouterPolicy::CacheAware).get()), nullptr);
    EXPECT_NE(dynamic_cast<SameNodeDecode*>(make(RouterPolicy::LeastLoaded, DecodeAffinity::SameNode).get()), nullptr);
}

} // namespace
} // namespace coh::core
