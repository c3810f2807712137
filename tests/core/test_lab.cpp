// The teaching lab: op parsing and its errors, the default tour on every protocol, versions written by stores,
// explanations with names filled in, the documented JSON shape, and the CLI end to end.
#include "cli_runner.h"
#include "protocol_test_util.h"

#include "core/scenario/input_error.h"

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

} // namespace
} // namespace coh::test
