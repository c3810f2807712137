// A real backend splits a model's heads over a tensor-parallel group as a real engine does, evenly; a group the heads
// do not split over is refused at its field, since each node would get the floor of its share and the rest of the
// heads would be in no transfer and no step.
#include "core/base/input_error.h"
#include "core/real/backend.h"
#include "engine_fixtures.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

namespace coh::test {
namespace {

Scenario withDecodeGroup(std::size_t nodes)
{
    Scenario s = twoGpuScenario();
    s.sourcePath = "s.json";
    s.model.heads = 32;
    s.model.kvHeads = 8;
    s.serving.instances = {{"prefill0", InstanceRole::Prefill, {"p0"}, 0, 0}};
    InstanceSpec decode{"decode0", InstanceRole::Decode, {}, 0, 0};
    for (std::size_t i = 0; i < nodes; ++i) {
        const std::string id = fmt::format("d{}", i); // "d" + to_string trips GCC 12's -Wrestrict here
        if (i > 0) {
            s.topology.nodes.push_back(servingNode(id, NodeRole::Decode));
            s.topology.links.push_back(link("p0", id, kMicrosecond, 1e9));
        }
        decode.nodes.push_back(id);
    }
    s.serving.instances.push_back(decode);
    return s;
}

TEST(RealTensorParallel, AGroupTheHeadsDoNotSplitOverIsRefusedNamingTheSizesThatDo)
{
    BackendOptions backend;
    backend.name = "real-cpu";
    for (const std::size_t even : {1u, 2u, 4u, 8u, 16u})
        EXPECT_NO_THROW(checkBackendRuns(backend, withDecodeGroup(even))) << even;
    try {
        checkBackendRuns(backend, withDecodeGroup(3));
        FAIL() << "three nodes took 8 KV heads";
    } catch (const InputError& e) {
        ASSERT_EQ(e.problems().size(), 1u);
        const auto& p = e.problems()[0];
        EXPECT_EQ(p.file, "s.json");
        EXPECT_EQ(p.field, "/serving/instances/1/nodes");
        EXPECT_NE(p.message.find("3 nodes cannot split tiny's 32 query heads and 8 KV heads evenly"), std::string::npos)
            << p.message;
        EXPECT_NE(p.message.find("give each node 2 KV heads and carry none of the other 2"), std::string::npos)
            << p.message;
        EXPECT_NE(p.fix.find("give the instance 1, 2, 4, 8 or 16 nodes"), std::string::npos) << p.fix;
    }
    // The simulator shares the heads' bytes out as fractions: it takes the group.
    backend.name = "simulated";
    EXPECT_NO_THROW(checkBackendRuns(backend, withDecodeGroup(3)));
}

} // namespace
} // namespace coh::test
