// The Murphi export: the text declares what the tables declare (checked everywhere), and where rumur and cc are
// installed, Rumur independently verifies every protocol with exactly the explorer's state and transition counts
// and catches every planted bug with the same kind of violation the explorer reports.
#include "cli_runner.h"

#include "core/base/input_error.h"
#include "core/coherence/explorer.h"
#include "core/coherence/murphi_export.h"
#include "core/coherence/murphi_names.h"
#include "core/coherence/protocol_builders.h"
#include "core/coherence/protocol_registry.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <functional>
#include <regex>
#include <sstream>

namespace coh::test {
namespace {

namespace co = core::coherence;
namespace fs = std::filesystem;

std::size_t count(const std::string& text, const std::string& needle)
{
    std::size_t n = 0;
    for (std::size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1))
        ++n;
    return n;
}

std::vector<std::string> protocolNames(bool bugHunt)
{
    std::vector<std::string> names;
    for (const co::Protocol& p : co::allProtocols())
        if (p.bugHunt == bugHunt)
            names.push_back(p.name);
    return names;
}

std::string testName(const ::testing::TestParamInfo<std::string>& info)
{
    std::string name = info.param;
    for (char& ch : name)
        if (!std::isalnum(static_cast<unsigned char>(ch)))
            ch = '_';
    return name;
}

TEST(MurphiExport, DeclaresEveryStateEventAndMessageOfTheTables)
{
    for (const co::Protocol& p : co::allProtocols()) {
        SCOPED_TRACE(p.name);
        const std::string text = co::exportMurphi(p);
        const co::MurphiNames names(p);
        EXPECT_NE(text.find("NCACHES: 3;"), std::string::npos);
        for (const bool dir : {false, true}) {
            const co::ControllerTable& t = dir ? p.directory : p.cache;
            for (std::size_t s = 0; s < t.states.size(); ++s) {
                const std::string& id = names.state(dir, static_cast<int>(s));
                EXPECT_NE(text.find(t.name + " state " + id + " = " + t.states[s].name + "\n"), std::string::npos);
                EXPECT_NE(text.find("case " + id + ":"), std::string::npos) << id; // a row in the step procedure
            }
            for (std::size_t e = 0; e < t.events.size(); ++e)
                EXPECT_NE(text.find(t.name + " event " + names.event(dir, static_cast<int>(e)) + " = " +
                                    t.events[e].name + "\n"),
                          std::string::npos);
        }
        for (std::size_t m = 0; m < p.messages.size(); ++m)
            EXPECT_NE(text.find("message " + names.message(static_cast<int>(m)) + " = " + p.messages[m].name),
                      std::string::npos);
        // Bounded staleness lets replicas read while the writer writes: its first invariant is only a single writer.
        const char* writers = p.consistency == co::Consistency::Strong ? "SWMR" : "single writer";
        for (const char* invariant : {writers, "no lost write", "ack counters settled", "no deadlock"})
            EXPECT_EQ(count(text, std::string("invariant \"") + invariant + "\""), 1u) << invariant;
        EXPECT_EQ(count(text, "rule \"issue\""), 1u);
        EXPECT_EQ(count(text, "rule \"deliver\""), 1u);
        EXPECT_NE(text.find("ruleset t: MsgType; i: MsgIndex"), std::string::npos);
    }
}

TEST(MurphiExport, WritesOneTransitionPerFireEntryWithItsActionsInOrder)
{
    for (const co::Protocol& p : co::allProtocols()) {
        SCOPED_TRACE(p.name);
        const std::string text = co::exportMurphi(p);
        std::size_t fires = 0, loads = 0;
        for (const co::ControllerTable* t : {&p.cache, &p.directory})
            for (const co::Transition& tr : t->transitions) {
                fires += tr.kind == co::EntryKind::Fire;
                for (int k = 0; k < tr.actionCount; ++k)
                    loads += t->actions[tr.firstAction + k].kind == co::ActionKind::PerformLoad;
            }
        EXPECT_EQ(count(text, "      -- ("), fires); // each Fire case opens with "-- (state, event) -> next"
        // Bounded staleness: a load may be up to the bound behind, with versions counted mod bound + 2.
        const std::string loadCheck = p.consistency == co::Consistency::Strong
                                          ? "assert cache[c].val = lastWrite"
                                          : "assert (lastWrite - cache[c].val + " + std::to_string(p.modelValues()) +
                                                ") % " + std::to_string(p.modelValues()) +
                                                " <= " + std::to_string(p.stalenessBound);
        EXPECT_EQ(count(text, loadCheck), loads);
    }
    // MSI (IM^AD, Data(ack>0)): copy the data, add the acks, then wait in IM^A, in that order.
    const std::string msi = co::exportMurphi(co::findProtocol("msi-directory"));
    const std::size_t at = msi.find("-- (IM^AD, Data(ack>0)) -> IM^A:");
    ASSERT_NE(at, std::string::npos);
    const std::size_t copy = msi.find("cache[c].val := m.val; cache[c].dataValid := true;", at);
    const std::size_t acks = msi.find("cache[c].acks := cache[c].acks + m.acks;", at);
    const std::size_t next = msi.find("cache[c].state := C_IM_A;", at);
    EXPECT_TRUE(copy < acks && acks < next);
    // Guards in declaration order, and the Stall entries of IS^D.
    EXPECT_LT(msi.find("return CE_Data_ack_eq_0;"), msi.find("return CE_Data_ack_gt_0;"));
    EXPECT_NE(msi.find("case C_IS_D: return e = CE_Load | e = CE_Store | e = CE_Evict | e = CE_Inv;"),
              std::string::npos);
}

TEST(MurphiExport, ThePlantedBugShowsInTheDirectoryRow)
{
    // (S, GetM) is the only directory entry that sends Inv in MSI; the bug-hunt variant drops it.
    EXPECT_EQ(count(co::exportMurphi(co::findProtocol("msi-directory")), "netSend(M_Inv,"), 1u);
    EXPECT_EQ(count(co::exportMurphi(co::findProtocol("msi-directory-broken-noinv")), "netSend(M_Inv,"), 0u);
}

TEST(MurphiExport, TheSnoopingBusSamplesTheCachesCopiesAndNeverItsSharerSet)
{
    // The bus's shared line is the caches' states, as in the interpreter: a BusRd is classified on other caches'
    // copies, a BusUpgr on the requestor's own, and no bus transition reads or writes dir.sharers.
    const co::Protocol& p = co::findProtocol("mesi-snooping");
    const std::string text = co::exportMurphi(p);
    EXPECT_NE(text.find("if (otherCopy(m.req)) then return DE_BusRd_Shared; end;"), std::string::npos);
    EXPECT_NE(text.find("if (!otherCopy(m.req)) then return DE_BusRd_Unshared; end;"), std::string::npos);
    EXPECT_NE(text.find("if (copyAt(m.req)) then return DE_BusUpgr_Holder; end;"), std::string::npos);
    // holdsCopy lists exactly the cache states that hold data.
    std::string holding;
    const co::MurphiNames names(p);
    for (std::size_t s = 0; s < p.cache.states.size(); ++s)
        if (p.cache.states[s].holdsData)
            holding += (holding.empty() ? "" : " | ") + ("s = " + names.state(false, static_cast<int>(s)));
    EXPECT_NE(text.find("function holdsCopy(s: CacheState): boolean;\nbegin\n  return " + holding + ";\n"),
              std::string::npos);
    const std::size_t step = text.find("procedure dirStep(");
    ASSERT_NE(step, std::string::npos);
    const std::string dirStep = text.substr(step, text.find("\nend;\n", step) - step);
    EXPECT_EQ(dirStep.find("sharer"), std::string::npos) << dirStep;
}

TEST(MurphiExport, NamesAreSanitisedAndUnique)
{
    EXPECT_EQ(co::MurphiNames::sanitise("IS^D"), "IS_D");
    EXPECT_EQ(co::MurphiNames::sanitise("Data(ack>0)"), "Data_ack_gt_0");
    EXPECT_EQ(co::MurphiNames::sanitise("Data(ack=0)"), "Data_ack_eq_0");
    EXPECT_EQ(co::MurphiNames::sanitise("GetM-Owner+Sharers"), "GetM_Owner_plus_Sharers");
    co::Protocol p;
    p.cache.states = {{"A-B", true}, {"A_B", true}, {"a b", true}, {"unclassified", true}};
    p.cache.events = {{"unclassified", {}, {}}};
    const co::MurphiNames names(p);
    EXPECT_EQ(names.state(false, 0), "C_A_B");
    EXPECT_EQ(names.state(false, 1), "C_A_B_2");
    EXPECT_EQ(names.state(false, 2), "C_a_b_3"); // Murphi tools may fold case
    EXPECT_EQ(names.unclassified(false), "CE_unclassified");
    EXPECT_EQ(names.event(false, 0), "CE_unclassified_2");
}

TEST(MurphiExport, OptionsSetTheConstantsAndBadOnesAreInputErrors)
{
    const co::Protocol& p = co::findProtocol("mesi-directory");
    const std::string two = co::exportMurphi(p, {2, 0});
    EXPECT_NE(two.find("NCACHES: 2;"), std::string::npos);
    EXPECT_NE(two.find("MAXMSG: 6;"), std::string::npos);
    EXPECT_NE(co::exportMurphi(p, {3, 12}).find("MAXMSG: 12;"), std::string::npos);
    try {
        co::exportMurphi(p, {0, 300});
        FAIL() << "expected an InputError";
    } catch (const core::InputError& e) {
        ASSERT_EQ(e.problems().size(), 2u);
        EXPECT_EQ(e.problems()[0].field, "--caches");
        EXPECT_EQ(e.problems()[1].field, "--max-messages");
    }
}

TEST(MurphiExport, CliWritesTheModelAndRejectsUnknownProtocols)
{
    const CliResult out = runCohsim("export-murphi --protocol moesi-directory --caches 2", Stderr::Discard);
    ASSERT_EQ(out.exitCode, 0);
    EXPECT_EQ(out.output, co::exportMurphi(co::findProtocol("moesi-directory"), {2, 0}));

    const fs::path file = fs::temp_directory_path() / ("coh-murphi-cli-" + std::to_string(::getpid()) + ".m");
    const CliResult written = runCohsim("-q export-murphi --protocol msi-directory -o " + file.string());
    ASSERT_EQ(written.exitCode, 0) << written.output;
    std::stringstream content;
    content << std::ifstream(file).rdbuf();
    EXPECT_EQ(content.str(), co::exportMurphi(co::findProtocol("msi-directory")));
    fs::remove(file);

    const CliResult unknown = runCohsim("export-murphi --protocol mosi");
    EXPECT_EQ(unknown.exitCode, 2);
    EXPECT_NE(unknown.output.find("--protocol"), std::string::npos) << unknown.output;
    for (const co::Protocol& p : co::allProtocols())
        EXPECT_NE(unknown.output.find(p.name), std::string::npos) << unknown.output;
    EXPECT_EQ(runCohsim("export-murphi --protocol msi-directory --caches 0").exitCode, 2);
}

// ---- Rumur: generate the verifier, compile it, run it -------------------------------------------------------

struct RumurRun {
    int exitCode = -1;
    std::string output;
    std::uint64_t states = 0;
    std::uint64_t rules = 0;
};

CliResult shell(const std::string& command)
{
    return runShell(command + " 2>&1");
}

// Empty when rumur and a C compiler are installed; otherwise why the Rumur tests skip.
std::string missingTools()
{
    for (const char* tool : {"rumur", "cc"})
        if (shell(std::string("command -v ") + tool).exitCode != 0)
            return std::string(tool) + " is not installed (CI installs the Debian package rumur)";
    return "";
}

// `singleThread`: strict breadth-first order, so the counterexample is a shortest one and its kind deterministic.
RumurRun runRumur(const std::string& model, const std::string& name, bool singleThread)
{
    const fs::path dir = fs::temp_directory_path() / ("coh-rumur-" + std::to_string(::getpid()) + "-" + name);
    fs::remove_all(dir);
    fs::create_directories(dir);
    std::ofstream(dir / "model.m") << model;
    const std::string cd = "cd '" + dir.string() + "' && ";
    RumurRun run;
    const CliResult gen = shell(cd + "rumur " + (singleThread ? "--threads 1 " : "") + "--output model.c model.m");
    EXPECT_EQ(gen.exitCode, 0) << gen.output;
    const CliResult cc = shell(cd + "cc -O2 -mcx16 model.c -lpthread -o checker");
    EXPECT_EQ(cc.exitCode, 0) << cc.output;
    if (gen.exitCode == 0 && cc.exitCode == 0) {
        const CliResult check = shell(cd + "./checker");
        run.exitCode = check.exitCode;
        run.output = check.output;
        std::smatch match;
        if (std::regex_search(run.output, match, std::regex(R"((\d+) states, (\d+) rules fired)"))) {
            run.states = std::stoull(match[1]);
            run.rules = std::stoull(match[2]);
        }
    }
    fs::remove_all(dir);
    return run;
}

class RumurCleanProtocol : public ::testing::TestWithParam<std::string> {};

TEST_P(RumurCleanProtocol, PassesWithTheExplorersExactCounts)
{
    if (const std::string why = missingTools(); !why.empty())
        GTEST_SKIP() << why;
    const co::Protocol& p = co::findProtocol(GetParam());
    const RumurRun run = runRumur(co::exportMurphi(p, {3, 0}), p.name, false);
    ASSERT_EQ(run.exitCode, 0) << run.output;
    EXPECT_NE(run.output.find("No error found"), std::string::npos) << run.output;
    // The model mirrors the interpreter and the explorer's canonical encoding without symmetry reduction, so the
    // two checkers must agree exactly; a difference means one of them changed its semantics.
    co::ExplorerOptions options;
    options.caches = 3;
    const co::ExplorerResult explored = co::explore(p, options);
    ASSERT_EQ(explored.violation, co::Violation::None) << explored.description;
    EXPECT_EQ(run.states, explored.states);
    EXPECT_EQ(run.rules, explored.transitions);
}

INSTANTIATE_TEST_SUITE_P(Registered, RumurCleanProtocol, ::testing::ValuesIn(protocolNames(false)), testName);

class RumurBugHunt : public ::testing::TestWithParam<std::string> {};

TEST_P(RumurBugHunt, FindsTheSameViolationAsTheExplorer)
{
    if (const std::string why = missingTools(); !why.empty())
        GTEST_SKIP() << why;
    const co::Protocol& p = co::findProtocol(GetParam());
    const RumurRun run = runRumur(co::exportMurphi(p, {3, 0}), p.name, true);
    EXPECT_EQ(run.exitCode, 1) << run.output;
    // Both search breadth-first, so both counterexamples are shortest ones, and they break the same invariant:
    // the missing invalidation breaks SWMR, the lost ack is a deadlock.
    co::ExplorerOptions options;
    options.caches = 3;
    const co::ExplorerResult explored = co::explore(p, options);
    ASSERT_TRUE(explored.violation == co::Violation::Swmr || explored.violation == co::Violation::Deadlock)
        << co::violationName(explored.violation);
    const char* invariant =
        explored.violation == co::Violation::Swmr ? "invariant \"SWMR\" failed" : "invariant \"no deadlock\" failed";
    EXPECT_NE(run.output.find(invariant), std::string::npos) << run.output;
    EXPECT_EQ(count(run.output, "Rule \""), explored.trace.size()) << run.output;
}

INSTANTIATE_TEST_SUITE_P(Registered, RumurBugHunt, ::testing::ValuesIn(protocolNames(true)), testName);

// MSI with one directory entry replaced, as in the explorer tests.
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

co::Action sendToRequestor(const char* message)
{
    const int type = co::findProtocol("msi-directory").findMessage(message);
    return co::Action{co::ActionKind::Send, static_cast<std::uint8_t>(type), co::Target::Requestor};
}

struct PlantedBug {
    std::string name;
    std::function<co::Protocol()> make;
    co::Violation violation;
    std::string rumurSays;
    int caches = 2;
};

void PrintTo(const PlantedBug& bug, std::ostream* os)
{
    *os << bug.name;
}

std::vector<PlantedBug> plantedBugs()
{
    using namespace co::act;
    return {
        {"lost_write",
         [] {
             return mutateMsi("M", "PutM-Owner", {clearOwner, sendToRequestor("Put-Ack")}, "I");
         },
         co::Violation::LostWrite, "invariant \"no lost write\" failed"},
        {"protocol_error",
         [] {
             return mutateMsi("S", "PutS-Last", {removeReqFromSharers, sendToRequestor("Put-Ack")}, "M");
         },
         co::Violation::ProtocolError, "protocol error: directory in M on GetS: no owner"},
        {"deadlock", [] { return mutateMsi("I", "GetS", {addReqToSharers}, "S"); }, co::Violation::Deadlock,
         "invariant \"no deadlock\" failed"},
        // The former owner's write-back never reaches memory; a third cache then reads the stale memory while the
        // latest value still lives in the two sharers' copies (so it is not lost, just not what the load returns).
        {"data_value", [] { return mutateMsi("S^D", "Data", {}, "S"); }, co::Violation::DataValue,
         "data-value: a load returned a stale value", 3},
    };
}

class RumurPlantedBug : public ::testing::TestWithParam<PlantedBug> {};

TEST_P(RumurPlantedBug, RumurReportsTheSameKindOfViolationAsTheExplorer)
{
    if (const std::string why = missingTools(); !why.empty())
        GTEST_SKIP() << why;
    const PlantedBug& bug = GetParam();
    const co::Protocol p = bug.make();
    co::ExplorerOptions options;
    options.caches = bug.caches;
    EXPECT_EQ(co::violationName(co::explore(p, options).violation), co::violationName(bug.violation));
    const RumurRun run = runRumur(co::exportMurphi(p, {bug.caches, 0}), bug.name, true);
    EXPECT_EQ(run.exitCode, 1);
    EXPECT_NE(run.output.find(bug.rumurSays), std::string::npos) << run.output;
}

INSTANTIATE_TEST_SUITE_P(MsiMutants, RumurPlantedBug, ::testing::ValuesIn(plantedBugs()),
                         [](const ::testing::TestParamInfo<PlantedBug>& info) { return info.param.name; });

// Unified memory whose store takes effect at the cache instead of the home: a read the home serves before the
// Write arrives returns memory's older value, which the home-side data-value check (PerformLoadAtHome) catches.
co::Protocol unifiedMemoryStoreAtCache()
{
    co::Protocol p = co::findProtocol("unified-memory");
    p.name = "unified-memory-mutant";
    co::TableBuilder c(p, p.cache);
    c.replace("I", "Store", {co::act::store, c.send("Write", co::Target::Dir, co::DataSource::StoreValue)}, "IW^A",
              "planted bug");
    p.cache = c.build("I");
    co::TableBuilder d(p, p.directory);
    d.replace("I", "Write", {co::act::writeMemory, d.send("Write-Ack", co::Target::Requestor)}, "", "planted bug");
    p.directory = d.build("I");
    return p;
}

INSTANTIATE_TEST_SUITE_P(UnifiedMemoryMutants, RumurPlantedBug,
                         ::testing::Values(PlantedBug{"store_at_cache", unifiedMemoryStoreAtCache,
                                                      co::Violation::DataValue,
                                                      "data-value: the home served a load a stale value"}),
                         [](const ::testing::TestParamInfo<PlantedBug>& info) { return info.param.name; });

} // namespace
} // namespace coh::test
