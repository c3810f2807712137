// The Primer's MSI directory protocol, transaction by transaction: the textbook message sequences and states,
// plus the races the transient states exist for, driven step by step through BlockSystem.
#include "protocol_test_util.h"

#include "core/coherence/block_system.h"
#include "core/coherence/invariants.h"

namespace coh::test {
namespace {

using Strings = std::vector<std::string>;

TEST(ProtocolMsi, ReadMissFromIGetsDataFromMemory)
{
    const co::LabRun run = runOps("msi-directory", 3, "P0:R");
    const auto steps = opSteps(run, 0);
    EXPECT_EQ(sentBy(steps), (Strings{"GetS P0->Dir", "Data Dir->P0"}));
    const co::StepRecord& last = steps.back();
    EXPECT_EQ(cacheState(last, 0), "S");
    EXPECT_EQ(last.directory.state, "S");
    EXPECT_EQ(last.directory.sharers, (Strings{"P0"}));
    EXPECT_EQ(last.directory.owner, "");
    ASSERT_TRUE(last.loaded.has_value());
    EXPECT_EQ(*last.loaded, 0);
}

TEST(ProtocolMsi, WriteWhileAnotherSharesInvalidatesItWithOneAck)
{
    const co::LabRun run = runOps("msi-directory", 3, "P0:R,P1:W");
    const auto steps = opSteps(run, 1);
    EXPECT_EQ(sentBy(steps), (Strings{"GetM P1->Dir", "Data Dir->P1 acks=1", "Inv Dir->P0", "Inv-Ack P0->P1"}));
    const co::StepRecord& last = steps.back();
    EXPECT_EQ(cacheState(last, 0), "I");
    EXPECT_EQ(cacheState(last, 1), "M");
    EXPECT_EQ(last.directory.state, "M");
    EXPECT_EQ(last.directory.owner, "P1");
    EXPECT_TRUE(last.directory.sharers.empty());
    EXPECT_EQ(*last.stored, 1);
}

TEST(ProtocolMsi, ReadOfAModifiedBlockIsForwardedToTheOwner)
{
    const co::LabRun run = runOps("msi-directory", 3, "P1:W,P2:R");
    const auto steps = opSteps(run, 1);
    EXPECT_EQ(sentBy(steps), (Strings{"GetS P2->Dir", "Fwd-GetS Dir->P1", "Data P1->P2", "Data P1->Dir"}));
    EXPECT_EQ(directoryStates(steps), (Strings{"M", "S^D", "S"}));
    const co::StepRecord& last = steps.back();
    EXPECT_EQ(cacheState(last, 1), "S");
    EXPECT_EQ(cacheState(last, 2), "S");
    EXPECT_EQ(last.directory.sharers, (Strings{"P1", "P2"}));
    EXPECT_EQ(last.directory.memory, 1); // the owner's write-back reached memory
    EXPECT_EQ(*steps[3].loaded, 1);      // P2 read the value P1 wrote
}

TEST(ProtocolMsi, EvictingAModifiedBlockWritesItBack)
{
    const co::LabRun run = runOps("msi-directory", 2, "P0:W,P0:E");
    const auto steps = opSteps(run, 1);
    EXPECT_EQ(sentBy(steps), (Strings{"PutM P0->Dir", "Put-Ack Dir->P0"}));
    ASSERT_TRUE(steps[0].sent[0].data.has_value());
    EXPECT_EQ(*steps[0].sent[0].data, 1);
    const co::StepRecord& last = steps.back();
    EXPECT_EQ(cacheState(last, 0), "I");
    EXPECT_EQ(last.directory.state, "I");
    EXPECT_EQ(last.directory.memory, 1);
}

// Drives a block by hand: the lab always delivers oldest first, these tests pick the racy order.
class MsiRaces : public ::testing::Test {
  protected:
    co::BlockSystem m_system{co::findProtocol("msi-directory"), 2};

