// The compiled form of a table (what the interpreter reads) must say exactly what the declared table says, and the
// incremental check runs use after each step must reach the same verdict as the full checks.
#include "block_compare.h"
#include "core/coherence/invariants.h"
#include "core/coherence/protocol_registry.h"
#include "core/coherence/table_builder.h"
#include "core/sim/splitmix64.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

namespace co = coh::core::coherence;

namespace {

// The guards as protocol_table.h defines them, evaluated the plain way.
bool guardHolds(co::Guard g, const co::BlockSystem& s, const co::Message& m, const co::CacheLine* line)
{
    const auto bit = [](int node) { return node < co::kMaxCaches ? 1u << node : 0u; };
    const unsigned sharers = s.directory().sharers;
    const unsigned others = sharers & ~bit(m.requestor);
    switch (g) {
    case co::Guard::None:
        return true;
    case co::Guard::AckCountZero:
        return m.ackCount + line->acks == 0;
    case co::Guard::AckCountPositive:
        return m.ackCount + line->acks > 0;
    case co::Guard::LastAck:
        return line->acks == 1;
    case co::Guard::NotLastAck:
        return line->acks != 1;
    case co::Guard::FromOwner:
        return s.directory().owner == m.requestor;
    case co::Guard::NotFromOwner:
        return s.directory().owner != m.requestor;
    case co::Guard::LastSharer:
        return others == 0;
    case co::Guard::NotLastSharer:
        return others != 0;
    case co::Guard::NoSharers:
        return sharers == 0;
    case co::Guard::HasSharers:
        return sharers != 0;
    case co::Guard::RequestorIsSharer:
        return (sharers & bit(m.requestor)) != 0;
    case co::Guard::RequestorNotSharer:
        return (sharers & bit(m.requestor)) == 0;
    case co::Guard::OtherCopy:
    case co::Guard::NoOtherCopy:
    case co::Guard::RequestorHasCopy:
    case co::Guard::RequestorNoCopy: {
        // A copy: a cache state declared to hold data.
        bool other = false, own = false;
        for (int c = 0; c < s.caches(); ++c)
            if (s.protocol().cache.states[s.line(c).state].holdsData)
                (c == m.requestor ? own : other) = true;
        return g == co::Guard::OtherCopy          ? other
               : g == co::Guard::NoOtherCopy      ? !other
               : g == co::Guard::RequestorHasCopy ? own
                                                  : !own;
    }
    }
    return false;
}

// What the declared table says for message `m` arriving: the first event of its trigger, in declaration order,
// whose guards hold, and that event's entry in the controller's current state.
co::Resolution declaredResolution(const co::BlockSystem& s, const co::Message& m)
{
    const co::Protocol& p = s.protocol();
    const bool atDirectory = m.dst == co::kDirNode;
    const co::ControllerTable& table = atDirectory ? p.directory : p.cache;
    const co::CacheLine* line = atDirectory ? nullptr : &s.line(m.dst);
    const int state = atDirectory ? s.directory().state : line->state;
    for (std::size_t e = 0; e < table.events.size(); ++e) {
        const co::EventInfo& info = table.events[e];
        if (!info.trigger.isMessage || info.trigger.index != m.type)
            continue;
        if (!guardHolds(info.guards[0], s, m, line) || !guardHolds(info.guards[1], s, m, line))
            continue;
        const int index = table.index(state, static_cast<int>(e));
        const co::Transition& t = table.transitions[index];
        co::Resolution r;
        r.status = t.kind == co::EntryKind::Fire    ? co::StepStatus::Done
                   : t.kind == co::EntryKind::Stall ? co::StepStatus::Stalled
                                                    : co::StepStatus::Undefined;
        r.event = static_cast<std::uint8_t>(e);
        r.next = t.next;
        r.actionCount = t.actionCount;
        r.firstAction = t.firstAction;
        r.transition = static_cast<std::uint16_t>(index);
        return r;
    }
    co::Resolution none;
    none.status = co::StepStatus::Unclassified;
    return none;
}

void expectSame(const co::Resolution& compiled, const co::Resolution& declared, const std::string& where)
{
    SCOPED_TRACE(where);
    EXPECT_EQ(compiled.status, declared.status);
    if (compiled.status == co::StepStatus::Unclassified || declared.status == co::StepStatus::Unclassified)
        return;
    EXPECT_EQ(compiled.event, declared.event);
    EXPECT_EQ(compiled.transition, declared.transition);
    if (declared.status == co::StepStatus::Done) {
        EXPECT_EQ(compiled.next, declared.next);
        EXPECT_EQ(compiled.actionCount, declared.actionCount);
        EXPECT_EQ(compiled.firstAction, declared.firstAction);
    }
}

} // namespace

