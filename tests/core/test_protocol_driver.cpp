// ProtocolDriver on its own: N participants exchanging one block over a real FlowNetwork, every flow coming back
// to the endpoint that sent it, the messages the table prescribes and nothing else.
#include "core/coherence/invariants.h"
#include "core/coherence/protocol_registry.h"
#include "core/engine/protocol_driver.h"
#include "core/net/flow_network.h"
#include "engine_fixtures.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <vector>

namespace coh::test {
namespace {

namespace co = coh::core::coherence;

// Three caches on nodes c0..c2 and the home on node h, each 1 us from a switch.
Topology star()
{
    Topology t;
    t.nodes = {servingNode("c0", NodeRole::Prefill), servingNode("c1", NodeRole::Decode),
               servingNode("c2", NodeRole::Decode), servingNode("h", NodeRole::None), servingNode("s", NodeRole::None)};
    for (const char* n : {"c0", "c1", "c2", "h"})
        t.links.push_back(link(n, "s", kMicrosecond, 10e9));
    return t;
}

// A client of one interpreted block standing for `weight` blocks, as CoherentKv's groups do.
struct OneBlock : FlowEndpoint {
    using Key = int;
    using Ref = int;
    enum : std::uint32_t { Wake, Deliver };
    static constexpr double kBlockBytes = 4096, kControlBytes = 64;

    Topology topo = star();
    Simulator sim;
    Routing routing{topo};
    FlowNetwork net{topo, routing, sim, Wake, Deliver, kSecond};
    co::BlockSystem system;
    DriverBlock<3> block;
    Participants who;
    std::uint32_t blocks;
    ProtocolDriver<OneBlock> driver;
    std::vector<std::pair<std::uint8_t, co::ProcessorOp>> done; // ops in the order they completed
    int arrivals = 0;

    OneBlock(const co::Protocol& protocol, std::uint32_t weight)
        : system(protocol, 3)
        , blocks(weight)
        , driver(*this, protocol, net, 3, DriverCosts{kBlockBytes, kControlBytes, 0})
    {
        who.cacheNodes = {0, 1, 2};
        who.home = 3;
    }

    // ProtocolDriver's client.
    static Ref resolve(Key key) { return key; }
    DriverBlock<3>& driverBlock(Ref) { return block; }
    const co::BlockSystem& shape(Ref) const { return system; }
    co::CheckedStep issue(Ref, std::uint8_t cache, co::ProcessorOp op)
    {
        return {system.issue(cache, op, system.nextVersion())};
    }
    co::CheckedStep deliverOne(Ref) { return {block.arrivals.deliverOne(system)}; }
    std::uint32_t weight(Ref) const { return blocks; }
    const Participants& participants(Ref) const { return who; }
    FlowEndpoint& endpoint() { return *this; }
    static std::uint64_t flowTag(Key, std::uint16_t tag) { return tag; }
    static Gate gate(Ref, std::uint8_t, const DriverOp&) { return Gate::Go; }
    static void onIssued(Ref, std::uint8_t, const DriverOp&) {}
    void onStep(Key, Ref, const co::CheckedStep& step) const
    {
        if (const auto v = co::checkAfterStep(system, step.result); v != co::Violation::None)
            throw std::runtime_error(co::describeViolation(v, system, &step.result));
    }
    static bool mayComplete(Key, Ref, std::uint8_t, const DriverOp&, const co::StepResult&) { return true; }
    static bool mayCompleteHeld(Key, Ref, std::uint8_t) { return true; }
    void onOpDone(Key, std::uint8_t cache, const DriverOp& op, const co::StepResult*)
    {
        done.emplace_back(cache, op.op);
    }

    void onFlowDelivered(const FlowInfo& flow) override
    {
        ++arrivals;
        EXPECT_GE(driver.arrive(0, static_cast<std::uint16_t>(flow.tag)), 0);
        driver.pump(0);
    }
    void operator()(const Event& ev) { ev.kind == Wake ? net.onWake(ev) : net.onDeliver(ev); }
    void run() { sim.run(*this); }