    int find(const std::string& kind, std::uint8_t dst) const
    {
        const co::Protocol& p = m_system.protocol();
        for (int i = 0; i < m_system.messageCount(); ++i)
            if (p.messages[m_system.message(i).type].name == kind && m_system.message(i).dst == dst)
                return i;
        return -1;
    }
    co::StepResult deliver(const std::string& kind, std::uint8_t dst)
    {
        const int i = find(kind, dst);
        EXPECT_GE(i, 0) << kind;
        return m_system.deliver(i, 7);
    }
    std::string state(int cache) const { return m_system.protocol().cache.states[m_system.line(cache).state].name; }
};

TEST_F(MsiRaces, InvAckBeforeDataIsCountedNegative)
{
    m_system.issue(0, co::ProcessorOp::Load, 0);
    deliver("GetS", co::kDirNode);
    deliver("Data", 0);
    m_system.issue(1, co::ProcessorOp::Store, 0);
    deliver("GetM", co::kDirNode); // Data(acks=1) to P1 and Inv to P0 are now both in flight
    deliver("Inv", 0);
    const co::StepResult early = deliver("Inv-Ack", 1);
    EXPECT_EQ(early.status, co::StepStatus::Done);
    EXPECT_EQ(state(1), "IM^AD");
    EXPECT_EQ(m_system.line(1).acks, -1);
    const co::StepResult data = deliver("Data", 1);
    EXPECT_TRUE(data.stored);
    EXPECT_EQ(state(1), "M");
    EXPECT_EQ(m_system.line(1).acks, 0);
    EXPECT_EQ(co::checkState(m_system), co::Violation::None);
}

TEST_F(MsiRaces, InvThatOvertakesTheDataStallsInISD)
{
    m_system.issue(0, co::ProcessorOp::Load, 0);
    deliver("GetS", co::kDirNode); // Data to P0 in flight
    m_system.issue(1, co::ProcessorOp::Store, 0);
    deliver("GetM", co::kDirNode); // Inv to P0 in flight too
    const co::StepResult stalled = deliver("Inv", 0);
    EXPECT_EQ(stalled.status, co::StepStatus::Stalled);
    EXPECT_EQ(state(0), "IS^D");
    EXPECT_GE(find("Inv", 0), 0); // still waiting in the network
    deliver("Data", 0);
    EXPECT_EQ(state(0), "S");
    EXPECT_EQ(deliver("Inv", 0).status, co::StepStatus::Done);
    EXPECT_EQ(state(0), "I");
}

TEST_F(MsiRaces, ForwardNetworkIsPointToPointOrderedOthersAreNot)
{
    const co::Protocol& p = m_system.protocol();
    const auto type = [&](const char* name) { return static_cast<std::uint8_t>(p.findMessage(name)); };
    const co::Message messages[] = {
        {type("Inv"), co::kDirNode, 0, 1, 0, false, 0},
        {type("Put-Ack"), co::kDirNode, 0, 0, 0, false, 0},
        {type("Inv-Ack"), 1, 0, 0, 0, false, 0},
        {type("Data"), co::kDirNode, 0, 0, 0, true, 0},
    };
    m_system.setMessages(messages, 4);
    EXPECT_TRUE(m_system.deliverable(0));
    EXPECT_FALSE(m_system.deliverable(1)); // behind the Inv on the same forward channel
    EXPECT_TRUE(m_system.deliverable(2));
    EXPECT_TRUE(m_system.deliverable(3));
}

TEST_F(MsiRaces, AnUnexpectedMessageIsAProtocolErrorNamingStateAndEvent)
{
    const co::Message stray{
        static_cast<std::uint8_t>(m_system.protocol().findMessage("Put-Ack")), co::kDirNode, 0, 0, 0, false, 0};
    m_system.setMessages(&stray, 1);
    const co::StepResult result = m_system.deliver(0, 0);
    EXPECT_EQ(result.status, co::StepStatus::Undefined);
    EXPECT_EQ(co::checkStep(result), co::Violation::ProtocolError);
    EXPECT_EQ(co::describeViolation(co::Violation::ProtocolError, m_system, &result),
              "protocol error: P0 in state I has no transition for Put-Ack");
    EXPECT_EQ(m_system.messageCount(), 1); // nothing changed
}

} // namespace
} // namespace coh::test