TEST(CompiledTable, EveryArrivalResolvesAsTheDeclaredTableSays)
{
    // Every protocol (the planted bugs too), every state of each controller, every message type, and the guard
    // inputs varied over the values that tell the guards apart: acks owed and carried, owner and sharer sets.
    int checked = 0;
    for (const co::Protocol& p : co::allProtocols()) {
        const auto types = static_cast<std::uint8_t>(p.messages.size());
        for (std::uint8_t type = 0; type < types; ++type) {
            for (std::size_t state = 0; state < p.cache.states.size(); ++state)
                for (int acks = -1; acks <= 2; ++acks)
                    for (int carried = 0; carried <= 2; ++carried) {
                        co::BlockSystem s(p, 3);
                        s.mutableLine(1).state = static_cast<std::uint8_t>(state);
                        s.mutableLine(1).acks = static_cast<std::int8_t>(acks);
                        co::Message m;
                        m.type = type;
                        m.src = co::kDirNode;
                        m.dst = 1;
                        m.requestor = 2;
                        m.ackCount = static_cast<std::int8_t>(carried);
                        s.setMessages(&m, 1);
                        expectSame(s.resolveMessage(0), declaredResolution(s, m),
                                   p.name + " cache " + p.cache.states[state].name + " " + p.messages[type].name);
                        ++checked;
                    }
            // A bus reads the caches' copies instead of a sharer set: cache c holds one when bit c is set.
            const int copyState = p.cache.findState("S");
            const unsigned copyPatterns = p.home == co::Home::Bus && copyState >= 0 ? 8 : 1;
            for (std::size_t state = 0; state < p.directory.states.size(); ++state)
                for (unsigned sharers = 0; sharers < 8; ++sharers)
                    for (std::uint8_t owner : {co::kNoNode, std::uint8_t{0}, std::uint8_t{2}})
                        for (std::uint8_t requestor = 0; requestor < 3; ++requestor)
                            for (unsigned copies = 0; copies < copyPatterns; ++copies) {
                                co::BlockSystem s(p, 3);
                                for (int c = 0; c < 3; ++c)
                                    if (copies & (1u << c))
                                        s.mutableLine(c).state = static_cast<std::uint8_t>(copyState);
                                s.mutableDirectory().state = static_cast<std::uint8_t>(state);
                                s.mutableDirectory().sharers = static_cast<std::uint16_t>(sharers);
                                s.mutableDirectory().owner = owner;
                                co::Message m;
                                m.type = type;
                                m.src = requestor;
                                m.dst = co::kDirNode;
                                m.requestor = requestor;
                                s.setMessages(&m, 1);
                                expectSame(s.resolveMessage(0), declaredResolution(s, m),
                                           p.name + " directory " + p.directory.states[state].name + " " +
                                               p.messages[type].name);
                                ++checked;
                            }
        }
        // Processor ops: one unguarded event each.
        for (std::size_t state = 0; state < p.cache.states.size(); ++state)
            for (int op = 0; op < co::kProcessorOps; ++op) {
                co::BlockSystem s(p, 2);
                s.mutableLine(0).state = static_cast<std::uint8_t>(state);
                const co::Resolution r = s.resolveOp(0, static_cast<co::ProcessorOp>(op));
                const int event = p.cache.eventOrder[p.cache.byTrigger[op].first];
                const co::Transition& t = p.cache.at(static_cast<int>(state), event);
                EXPECT_EQ(r.event, event);
                EXPECT_EQ(r.transition, p.cache.index(static_cast<int>(state), event));
                EXPECT_EQ(r.status, t.kind == co::EntryKind::Fire    ? co::StepStatus::Done
                                    : t.kind == co::EntryKind::Stall ? co::StepStatus::Stalled
                                                                     : co::StepStatus::Undefined);
            }
    }
    EXPECT_GT(checked, 10000);
}

TEST(CompiledTable, StateFlagsMirrorTheDeclaredStates)
{
    for (const co::Protocol& p : co::allProtocols())
        for (const co::ControllerTable* table : {&p.cache, &p.directory}) {
            SCOPED_TRACE(p.name + " " + table->name);
            for (std::size_t s = 0; s < table->states.size(); ++s) {
                const co::StateInfo& info = table->states[s];
                const std::uint8_t f = table->compiled.stateFlags[s];
                EXPECT_EQ((f & co::kStateStable) != 0, info.stable) << info.name;
                EXPECT_EQ((f & co::kStateHoldsData) != 0, info.holdsData) << info.name;
                EXPECT_EQ((f & co::kStateReader) != 0, info.permission == co::Permission::Read) << info.name;
                EXPECT_EQ((f & co::kStateWriter) != 0, info.permission == co::Permission::ReadWrite) << info.name;
                EXPECT_EQ((f & co::kStateLeased) != 0, info.leased) << info.name;
            }
        }
}