    std::uint64_t messages() const
    {
        const auto& k = driver.kinds();
        return std::accumulate(k.begin(), k.end(), std::uint64_t{0},
                               [](std::uint64_t n, const MessageKindStats& s) { return n + s.count; });
    }
    std::string state(int cache) const { return system.protocol().cache.states[system.line(cache).state].name; }
};

// MSI (Nagarajan et al., the primer's directory protocol) with three caches, one op at a time:
//   P0 store from I: GetM, Data from memory                                          2 messages
//   P1 load, P0 owns: GetS, Fwd-GetS, Data to P1 and to the home                     4 messages
//   P2 store, P0 and P1 share: GetM, Data with ack count 2, Inv to P0 and P1, 2 Inv-Acks  6 messages
TEST(ProtocolDriver, ThreeCachesExchangeABlockUnderMsiWithThePrimersMessages)
{
    OneBlock b(co::findProtocol("msi-directory"), 1);
    b.driver.request(0, 0, DriverOp{co::ProcessorOp::Store});
    b.run();
    EXPECT_EQ(b.messages(), 2u);
    EXPECT_EQ(b.state(0), "M");
    b.driver.request(0, 1, DriverOp{co::ProcessorOp::Load});
    b.run();
    EXPECT_EQ(b.messages(), 6u);
    EXPECT_EQ(b.state(0), "S");
    EXPECT_EQ(b.state(1), "S");
    b.driver.request(0, 2, DriverOp{co::ProcessorOp::Store});
    b.run();
    EXPECT_EQ(b.messages(), 12u);
    EXPECT_EQ(b.arrivals, 12); // every flow came back to this endpoint
    EXPECT_EQ(b.state(0), "I");
    EXPECT_EQ(b.state(1), "I");
    EXPECT_EQ(b.state(2), "M");
    EXPECT_EQ(b.system.directory().owner, 2);
    EXPECT_TRUE(b.system.quiescent());
    EXPECT_EQ(b.system.latest(), 2);
    const std::vector<std::pair<std::uint8_t, co::ProcessorOp>> order = {
        {0, co::ProcessorOp::Store}, {1, co::ProcessorOp::Load}, {2, co::ProcessorOp::Store}};
    EXPECT_EQ(b.done, order);
    // Data crossed links four times: home -> P0, P0 -> P1 and P0 -> home, home -> P2.
    EXPECT_EQ(b.driver.transfers(), 4u);
    EXPECT_DOUBLE_EQ(b.driver.crossBytes(), 4 * OneBlock::kBlockBytes);
    EXPECT_EQ(b.driver.upgrades(), 0u);
}

// A block standing for many (a group) counts and weighs each message once per block it stands for.
TEST(ProtocolDriver, AGroupsMessagesCountAndWeighOncePerBlock)
{
    OneBlock b(co::findProtocol("msi-directory"), 5);
    b.driver.request(0, 0, DriverOp{co::ProcessorOp::Store});
    b.run();
    EXPECT_EQ(b.messages(), 2u * 5);
    EXPECT_EQ(b.arrivals, 2); // still one flow per message
    EXPECT_EQ(b.driver.transfers(), 5u);
    EXPECT_DOUBLE_EQ(b.driver.crossBytes(), 5 * OneBlock::kBlockBytes);
}

// Ops of one participant run in order, each once the one before it is done; ops of different participants race
// through the home, and the table serializes them: both stores land, one copy ends writable.
TEST(ProtocolDriver, QueuedOpsRunInOrderAndRacingStoresSerializeAtTheHome)
{
    OneBlock b(co::findProtocol("msi-directory"), 1);
    b.driver.enqueue(0, 0, DriverOp{co::ProcessorOp::Store});
    b.driver.enqueue(0, 0, DriverOp{co::ProcessorOp::Load});
    b.driver.enqueue(0, 1, DriverOp{co::ProcessorOp::Store});
    b.driver.pump(0);
    b.run();
    ASSERT_EQ(b.done.size(), 3u);
    const auto at0 = std::find(b.done.begin(), b.done.end(), std::make_pair(std::uint8_t{0}, co::ProcessorOp::Store));
    const auto load0 = std::find(b.done.begin(), b.done.end(), std::make_pair(std::uint8_t{0}, co::ProcessorOp::Load));
    EXPECT_LT(at0, load0); // P0's store before P0's load
    EXPECT_EQ(b.system.latest(), 2);
    EXPECT_TRUE(b.system.quiescent());
    EXPECT_TRUE(b.driver.idle(b.block));
}

} // namespace
} // namespace coh::test
