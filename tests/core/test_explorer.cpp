// The exhaustive checker: every protocol passes at 3 caches with every transition exercised; planted bugs of each
// kind (SWMR, lost write, protocol error, deadlock) are caught with a shortest trace; the per-block figures
// compose into the product exactly; the state encoding is canonical.
#include "cli_runner.h"
#include "protocol_test_util.h"

#include "core/coherence/explorer.h"
#include "core/coherence/protocol_builders.h"
#include "core/coherence/state_codec.h"

#include <nlohmann/json.hpp>

#include <algorithm>

namespace coh::test {
namespace {

co::ExplorerResult verify(const co::Protocol& p, int caches, int blocks = 1, bool product = false)
{
    co::ExplorerOptions options;
    options.caches = caches;
    options.blocks = blocks;
    options.product = product;
    return co::explore(p, options);
}

// MSI with one directory entry replaced, to plant a bug.
co::Protocol mutateMsi(const std::string& state, const std::string& event, std::vector<co::Action> actions,
                       const std::string& next)
{
    co::Protocol p = co::findProtocol("msi-directory");
    p.name = "msi-mutant";
    co::TableBuilder d(p, p.directory);
    d.replace(state, event, std::move(actions), next, "planted bug");
    p.directory = d.build("I");
    return p;
}

TEST(Explorer, EveryProtocolPassesAtThreeCachesAndExercisesEveryTransition)
{
    for (const char* name : {"msi-directory", "mesi-directory", "moesi-directory"}) {
        const co::ExplorerResult r = verify(co::findProtocol(name), 3);
        SCOPED_TRACE(name);
        EXPECT_TRUE(r.complete);
        EXPECT_EQ(r.violation, co::Violation::None) << r.description;
        EXPECT_GT(r.states, 10000u);
        EXPECT_GT(r.transitions, r.states);
        EXPECT_GE(r.maxInFlight, 5);
        EXPECT_EQ(r.cacheFired, r.cacheDefined);
        EXPECT_EQ(r.directoryFired, r.directoryDefined);
        EXPECT_TRUE(r.unexercised.empty());
    }
}

TEST(Explorer, TwoCacheStateCountsAreStable)
{
    // Regression figures: a change here means the protocol, the interpreter or the canonical encoding changed.
    EXPECT_EQ(verify(co::findProtocol("msi-directory"), 2).states, 1634u);
    EXPECT_EQ(verify(co::findProtocol("mesi-directory"), 2).states, 2144u);
    EXPECT_EQ(verify(co::findProtocol("moesi-directory"), 2).states, 2536u);
}

TEST(Explorer, CatchesTheLostAckAsADeadlock)
{
    // A lost Inv-Ack breaks no safety invariant: the writer just waits forever. P0 reads (3 steps), P1's GetM
    // makes the directory invalidate P0, P0 drops its copy without acking, and P1's data arrives owing one ack.
    const co::ExplorerResult r = verify(co::findProtocol("msi-directory-broken-lostack"), 3);
    ASSERT_EQ(r.violation, co::Violation::Deadlock) << r.description;
    ASSERT_EQ(r.trace.size(), 7u);
    const co::StepRecord& last = r.trace.back();
    EXPECT_EQ(last.toState, "IM^A");
    EXPECT_EQ(last.caches[0].state, "I");
    const auto inv = std::find_if(r.trace.begin(), r.trace.end(),
                                  [](const co::StepRecord& s) { return s.actor == "P0" && s.event == "Inv"; });
    ASSERT_NE(inv, r.trace.end());
    EXPECT_TRUE(inv->sent.empty()); // the planted bug: no Inv-Ack
}

TEST(Explorer, CatchesTheMissingInvalidationWithAShortestTrace)
{
    const co::ExplorerResult r = verify(co::findProtocol("msi-directory-broken-noinv"), 3);
    ASSERT_TRUE(r.violation == co::Violation::Swmr || r.violation == co::Violation::DataValue) << r.description;
    EXPECT_FALSE(r.complete);
    // P0 reads (3 steps), P1 writes: GetM, the buggy grant, the Data that makes P1 a writer beside reader P0.
    ASSERT_EQ(r.trace.size(), 6u);
    EXPECT_EQ(r.trace.front().op, "P0:R");
    const co::StepRecord& last = r.trace.back();
    EXPECT_EQ(last.toState, "M");
    EXPECT_EQ(last.caches[0].state, "S");
    const auto grant = std::find_if(r.trace.begin(), r.trace.end(),
                                    [](const co::StepRecord& s) { return s.actor == "Dir" && s.event == "GetM"; });
    ASSERT_NE(grant, r.trace.end());
    EXPECT_EQ(grant->explanation.rfind("Dir: BUG:", 0), 0u) << grant->explanation;
    EXPECT_TRUE(grant->sent.size() == 1 && grant->sent[0].kind == "Data"); // no Inv
}

TEST(Explorer, CatchesALostWrite)
{
    const co::Protocol p =
        mutateMsi("M", "PutM-Owner",
                  {co::act::clearOwner,
                   co::Action{co::ActionKind::Send,
                              static_cast<std::uint8_t>(co::findProtocol("msi-directory").findMessage("Put-Ack")),
                              co::Target::Requestor}},
                  "I");
    const co::ExplorerResult r = verify(p, 2);
    EXPECT_EQ(r.violation, co::Violation::LostWrite) << r.description;
    // The directory drops the data; the write is lost once the evicting cache lets go of its copy at Put-Ack.
    ASSERT_GE(r.trace.size(), 2u);
    EXPECT_EQ(r.trace[r.trace.size() - 2].event, "PutM-Owner");
    EXPECT_EQ(r.trace.back().event, "Put-Ack");
    EXPECT_EQ(r.trace.back().fromState, "MI^A");
}

TEST(Explorer, CatchesAProtocolError)
{
    // The last PutS leaves the directory in M with no owner; the next GetS has nowhere to forward to.
    const co::Protocol msi = co::findProtocol("msi-directory");
    const co::Protocol p =
        mutateMsi("S", "PutS-Last",
                  {co::act::removeReqFromSharers,
                   co::Action{co::ActionKind::Send, static_cast<std::uint8_t>(msi.findMessage("Put-Ack")),
                              co::Target::Requestor}},
                  "M");
    const co::ExplorerResult r = verify(p, 2);
    EXPECT_EQ(r.violation, co::Violation::ProtocolError);
    EXPECT_NE(r.description.find("no owner"), std::string::npos) << r.description;
}

TEST(Explorer, CatchesADeadlock)
{
    // The directory records the reader but never sends it data: P0 waits in IS^D forever.
    const co::Protocol p = mutateMsi("I", "GetS", {co::act::addReqToSharers}, "S");
    const co::ExplorerResult r = verify(p, 2);
    EXPECT_EQ(r.violation, co::Violation::Deadlock);
    ASSERT_EQ(r.trace.size(), 2u);
    EXPECT_EQ(r.trace.back().caches[0].state, "IS^D");
}

TEST(Explorer, BlocksComposeAsAnExactProduct)
{
    const co::Protocol& p = co::findProtocol("msi-directory");
    const co::ExplorerResult one = verify(p, 1);
    const co::ExplorerResult perBlock = verify(p, 1, 2);
    const co::ExplorerResult product = verify(p, 1, 2, true);
    EXPECT_EQ(perBlock.states, one.states);
    EXPECT_DOUBLE_EQ(perBlock.impliedProductStates, static_cast<double>(one.states * one.states));
    EXPECT_EQ(product.states, one.states * one.states);
    EXPECT_EQ(product.transitions, 2 * one.states * one.transitions);
    EXPECT_EQ(product.violation, co::Violation::None);
}

TEST(Explorer, StopsAtTheStateLimit)
{
    co::ExplorerOptions options;
    options.maxStates = 100;
    const co::ExplorerResult r = co::explore(co::findProtocol("moesi-directory"), options);
    EXPECT_FALSE(r.complete);
    EXPECT_EQ(r.violation, co::Violation::None);
    EXPECT_LT(r.states, 1000u);
}

TEST(Explorer, EncodingIsCanonicalForReorderableMessagesOnly)
{
    const co::Protocol& p = co::findProtocol("msi-directory");
    const auto type = [&](const char* name) { return static_cast<std::uint8_t>(p.findMessage(name)); };
    const co::Message invAck1{type("Inv-Ack"), 1, 0, 0, 0, false, 0};
    const co::Message invAck2{type("Inv-Ack"), 1, 0, 0, 0, false, 0};
    const co::Message data{type("Data"), 1, 0, 0, 0, true, 1};
    const co::Message inv{type("Inv"), co::kDirNode, 0, 1, 0, false, 0};
    const co::Message putAck{type("Put-Ack"), co::kDirNode, 0, 0, 0, false, 0};
    auto encode = [&](std::vector<co::Message> messages) {
        co::BlockSystem s(p, 2);
        s.setMessages(messages.data(), static_cast<int>(messages.size()));
        std::string bytes;
        co::encodeState(s, bytes);
        co::BlockSystem back(p, 2);
        co::decodeState(bytes, 0, back);
        std::string again;
        co::encodeState(back, again);
        EXPECT_EQ(again, bytes); // round trip
        return bytes;
    };
    EXPECT_EQ(encode({invAck1, data, invAck2}), encode({data, invAck2, invAck1})); // response network: unordered
    EXPECT_NE(encode({inv, putAck}), encode({putAck, inv}));                       // forward channel: FIFO
}

TEST(Explorer, CliReportsViolationsWithATraceAndExitsOne)
{
    const CliResult bad = runCohsim("verify --protocol msi-directory-broken-noinv");
    EXPECT_EQ(bad.exitCode, 1);
    EXPECT_NE(bad.output.find("SWMR violated"), std::string::npos) << bad.output;
    EXPECT_NE(bad.output.find("shortest trace (6 steps)"), std::string::npos) << bad.output;

    const CliResult ok = runCohsim("verify --protocol mesi-directory --caches 2 --json", Stderr::Discard);
    ASSERT_EQ(ok.exitCode, 0) << ok.output;
    const auto j = nlohmann::json::parse(ok.output);
    EXPECT_EQ(j.at("result"), "ok");
    EXPECT_EQ(j.at("states"), 2144);
    EXPECT_TRUE(j.at("violation").is_null());

    const CliResult badInput = runCohsim("verify --protocol msi-directory --caches 40");
    EXPECT_EQ(badInput.exitCode, 2);
    EXPECT_NE(badInput.output.find("--caches"), std::string::npos);
}

} // namespace
} // namespace coh::test