// Only sealed-lease's replica state holds its copy under a lease; a table that marks a state leased whose release
// tells the home (MSI's S evicts with PutS) is refused, since a lease expires without a word.
TEST(CompiledTable, OnlyASilentlyReleasedReadableStateMayBeLeased)
{
    std::vector<std::string> leased;
    for (const co::Protocol& p : co::allProtocols())
        for (const co::StateInfo& s : p.cache.states)
            if (s.leased)
                leased.push_back(p.name + ":" + s.name);
    EXPECT_EQ(leased, std::vector<std::string>{"sealed-lease:R"});
    const co::Protocol& sealed = co::findProtocol("sealed-lease");
    co::BlockSystem block(sealed, 2);
    EXPECT_FALSE(block.leased(1));

    const co::Protocol& msi = co::findProtocol("msi-directory");
    co::TableBuilder reopened(msi, msi.cache);
    reopened.leased("S");
    try {
        reopened.build("I");
        FAIL() << "MSI's S was accepted as a leased state";
    } catch (const std::logic_error& e) {
        EXPECT_NE(std::string(e.what()).find("leased state S"), std::string::npos) << e.what();
    }
    co::TableBuilder writer(msi, msi.cache);
    EXPECT_THROW(writer.leased("M"), std::logic_error); // a writer's copy is owned, not leased
}

TEST(CompiledTable, TheIncrementalCheckAgreesWithTheFullChecksOnRandomWalks)
{
    // Random walks (ops at random caches, deliveries of random deliverable messages) through every protocol,
    // the planted bugs included. Each step's incremental verdict must equal checkStep then checkState; a walk
    // stops at its first violation, since the incremental check assumes the state before it was valid.
    int violations = 0;
    int steps = 0;
    for (const co::Protocol& p : co::allProtocols())
        for (int caches : {2, 3}) {
            std::uint64_t rng = 0x5EED0000u + static_cast<std::uint64_t>(caches);
            for (int walk = 0; walk < 40; ++walk) {
                co::BlockSystem s(p, caches);
                for (int k = 0; k < 200; ++k) {
                    const std::uint64_t draw = coh::core::splitmix64(rng);
                    co::StepResult step;
                    std::vector<int> deliverable;
                    for (int i = 0; i < s.messageCount(); ++i)
                        if (s.deliverable(i))
                            deliverable.push_back(i);
                    const auto value = static_cast<co::Value>(s.latest() + 1);
                    if (!deliverable.empty() && (draw & 1)) {
                        step = s.deliver(deliverable[(draw >> 8) % deliverable.size()], value);
                    } else {
                        const int cache = static_cast<int>((draw >> 16) % static_cast<std::uint64_t>(caches));
                        step = s.issue(cache, static_cast<co::ProcessorOp>((draw >> 24) % co::kProcessorOps), value);
                    }
                    co::Violation full = co::checkStep(step);
                    if (full == co::Violation::None)
                        full = co::checkState(s);
                    ASSERT_EQ(co::checkAfterStep(s, step), full) << p.name << ", walk " << walk << ", step " << k
                                                                 << ": " << co::describeViolation(full, s, &step);
                    ++steps;
                    if (full != co::Violation::None) {
                        ++violations;
                        break;
                    }
                }
            }
        }
    EXPECT_GT(steps, 50000);
    // The planted bugs break invariants on some walks, so the violation verdicts are compared too.
    EXPECT_GT(violations, 5);
}

TEST(CompiledTable, ATableBeyondTheCompiledCapacityIsRejectedByName)
{
    co::Protocol p;
    p.name = "too-many-states";
    p.messages.push_back({"Req", false, co::VirtualNetwork::Request, "a request", co::MessageRole::Request});
    co::TableBuilder c(p, false);
    for (int s = 0; s <= co::kMaxStates; ++s)
        c.state(fmt::format("S{}", s), true, co::Permission::None, false, "a state");
    c.event("Load", co::ProcessorOp::Load);
    c.event("Store", co::ProcessorOp::Store);
    c.event("Evict", co::ProcessorOp::Evict);
    try {
        c.build("S0");
        FAIL() << "a table with " << co::kMaxStates + 1 << " states was compiled";
    } catch (const std::logic_error& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("too-many-states cache"), std::string::npos) << what;
        EXPECT_NE(what.find("32 states"), std::string::npos) << what;
    }
}

