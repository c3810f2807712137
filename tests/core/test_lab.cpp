// The teaching lab: op parsing and its errors, the default tour on every protocol, versions written by stores,
// explanations with names filled in, the documented JSON shape, and the CLI end to end.
#include "cli_runner.h"
#include "protocol_test_util.h"

#include "core/base/input_error.h"

#include <nlohmann/json.hpp>

namespace coh::test {
namespace {

TEST(Lab, ParsesOpsWithSpacesAndLowerCase)
{
    const auto ops = co::parseLabOps("P0:R, p1:w ,P2:E", 3);
    ASSERT_EQ(ops.size(), 3u);
    EXPECT_EQ(ops[0].cache, 0);
    EXPECT_EQ(ops[0].op, co::ProcessorOp::Load);
    EXPECT_EQ(ops[1].cache, 1);
    EXPECT_EQ(ops[1].op, co::ProcessorOp::Store);
    EXPECT_EQ(ops[2].op, co::ProcessorOp::Evict);
}

TEST(Lab, BadOpsNameTheItemAndTheFix)
{
    try {
        co::parseLabOps("P0:R,P7:R,P0:X,R0", 3);
        FAIL() << "no error";
    } catch (const core::InputError& e) {
        const auto& problems = e.problems();
        ASSERT_EQ(problems.size(), 3u);
        EXPECT_EQ(problems[0].field, "--ops item 2 (\"P7:R\")");
        EXPECT_NE(problems[0].message.find("P0..P2"), std::string::npos);
        EXPECT_EQ(problems[0].fix, "use P0..P2 or raise --caches");
        EXPECT_EQ(problems[1].field, "--ops item 3 (\"P0:X\")");
        EXPECT_EQ(problems[1].fix, "use R (load), W (store) or E (evict)");
        EXPECT_EQ(problems[2].field, "--ops item 4 (\"R0\")");
        EXPECT_NE(problems[2].fix.find("P<cache>:<R|W|E>"), std::string::npos);
    }
}

TEST(Lab, DefaultTourCompletesOnEveryCorrectProtocol)
{
    EXPECT_EQ(co::defaultLabOps(1), "P0:R,P0:W,P0:R,P0:R,P0:W,P0:R,P0:E,P0:E");
    for (const co::Protocol& p : co::allProtocols()) {
        if (p.bugHunt)
            continue;
        for (int caches : {1, 3, 5}) {
            const std::string ops = co::defaultLabOps(caches);
            const co::LabRun run = co::runLab(p, caches, co::parseLabOps(ops, caches), ops);
            EXPECT_EQ(run.error, "") << p.name << " " << caches;
            // The tour ends with everything evicted; a snooping bus cannot tell I from S (shared copies leave
            // silently), so it says IorS, and a sealed block stays sealed at its master, with the replicas of
            // readers that did not evict (nothing invalidates them) still leased. Lazy-causal likewise keeps such
            // replicas (V), and its home's V means no writer.
            const std::string dir = run.steps.back().directory.state;
            EXPECT_TRUE(dir == "I" || (p.name == "mesi-snooping" && dir == "IorS") ||
                        (p.name == "sealed-lease" && dir == "Sealed") || (p.name == "lazy-causal" && dir == "V"))
                << p.name << " " << dir;
            for (const auto& line : run.steps.back().caches)
                EXPECT_TRUE(line.state == "I" || (p.name == "sealed-lease" && line.state == "R") ||
                            (p.name == "lazy-causal" && line.state == "V"))
                    << p.name;
        }
    }
}

TEST(Lab, StoresWriteVersionsAndLoadsReturnTheLatest)
{
    const co::LabRun run = runOps("msi-directory", 2, "P0:W,P1:W,P0:R");
    std::vector<int> stored, loaded;
    for (const co::StepRecord& s : run.steps) {
        if (s.stored)
            stored.push_back(*s.stored);
        if (s.loaded)
            loaded.push_back(*s.loaded);
    }
    EXPECT_EQ(stored, (std::vector<int>{1, 2}));
    EXPECT_EQ(loaded, (std::vector<int>{2}));
}

TEST(Lab, ExplanationsFillInTheNodes)
{
    const co::LabRun run = runOps("msi-directory", 3, "P1:W,P2:R");
    const auto steps = opSteps(run, 1);
    EXPECT_EQ(steps[1].explanation, "Dir: P2 asks to read a block P1 holds in M, so the directory forwards the request "
                                    "to the owner P1 and records both as sharers");
    EXPECT_EQ(steps[0].explanation, "P2 has no copy, so it asks the directory for a readable copy (GetS)");
}

TEST(Lab, BrokenProtocolStopsAtTheSwmrViolation)
{
    const co::Protocol& p = co::findProtocol("msi-directory-broken-noinv");
    const co::LabRun run = co::runLab(p, 2, co::parseLabOps("P0:R,P1:W,P0:R", 2), "P0:R,P1:W,P0:R");
    EXPECT_EQ(run.violation, co::Violation::Swmr);
    EXPECT_EQ(run.error, "SWMR violated: P1 (M) may write while P0 (S) may also access the block");
    EXPECT_EQ(run.steps.back().toState, "M");
}

TEST(Lab, JsonHasTheDocumentedShape)
{
    const nlohmann::ordered_json j = co::labToJson(runOps("msi-directory", 2, "P0:R"));
    EXPECT_EQ(j.at("protocol"), "msi-directory");
    EXPECT_EQ(j.at("caches"), 2);
    EXPECT_TRUE(j.at("error").is_null());
    const auto& steps = j.at("steps");
    ASSERT_EQ(steps.size(), 3u);
    const auto& issue = steps[0];
    EXPECT_EQ(issue.at("index"), 1);
    EXPECT_EQ(issue.at("op"), "P0:R");
    EXPECT_FALSE(issue.contains("message"));
    EXPECT_EQ(issue.at("actor"), "P0");
    EXPECT_EQ(issue.at("from_state"), "I");
    EXPECT_EQ(issue.at("to_state"), "IS^D");
    EXPECT_EQ(issue.at("messages_sent")[0].at("kind"), "GetS");
    EXPECT_EQ(issue.at("messages_sent")[0].at("to"), "Dir");
    EXPECT_TRUE(issue.at("messages_sent")[0].at("data").is_null());
    const auto& reply = steps[1];
    EXPECT_FALSE(reply.contains("op"));
    EXPECT_EQ(reply.at("message").at("kind"), "GetS");
    EXPECT_EQ(reply.at("actor"), "Dir");
    EXPECT_EQ(reply.at("messages_sent")[0].at("data"), 0);
    EXPECT_EQ(reply.at("directory").at("state"), "S");
    EXPECT_EQ(reply.at("directory").at("sharers"), nlohmann::ordered_json::array({"P0"}));
    EXPECT_TRUE(reply.at("directory").at("owner").is_null());
    EXPECT_EQ(steps[2].at("caches")[0].at("state"), "S");
    EXPECT_EQ(steps[2].at("loaded"), 0);
    EXPECT_FALSE(steps[2].at("explanation").get<std::string>().empty());
}

TEST(Lab, ASnoopingBusIsNamedAsSuchAndShowsNoSharerList)
{
    // The issue's run: both shared copies leave silently. The bus and memory are "Bus", never "Dir", and since a
    // bus keeps no sharer list the text shows none (it used to print sharers={P0,P1} beside "nobody tracks
    // sharers on a bus").
    const co::LabRun run = runOps("mesi-snooping", 2, "P0:R,P1:R,P0:E,P1:E,P0:R");
    const std::string text = co::labToText(run);
    EXPECT_EQ(text.find("Dir"), std::string::npos) << text;
    EXPECT_EQ(text.find("sharers"), std::string::npos) << text;
    EXPECT_NE(text.find("sent: BusRd P0->Bus\n"), std::string::npos) << text;
    EXPECT_NE(text.find("[17] Bus receives BusRd P0->Bus: IorS -> EorM^U  [BusRd-Unshared]"), std::string::npos)
        << text;
    EXPECT_NE(text.find("now:  P0=E P1=I | Bus=EorM owner=P0 memory=0\n"), std::string::npos) << text;
    EXPECT_NE(text.find("why:  Bus: P0 reads a block no other cache holds"), std::string::npos) << text;

    const nlohmann::ordered_json j = co::labToJson(run);
    const auto& bus = j.at("steps")[1];
    EXPECT_EQ(bus.at("actor"), "Bus");
    EXPECT_EQ(bus.at("message").at("to"), "Bus");
    EXPECT_TRUE(bus.at("directory").at("sharers").is_null());
    // A directory still shows its sharers.
    const std::string dir = co::labToText(runOps("msi-directory", 2, "P0:R"));
    EXPECT_NE(dir.find("| Dir=S sharers={P0} owner=- memory=0"), std::string::npos) << dir;
}

TEST(Lab, CliRunsPrintsJsonAndTables)
{
    const CliResult text = runCohsim("lab --protocol mesi-directory --caches 2 --ops P0:R,P0:W", Stderr::Discard);
    ASSERT_EQ(text.exitCode, 0) << text.output;
    EXPECT_NE(text.output.find("silent upgrade"), std::string::npos);

    const CliResult json = runCohsim("lab --protocol moesi-directory --json", Stderr::Discard);
    ASSERT_EQ(json.exitCode, 0) << json.output;
    EXPECT_EQ(nlohmann::json::parse(json.output).at("protocol"), "moesi-directory");

    const CliResult table = runCohsim("lab --protocol moesi-directory --table", Stderr::Discard);
    ASSERT_EQ(table.exitCode, 0);
    EXPECT_NE(table.output.find("| OM^AC |"), std::string::npos);
}

TEST(Lab, CliBadInputExitsTwoWithTheFieldAndFix)
{
    const CliResult bad = runCohsim("lab --protocol msi-directory --caches 3 --ops P7:R");
    EXPECT_EQ(bad.exitCode, 2);
    EXPECT_NE(bad.output.find("--ops item 1 (\"P7:R\")"), std::string::npos) << bad.output;
    EXPECT_NE(bad.output.find("fix: use P0..P2"), std::string::npos) << bad.output;

    const CliResult unknown = runCohsim("lab --protocol nope");
    EXPECT_EQ(unknown.exitCode, 2);
    EXPECT_NE(unknown.output.find("--protocol"), std::string::npos);

    const CliResult broken = runCohsim("lab --protocol msi-directory-broken-noinv --ops P0:R,P1:W");
    EXPECT_EQ(broken.exitCode, 1);
    EXPECT_NE(broken.output.find("SWMR violated"), std::string::npos);
}

// The delivery choice: a script that names deliveries (D:<i>) delivers nothing else, so the learner stages races.
std::vector<std::string> flight(const co::LabRun& run, std::size_t step)
{
    std::vector<std::string> out;
    for (const co::InFlightMessage& m : run.inFlight.at(step))
        out.push_back(std::to_string(m.index) + " " + co::messageToText(m.message) +
                      (m.canDeliver() ? ""
                       : m.stalls     ? " waits"
                                      : " behind"));
    return out;
}

TEST(LabDelivery, ParsesDeliveriesAndPrintsThemBack)
{
    const auto ops = co::parseLabOps("P0:R, d:2 ,D:*", 2);
    ASSERT_EQ(ops.size(), 3u);
    EXPECT_EQ(ops[1], co::LabOp::deliver(2));
    EXPECT_EQ(ops[2], co::LabOp::deliverAll());
    EXPECT_EQ(co::labOpsText(ops), "P0:R,D:2,D:*");
    EXPECT_EQ(co::deliveryOf(ops), co::LabDelivery::Manual);
    EXPECT_EQ(co::deliveryOf(co::parseLabOps("P0:R,P1:W", 2)), co::LabDelivery::Auto);
    try {
        co::parseLabOps("D:x", 2);
        FAIL() << "no error";
    } catch (const core::InputError& e) {
        EXPECT_EQ(e.problems().at(0).field, "--ops item 1 (\"D:x\")");
        EXPECT_NE(e.problems().at(0).fix.find("D:*"), std::string::npos);
    }
}

TEST(LabDelivery, TheRecordedScriptReplaysEveryTourManually)
{
    // The GUI turns an automatic run into its explicit script before the learner picks a delivery: replayed with
    // manual delivery, the script must give the very same steps.
    for (const co::Protocol& p : co::allProtocols()) {
        const std::string ops = co::defaultLabOps(3);
        const co::LabRun autoRun = co::runLab(p, 3, co::parseLabOps(ops, 3), ops);
        ASSERT_EQ(autoRun.script.size(), autoRun.steps.size()) << p.name;
        ASSERT_EQ(autoRun.inFlight.size(), autoRun.steps.size() + 1) << p.name;
        const co::LabRun manual =
            co::runLab(p, 3, autoRun.script, co::labOpsText(autoRun.script), co::LabDelivery::Manual);
        EXPECT_EQ(manual.error, autoRun.error) << p.name;
        ASSERT_EQ(manual.steps.size(), autoRun.steps.size()) << p.name;
        for (std::size_t i = 0; i < manual.steps.size(); ++i)
            EXPECT_EQ(co::stepToText(manual.steps[i]), co::stepToText(autoRun.steps[i])) << p.name << " " << i;
        EXPECT_TRUE(autoRun.inFlight.back().empty()) << p.name;
    }
}

TEST(LabDelivery, DataAndInvAcksArriveEitherWay)
{
    // P0 and P1 share the block; P2's GetM makes the directory send P2 the data (acks=2) and invalidate both.
    const std::string setup = "P0:R,D:*,P1:R,D:*,P2:W,D:0";
    const co::LabRun sent = runOps("msi-directory", 3, setup);
    EXPECT_EQ(flight(sent, sent.steps.size()),
              (std::vector<std::string>{"0 Data Dir->P2 data=0 acks=2", "1 Inv Dir->P0", "2 Inv Dir->P1"}));

    // Data first: P2 learns it owes 2 acks (IM^A), then each Inv-Ack counts down and the last one lets it write.
    const co::LabRun dataFirst = runOps("msi-directory", 3, setup + ",D:0,D:0,D:0,D:0,D:0");
    const auto& d = dataFirst.steps;
    ASSERT_EQ(d.size(), 13u);
    EXPECT_EQ(d[8].message->kind, "Data");
    EXPECT_EQ(d[8].fromState + ">" + d[8].toState, "IM^AD>IM^A");
    EXPECT_EQ(d[12].message->kind, "Inv-Ack");
    EXPECT_EQ(d[12].fromState + ">" + d[12].toState, "IM^A>M");
    EXPECT_EQ(d[12].stored, 1);

    // Acks first: both Inv-Acks overtake the data (P2 stays in IM^AD, counting below zero); the data completes it.
    const co::LabRun acksFirst = runOps("msi-directory", 3, setup + ",D:1,D:2,D:1,D:1,D:0");
    const auto& a = acksFirst.steps;
    ASSERT_EQ(a.size(), 13u);
    EXPECT_EQ(a[9].message->kind, "Inv-Ack");
    EXPECT_EQ(a[9].fromState + ">" + a[9].toState, "IM^AD>IM^AD");
    EXPECT_EQ(a[11].message->kind, "Inv-Ack");
    EXPECT_EQ(a[11].fromState + ">" + a[11].toState, "IM^AD>IM^AD");
    EXPECT_EQ(flight(acksFirst, 12), (std::vector<std::string>{"0 Data Dir->P2 data=0 acks=2"}));
    EXPECT_EQ(a[12].message->kind, "Data");
    EXPECT_EQ(a[12].fromState + ">" + a[12].toState, "IM^AD>M");
    EXPECT_EQ(a[12].stored, 1);
    EXPECT_TRUE(acksFirst.inFlight.back().empty());
}

TEST(LabDelivery, APutMCrossesAFwdGetM)
{
    // P0 owns the block; P1's GetM is forwarded to P0, and before the Fwd-GetM arrives P0 evicts (PutM).
    const std::string setup = "P0:W,D:*,P1:W,D:0,P0:E";
    const co::LabRun crossing = runOps("msi-directory", 2, setup);
    EXPECT_EQ(flight(crossing, crossing.steps.size()),
              (std::vector<std::string>{"0 Fwd-GetM Dir->P0", "1 PutM P0->Dir data=1"}));
    EXPECT_EQ(crossing.steps.back().caches[0].state, "MI^A");

    // The Fwd-GetM wins: P0 hands its data to P1 and waits for the Put-Ack; the late PutM is from a non-owner.
    const co::LabRun run = runOps("msi-directory", 2, setup + ",D:0,D:0,D:*");
    const auto& s = run.steps;
    ASSERT_GE(s.size(), 8u) << co::labToText(run);
    EXPECT_EQ(s[6].message->kind, "Fwd-GetM");
    EXPECT_EQ(s[6].fromState + ">" + s[6].toState, "MI^A>II^A");
    EXPECT_EQ(co::messageToText(s[6].sent.at(0)), "Data P0->P1 data=1");
    EXPECT_EQ(s[7].message->kind, "PutM");
    EXPECT_EQ(s[7].event, "PutM-NonOwner");
    EXPECT_EQ(co::messageToText(s[7].sent.at(0)), "Put-Ack Dir->P0");
    // The stale PutM's data is ignored: memory keeps 0 while P1 writes version 2 over P0's 1.
    EXPECT_EQ(s.back().directory.memory, 0);
    EXPECT_EQ(s.back().directory.owner, "P1");
    EXPECT_EQ(s.back().caches[0].state, "I");
    EXPECT_EQ(s.back().caches[1].state, "M");
    EXPECT_EQ(s.back().caches[1].data, 2);
}

TEST(LabDelivery, RefusedDeliveriesSayWhy)
{
    const co::Protocol& msi = co::findProtocol("msi-directory");
    auto run = [&msi](const std::string& ops) { return co::runLab(msi, 2, co::parseLabOps(ops, 2), ops); };
    const co::LabRun missing = run("P0:R,D:5");
    EXPECT_EQ(missing.error, "D:5: no message 5 in flight: 1 in flight, D:0..D:0");
    EXPECT_EQ(missing.violation, co::Violation::None);
    EXPECT_EQ(missing.steps.size(), 1u);
    // P0 waits for its data, so the Fwd-GetS P1's read causes stalls there.
    const co::LabRun stalled = run("P0:W,D:0,P1:R,D:1");
    EXPECT_EQ(flight(stalled, 4), (std::vector<std::string>{"0 Data Dir->P0 data=0", "1 Fwd-GetS Dir->P0 waits"}));
    EXPECT_EQ(run("P0:W,D:0,P1:R,D:1,D:1").error,
              "D:1: Fwd-GetS Dir->P0 would wait at its receiver (the table stalls it in this state): deliver another "
              "first");
    // The forward network is FIFO per channel: the Put-Ack for P0's PutS queues behind the Inv sent before it.
    const co::LabRun fifo = run("P0:R,D:*,P1:W,D:0,P0:E,D:2");
    EXPECT_EQ(flight(fifo, 7),
              (std::vector<std::string>{"0 Data Dir->P1 data=0 acks=1", "1 Inv Dir->P0", "2 Put-Ack Dir->P0 behind"}));
    EXPECT_EQ(run("P0:R,D:*,P1:W,D:0,P0:E,D:2,D:2").error,
              "D:2: Put-Ack Dir->P0 cannot arrive yet: an older message on its ordered channel must arrive first");
}

TEST(LabDelivery, AManualRunStopsWhenNothingCanMove)
{
    // The lost Inv-Ack, delivered by hand: once P0 drops its copy silently, P1 waits for an ack nobody sends.
    const co::Protocol& p = co::findProtocol("msi-directory-broken-lostack");
    const std::string ops = "P0:R,D:*,P1:W,D:0,D:1,D:0";
    const co::LabRun run = co::runLab(p, 2, co::parseLabOps(ops, 2), ops);
    EXPECT_EQ(run.violation, co::Violation::Deadlock) << co::labToText(run);
    EXPECT_TRUE(run.inFlight.back().empty());
    EXPECT_EQ(run.steps.back().caches[1].state, "IM^A");
}

TEST(LabDelivery, CliTakesADeliveryOrder)
{
    const CliResult ok =
        runCohsim("lab --protocol msi-directory --caches 2 --ops P0:W,D:*,P1:W,D:0,P0:E", Stderr::Discard);
    ASSERT_EQ(ok.exitCode, 0) << ok.output;
    EXPECT_NE(ok.output.find("flight: D:0 Fwd-GetM Dir->P0, D:1 PutM P0->Dir data=1\n"), std::string::npos)
        << ok.output;
    EXPECT_NE(ok.output.find("2 still in flight"), std::string::npos) << ok.output;
    const CliResult json = runCohsim("lab --protocol msi-directory --caches 2 --ops P0:R,D:0 --json", Stderr::Discard);
    ASSERT_EQ(json.exitCode, 0) << json.output;
    const auto j = nlohmann::json::parse(json.output);
    EXPECT_EQ(j.at("delivery"), "manual");
    EXPECT_EQ(j.at("in_flight").at(0).at("kind"), "Data");
    EXPECT_EQ(j.at("in_flight").at(0).at("index"), 0);
    const CliResult bad = runCohsim("lab --protocol msi-directory --caches 2 --ops P0:R,D:3");
    EXPECT_EQ(bad.exitCode, 2);
    EXPECT_NE(bad.output.find("D:3: no message 3 in flight"), std::string::npos) << bad.output;
}

} // namespace
} // namespace coh::test
