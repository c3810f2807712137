// Every registered table is well formed, the builder rejects malformed rows, and the Markdown comes from the
// tables themselves.
#include "protocol_test_util.h"

#include "core/base/input_error.h"
#include "core/coherence/protocol_builders.h"
#include "core/coherence/table_markdown.h"

#include <set>

namespace coh::test {
namespace {

TEST(ProtocolTables, RegistryHasTheShippedProtocolsAndTwoBugHunts)
{
    std::set<std::string> names;
    int bugHunts = 0;
    for (const co::Protocol& p : co::allProtocols()) {
        names.insert(p.name);
        bugHunts += p.bugHunt;
    }
    EXPECT_EQ(names,
              (std::set<std::string>{"msi-directory", "mesi-directory", "moesi-directory", "migratory",
                                     "unified-memory", "mesi-snooping", "cxl-asymmetric", "sealed-lease", "lazy-causal",
                                     "msi-directory-broken-noinv", "msi-directory-broken-lostack"}));
    EXPECT_EQ(bugHunts, 2);
    EXPECT_TRUE(co::findProtocol("msi-directory-broken-lostack").bugHunt);
    EXPECT_TRUE(co::findProtocol("msi-directory-broken-noinv").bugHunt);
    EXPECT_NE(co::protocolListText().find("msi-directory-broken-noinv"), std::string::npos);
    EXPECT_NE(co::protocolListText().find("[bug hunt]"), std::string::npos);
}

TEST(ProtocolTables, UnknownProtocolNamesTheFieldAndTheChoices)
{
    try {
        co::findProtocol("msi");
        FAIL() << "no error";
    } catch (const core::InputError& e) {
        ASSERT_EQ(e.problems().size(), 1u);
        EXPECT_EQ(e.problems()[0].field, "--protocol");
        EXPECT_NE(e.problems()[0].fix.find("moesi-directory"), std::string::npos);
    }
}

TEST(ProtocolTables, StateCountsMatchThePrimer)
{
    auto counts = [](const std::string& name) {
        const co::Protocol& p = co::findProtocol(name);
        return std::to_string(p.cache.states.size()) + "/" + std::to_string(p.directory.states.size());
    };
    EXPECT_EQ(counts("msi-directory"), "11/4");
    EXPECT_EQ(counts("mesi-directory"), "13/5");
    EXPECT_EQ(counts("moesi-directory"), "17/5");
}

TEST(ProtocolTables, TablesAreDenseAndConsistent)
{
    for (const co::Protocol& p : co::allProtocols()) {
        for (const co::ControllerTable* t : {&p.cache, &p.directory}) {
            SCOPED_TRACE(p.name + " " + t->name);
            ASSERT_EQ(t->transitions.size(), t->states.size() * t->events.size());
            ASSERT_EQ(t->explanations.size(), t->transitions.size());
            for (std::size_t i = 0; i < t->transitions.size(); ++i) {
                const co::Transition& tr = t->transitions[i];
                EXPECT_LT(tr.next, t->states.size());
                EXPECT_LE(tr.firstAction + tr.actionCount, t->actions.size());
                if (tr.kind != co::EntryKind::Undefined) {
                    EXPECT_FALSE(t->explanations[i].empty()) << "entry " << i << " has no explanation";
                }
            }
            for (const co::Action& a : t->actions)
                EXPECT_LT(a.message, p.messages.size());
            EXPECT_TRUE(t->states[t->initial].stable);
        }
        // A processor may always issue an op in a stable state: it is either served or waits.
        for (std::size_t s = 0; s < p.cache.states.size(); ++s)
            if (p.cache.states[s].stable)
                for (int op = 0; op < co::kProcessorOps; ++op) {
                    const int event = p.cache.eventOrder[p.cache.byTrigger[op].first];
                    EXPECT_NE(p.cache.at(static_cast<int>(s), event).kind, co::EntryKind::Undefined)
                        << p.name << " " << p.cache.states[s].name;
                }
    }
}

TEST(ProtocolTables, BuilderRejectsMalformedRows)
{
    co::Protocol p;
    p.name = "test";
    co::addBaseMessages(p);
    co::TableBuilder c(p, false);
    c.state("I", true, co::Permission::None, false, "no copy");
    co::addBaseCacheEvents(c);
    c.on("I", "Load", {c.send("GetS", co::Target::Dir)}, "I", "asks");
    EXPECT_THROW(c.on("I", "Load", {}, "", "again"), std::logic_error);                             // defined twice
    EXPECT_THROW(c.on("I", "Store", {c.send("PutM", co::Target::Dir)}, "", "x"), std::logic_error); // no data source
    EXPECT_THROW(c.on("I", "Inv", {c.send("Inv", co::Target::Owner)}, "", "x"), std::logic_error);  // cache: no owner
    EXPECT_THROW(c.on("I", "Evict", {co::act::copyData}, "", "x"), std::logic_error);               // no message
    EXPECT_THROW(c.on("I", "Nope", {}, "", "x"), std::logic_error);                                 // unknown event
    EXPECT_THROW(c.on("I", "Inv", {}, "Nowhere", "x"), std::logic_error);                           // unknown state
    EXPECT_THROW(c.send("Bogus", co::Target::Dir), std::logic_error);
    EXPECT_THROW(c.event("X", "Inv", co::Guard::FromOwner), std::logic_error); // a directory guard on a cache
    co::TableBuilder d(p, true);
    EXPECT_THROW(d.event("Load", co::ProcessorOp::Load), std::logic_error);
    // The broadcast, memory-side and store-value pieces belong to one side each.
    EXPECT_THROW(c.on("I", "Inv", {c.send("Inv", co::Target::AllExceptRequestor)}, "", "x"), std::logic_error);
    EXPECT_THROW(c.on("I", "Inv", {co::act::loadAtHome}, "", "x"), std::logic_error);
    EXPECT_THROW(c.on("I", "Inv", {c.send("PutM", co::Target::Dir, co::DataSource::StoreValue)}, "", "x"),
                 std::logic_error); // only a Store op has a value to send
    d.state("I", true, co::Permission::None, false, "idle");
    d.event("GetS", "GetS");
    EXPECT_THROW(d.on("I", "GetS", {d.send("Data", co::Target::Requestor, co::DataSource::StoreValue)}, "", "x"),
                 std::logic_error);
    EXPECT_THROW(d.on("I", "GetS", {co::act::completeLoad}, "", "x"), std::logic_error);
}

TEST(ProtocolTables, BrokenVariantDiffersFromMsiInExactlyOneDirectoryEntry)
{
    const co::Protocol& good = co::findProtocol("msi-directory");
    const co::Protocol& bad = co::findProtocol("msi-directory-broken-noinv");
    int differing = 0;
    for (int s = 0; s < static_cast<int>(good.directory.states.size()); ++s)
        for (int e = 0; e < static_cast<int>(good.directory.events.size()); ++e)
            differing += co::transitionCell(good, good.directory, s, e) != co::transitionCell(bad, bad.directory, s, e);
    EXPECT_EQ(differing, 1);
    const int s = bad.directory.findState("S");
    const int e = bad.directory.findEvent("GetM");
    EXPECT_EQ(co::transitionCell(bad, bad.directory, s, e), "Data(mem)→Req; sharers={}; owner=Req / M");
}

TEST(ProtocolTables, MarkdownIsGeneratedFromTheTables)
{
    const co::Protocol& p = co::findProtocol("msi-directory");
    EXPECT_EQ(co::transitionCell(p, p.cache, p.cache.findState("I"), p.cache.findEvent("Load")), "GetS→Dir / IS^D");
    EXPECT_EQ(co::transitionCell(p, p.cache, p.cache.findState("IS^D"), p.cache.findEvent("Inv")), "stall");
    EXPECT_EQ(co::transitionCell(p, p.cache, p.cache.findState("I"), p.cache.findEvent("Inv")), "");
    EXPECT_EQ(co::transitionCell(p, p.directory, p.directory.findState("M"), p.directory.findEvent("GetS")),
              "Fwd-GetS→Owner; sharers+=Req; sharers+=Owner; owner=none / S^D");
    EXPECT_EQ(co::transitionCell(p, p.directory, p.directory.findState("S"), p.directory.findEvent("GetM")),
              "Data(mem,acks)→Req; Inv→Sharers-Req; sharers={}; owner=Req / M");
    const std::string md = co::protocolMarkdown(p);
    EXPECT_NE(md.find("| SM^AD |"), std::string::npos);
    EXPECT_NE(md.find("forward (point-to-point FIFO)"), std::string::npos);
    EXPECT_NE(md.find("Last-Inv-Ack = Inv-Ack when LastAck"), std::string::npos);
}

TEST(ProtocolTables, EveryMessageHasARole)
{
    for (const co::Protocol& p : co::allProtocols())
        for (const auto& m : p.messages)
            EXPECT_NE(m.role, co::MessageRole::Other) << p.name << ": message " << m.name << " has no role";
    const co::Protocol& msi = co::findProtocol("msi-directory");
    EXPECT_EQ(msi.messages[msi.findMessage("Inv")].role, co::MessageRole::Invalidation);
    EXPECT_EQ(msi.messages[msi.findMessage("PutM")].role, co::MessageRole::Writeback);
    EXPECT_EQ(msi.messages[msi.findMessage("Fwd-GetS")].role, co::MessageRole::Forward);
}

} // namespace
} // namespace coh::test