// A hit is an op the table completes in place: MSI loads hit wherever there is a readable copy, stores only in M,
// and nothing hits in a transient state or on an eviction.
TEST(CompiledTable, HitFlagsMarkTheOpsThatCompleteInPlace)
{
    const co::Protocol& msi = co::findProtocol("msi-directory");
    const co::CompiledTable& c = msi.cache.compiled;
    const auto hits = [&](const char* state, co::ProcessorOp op) {
        return c.hits(msi.cache.findState(state), static_cast<int>(op));
    };
    EXPECT_FALSE(hits("I", co::ProcessorOp::Load));
    EXPECT_FALSE(hits("I", co::ProcessorOp::Store));
    EXPECT_TRUE(hits("S", co::ProcessorOp::Load));
    EXPECT_FALSE(hits("S", co::ProcessorOp::Store)); // an upgrade: GetM to the home
    EXPECT_TRUE(hits("M", co::ProcessorOp::Load));
    EXPECT_TRUE(hits("M", co::ProcessorOp::Store));
    EXPECT_FALSE(hits("M", co::ProcessorOp::Evict));
    EXPECT_FALSE(hits("IS^D", co::ProcessorOp::Load)); // transient: the table stalls
    // MESI's silent E -> M upgrade changes state, so it is not a hit.
    const co::Protocol& mesi = co::findProtocol("mesi-directory");
    EXPECT_FALSE(mesi.cache.compiled.hits(mesi.cache.findState("E"), static_cast<int>(co::ProcessorOp::Store)));
    EXPECT_TRUE(mesi.cache.compiled.hits(mesi.cache.findState("E"), static_cast<int>(co::ProcessorOp::Load)));
}

// tryHit performs what the hit transition would, and the interpreter agrees, from every state random walks reach
// (messages in flight included): same block field by field, no message, and where tryHit refuses, nothing changed.
// Sealed-lease's store to a sealed block (a self-loop that performs nothing) must not count as a hit.
TEST(CompiledTable, TryHitDoesWhatTheInterpretedStepDoesOnRandomWalks)
{
    int hits = 0;
    for (const co::Protocol& p : co::allProtocols())
        for (int caches : {2, 3}) {
            std::uint64_t rng = 0x417000u + static_cast<std::uint64_t>(caches);
            for (int walk = 0; walk < 30; ++walk) {
                co::BlockSystem s(p, caches);
                for (int k = 0; k < 150; ++k) {
                    const std::uint64_t draw = coh::core::splitmix64(rng);
                    const int cache = static_cast<int>((draw >> 16) % static_cast<std::uint64_t>(caches));
                    const auto op = (draw >> 40) & 1 ? co::ProcessorOp::Store : co::ProcessorOp::Load;
                    const std::string where = fmt::format("{} walk {} step {} P{} {}", p.name, walk, k, cache,
                                                          op == co::ProcessorOp::Store ? "store" : "load");
                    co::BlockSystem viaHit = s;
                    if (viaHit.tryHit(cache, op)) {
                        ++hits;
                        co::BlockSystem viaTable = s;
                        const co::StepResult step = viaTable.issue(cache, op, viaTable.nextVersion());
                        ASSERT_EQ(step.status, co::StepStatus::Done) << where;
                        EXPECT_EQ(step.sentCount, 0) << where;
                        EXPECT_EQ(step.from, step.to) << where;
                        EXPECT_TRUE(op == co::ProcessorOp::Store ? step.stored : step.loaded) << where;
                        co::expectSameBlock(viaTable, viaHit, where);
                    } else {
                        co::expectSameBlock(s, viaHit, where + " (refused)");
                    }
                    // Move on: deliver a random deliverable message, else issue a random op.
                    std::vector<int> deliverable;
                    for (int i = 0; i < s.messageCount(); ++i)
                        if (s.canDeliver(i))
                            deliverable.push_back(i);
                    co::StepResult step;
                    if (!deliverable.empty() && (draw & 1))
                        step = s.deliver(deliverable[(draw >> 8) % deliverable.size()], s.nextVersion());
                    else
                        step = s.issue(cache, static_cast<co::ProcessorOp>((draw >> 24) % co::kProcessorOps),
                                       s.nextVersion());
                    if (co::checkAfterStep(s, step) != co::Violation::None)
                        break; // the planted bugs: a walk stops at its first violation
                }
            }
        }
    EXPECT_GT(hits, 10000); // the walks reach hits in every protocol, not just the first state
}
