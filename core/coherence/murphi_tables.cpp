#include "core/coherence/murphi_tables.h"

#include <fmt/format.h>

#include <stdexcept>
#include <vector>

namespace coh::core::coherence {

namespace {

// "x = A | x = B | ...", or "false" for none.
std::string anyOf(const std::string& subject, const std::vector<std::string>& values)
{
    if (values.empty())
        return "false";
    std::string out;
    for (const std::string& v : values)
        out += (out.empty() ? "" : " | ") + subject + " = " + v;
    return out;
}

// Table names and explanations go into Murphi strings and comments: no quotes or line breaks there.
std::string plain(std::string s)
{
    for (char& ch : s)
        if (ch == '"' || ch == '\n' || ch == '\r')
            ch = '\'';
    return s;
}

} // namespace

void appendMurphiLine(std::string& out, int indent, std::string_view text)
{
    out.append(static_cast<std::size_t>(indent) * 2, ' ');
    out += text;
    out += '\n';
}

MurphiTableWriter::MurphiTableWriter(const Protocol& protocol, const MurphiNames& names, std::string& out)
    : m_protocol(protocol)
    , m_names(names)
    , m_out(out)
{
}

bool MurphiTableWriter::transitionStores(bool directory, int state, int event) const
{
    const ControllerTable& t = table(directory);
    const Transition& tr = t.at(state, event);
    if (tr.kind != EntryKind::Fire)
        return false;
    // Whatever consumes the step's store value: a store, or a store's value sent to the home. A bounded-staleness
    // store writes the next version, not a chosen value, so it needs no value parameter (one rule, as explored).
    for (int k = 0; k < tr.actionCount; ++k) {
        const Action& a = t.actions[tr.firstAction + k];
        if (a.kind == ActionKind::PerformStore && m_protocol.consistency != Consistency::Strong)
            continue;
        if (a.kind == ActionKind::PerformStore || (a.kind == ActionKind::Send && a.data == DataSource::StoreValue))
            return true;
    }
    return false;
}

bool MurphiTableWriter::anyDeliveryStores() const
{
    const ControllerTable& t = m_protocol.cache;
    for (std::size_t e = 0; e < t.events.size(); ++e)
        if (t.events[e].trigger.isMessage)
            for (std::size_t s = 0; s < t.states.size(); ++s)
                if (transitionStores(false, static_cast<int>(s), static_cast<int>(e)))
                    return true;
    return false;
}

std::string MurphiTableWriter::where(bool directory, int state, int event) const
{
    const ControllerTable& t = table(directory);
    return plain(fmt::format("{} in {} on {}", t.name, t.states[state].name, t.events[event].name));
}

std::string MurphiTableWriter::guardExpr(Guard g) const
{
    switch (g) {
    case Guard::None:
        return "true";
    case Guard::AckCountZero:
        return "m.acks + cache[c].acks = 0";
    case Guard::AckCountPositive:
        return "m.acks + cache[c].acks > 0";
    case Guard::LastAck:
        return "cache[c].acks = 1";
    case Guard::NotLastAck:
        return "cache[c].acks != 1";
    case Guard::FromOwner:
        return "dir.owner = m.req";
    case Guard::NotFromOwner:
        return "dir.owner != m.req";
    case Guard::LastSharer:
        return "!otherSharers(m.req)";
    case Guard::NotLastSharer:
        return "otherSharers(m.req)";
    case Guard::NoSharers:
        return "!anySharer()";
    case Guard::HasSharers:
        return "anySharer()";
    case Guard::RequestorIsSharer:
        return "dir.sharers[m.req]";
    case Guard::RequestorNotSharer:
        return "!dir.sharers[m.req]";
    case Guard::OtherCopy:
        return "otherCopy(m.req)";
    case Guard::NoOtherCopy:
        return "!otherCopy(m.req)";
    case Guard::RequestorHasCopy:
        return "copyAt(m.req)";
    case Guard::RequestorNoCopy:
        return "!copyAt(m.req)";
    }
    throw std::logic_error("murphi export: unknown guard");
}

void MurphiTableWriter::writeFunctions()
{
    line(0, "-- State properties, from the tables' state declarations.");
    for (const bool directory : {false, true}) {
        const ControllerTable& t = table(directory);
        std::vector<std::string> stable;
        for (std::size_t s = 0; s < t.states.size(); ++s)
            if (t.states[s].stable)
                stable.push_back(m_names.state(directory, static_cast<int>(s)));
        line(0, fmt::format("function {}Stable(s: {}): boolean;", directory ? "dir" : "cache",
                            directory ? "DirState" : "CacheState"));
        line(0, "begin");
        line(1, "return " + anyOf("s", stable) + ";");
        line(0, "end;");
        line(0, "");
    }
    for (const Permission p : {Permission::ReadWrite, Permission::Read}) {
        std::vector<std::string> states;
        for (std::size_t s = 0; s < m_protocol.cache.states.size(); ++s)
            if (m_protocol.cache.states[s].permission == p)
                states.push_back(m_names.state(false, static_cast<int>(s)));
        line(0,
             fmt::format("function {}(s: CacheState): boolean;", p == Permission::ReadWrite ? "canWrite" : "readOnly"));
        line(0, "begin");
        line(1, "return " + anyOf("s", states) + ";");
        line(0, "end;");
        line(0, "");
    }

    writeCopies();
    writeClassify(false);
    writeClassify(true);
    writePredicate(false, "cacheStalls", Entries::Stall);
    writePredicate(true, "dirStalls", Entries::Stall);
    writePredicate(false, "cacheStores", Entries::Store);
    writePredicate(false, "opFires", Entries::OpFire);

    line(0, "-- The table says wait: the message stays where it is (Stall).");
    line(0, "function stalled(m: Msg): boolean;");
    line(0, "begin");
    line(1, "if m.dst = DIR then return dirStalls(dir.state, dirEvent(m)) end;");
    line(1, "return cacheStalls(cache[m.dst].state, cacheEvent(m.dst, m));");
    line(0, "end;");
    line(0, "");
    line(0, "function storesOnDelivery(m: Msg): boolean;");
    line(0, "begin");
    line(1, "return m.dst != DIR & cacheStores(cache[m.dst].state, cacheEvent(m.dst, m));");
    line(0, "end;");
    line(0, "");

    writeStep(false);
    writeStep(true);
}

void MurphiTableWriter::writeCopies()
{
    std::vector<std::string> holding;
    for (std::size_t s = 0; s < m_protocol.cache.states.size(); ++s)
        if (m_protocol.cache.states[s].holdsData)
            holding.push_back(m_names.state(false, static_cast<int>(s)));
    line(0, "-- The cache states that keep a copy: what each cache drives onto a bus's shared line.");
    line(0, "function holdsCopy(s: CacheState): boolean;");
    line(0, "begin");
    line(1, "return " + anyOf("s", holding) + ";");
    line(0, "end;");
    line(0, "");
    line(0, "-- The shared line as the bus samples it when it orders node n's request (OtherCopy), and n's own copy.");
    line(0, "function otherCopy(n: NodeId): boolean;");
    line(0, "begin");
    line(1, "return exists k: CacheId do k != n & holdsCopy(cache[k].state) end;");
    line(0, "end;");
    line(0, "");
    line(0, "function copyAt(n: NodeId): boolean;");
    line(0, "begin");
    line(1, "if n = DIR then return false end;");
    line(1, "return holdsCopy(cache[n].state);");
    line(0, "end;");
    line(0, "");
}

void MurphiTableWriter::writeClassify(bool directory)
{
    const ControllerTable& t = table(directory);
    line(0,
         fmt::format("-- Which {} event an arrival is: the first, in declaration order, whose guards hold.", t.name));
    line(0,
         directory ? "function dirEvent(m: Msg): DirEvent;" : "function cacheEvent(c: CacheId; m: Msg): CacheEvent;");
    line(0, "begin");
    line(1, "switch m.mtype");
    for (std::size_t type = 0; type < m_protocol.messages.size(); ++type) {
        const TriggerEvents range = t.byTrigger[kProcessorOps + type];
        if (range.count == 0)
            continue;
        line(1, "case " + m_names.message(static_cast<int>(type)) + ":");
        for (int k = 0; k < range.count; ++k) {
            const int e = t.eventOrder[range.first + k];
            const EventInfo& info = t.events[e];
            std::vector<std::string> conditions;
            for (const Guard g : info.guards)
                if (g != Guard::None)
                    conditions.push_back(fmt::format("({})", guardExpr(g)));
            const std::string result = "return " + m_names.event(directory, e) + ";";
            if (conditions.empty()) {
                line(2, result);
                break; // later events of this trigger can never match
            }
            std::string test = conditions[0];
            for (std::size_t j = 1; j < conditions.size(); ++j)
                test += " & " + conditions[j];
            line(2, "if " + test + " then " + result + " end;");
        }
    }
    line(1, "endswitch;");
    line(1, "return " + m_names.unclassified(directory) + ";");
    line(0, "end;");
    line(0, "");
}

void MurphiTableWriter::writePredicate(bool directory, const std::string& name, Entries which)
{
    const ControllerTable& t = table(directory);
    line(0, which == Entries::Stall   ? fmt::format("-- Entries of the {} table marked Stall.", t.name)
            : which == Entries::Store ? "-- Fire entries that perform a store: such a step explores both values."
                                      : "-- Fire entries for processor ops: the ops a cache may issue.");
    line(0, fmt::format("function {}(s: {}; e: {}): boolean;", name, directory ? "DirState" : "CacheState",
                        directory ? "DirEvent" : "CacheEvent"));
    line(0, "begin");
    line(1, "switch s");
    for (std::size_t s = 0; s < t.states.size(); ++s) {
        std::vector<std::string> events;
        for (std::size_t e = 0; e < t.events.size(); ++e) {
            const EntryKind kind = t.at(static_cast<int>(s), static_cast<int>(e)).kind;
            const bool match = which == Entries::Stall ? kind == EntryKind::Stall
                               : which == Entries::Store
                                   ? transitionStores(directory, static_cast<int>(s), static_cast<int>(e))
                                   : kind == EntryKind::Fire && !t.events[e].trigger.isMessage;
            if (match)
                events.push_back(m_names.event(directory, static_cast<int>(e)));
        }
        if (!events.empty())
            line(1, "case " + m_names.state(directory, static_cast<int>(s)) + ": return " + anyOf("e", events) + ";");
    }
    line(1, "endswitch;");
    line(1, "return false;");
    line(0, "end;");
    line(0, "");
}

void MurphiTableWriter::writeStep(bool directory)
{
    const ControllerTable& t = table(directory);
    const std::string self = directory ? "dir" : "cache[c]";
    line(0, fmt::format("-- One {} transition: the actions in table order, then the next state.", t.name));
    line(0, directory ? "procedure dirStep(e: DirEvent; m: Msg);"
                      : "procedure cacheStep(c: CacheId; e: CacheEvent; m: Msg; req: NodeId; v: Value);");
    line(0, "begin");
    line(1, "if e = " + m_names.unclassified(directory) + " then");
    line(2,
         fmt::format("error \"protocol error: the {} received a message that matches none of its events\";", t.name));
    line(1, "end;");
    line(1, "switch " + self + ".state");
    for (std::size_t s = 0; s < t.states.size(); ++s) {
        line(1, "case " + m_names.state(directory, static_cast<int>(s)) + ":");
        line(2, "switch e");
        for (std::size_t e = 0; e < t.events.size(); ++e)
            if (t.at(static_cast<int>(s), static_cast<int>(e)).kind == EntryKind::Fire)
                writeTransition(directory, static_cast<int>(s), static_cast<int>(e), 2);
        line(2, "else");
        line(3, fmt::format("error \"protocol error: {} in state {} has no transition for this event\";", t.name,
                            plain(t.states[s].name)));
        line(2, "endswitch;");
    }
    line(1, "endswitch;");
    line(0, "end;");
    line(0, "");
}

void MurphiTableWriter::writeTransition(bool directory, int state, int event, int indent)
{
    const ControllerTable& t = table(directory);
    const Transition& tr = t.at(state, event);
    const std::string whereText = where(directory, state, event);
    line(indent, "case " + m_names.event(directory, event) + ":");
    line(indent + 1, plain(fmt::format("-- ({}, {}) -> {}: {}", t.states[state].name, t.events[event].name,
                                       t.states[tr.next].name, t.explanations[t.index(state, event)])));
    for (int k = 0; k < tr.actionCount; ++k)
        writeAction(directory, t.actions[tr.firstAction + k], whereText, indent + 1);
    const std::string self = directory ? "dir" : "cache[c]";
    line(indent + 1, self + ".state := " + m_names.state(directory, tr.next) + ";");
    // The interpreter drops the data copy in a state that keeps none, so a later use of it is a fault.
    if (!directory && !t.states[tr.next].holdsData)
        line(indent + 1, "cache[c].dataValid := false; cache[c].val := 0;");
}

void MurphiTableWriter::writeAction(bool directory, const Action& a, const std::string& where, int indent)
{
    const std::string req = directory ? "m.req" : "req";
    switch (a.kind) {
    case ActionKind::Send:
        writeSend(directory, a, where, indent);
        return;
    case ActionKind::AddRequestorToSharers:
        line(indent, "setSharer(" + req + ", true);");
        return;
    case ActionKind::AddOwnerToSharers:
        line(indent, "if dir.owner = NO_OWNER then error \"protocol error: " + where + ": no owner\" end;");
        line(indent, "setSharer(dir.owner, true);");
        return;
    case ActionKind::RemoveRequestorFromSharers:
        line(indent, "setSharer(" + req + ", false);");
        return;
    case ActionKind::ClearSharers:
        line(indent, "for n: CacheId do dir.sharers[n] := false end;");
        return;
    case ActionKind::SetOwnerToRequestor:
        line(indent, "dir.owner := " + req + ";");
        return;
    case ActionKind::ClearOwner:
        line(indent, "dir.owner := NO_OWNER;");
        return;
    case ActionKind::WriteMemoryFromMessage:
        line(indent, "if !m.hasData then error \"protocol error: " + where + ": the message carries no data\" end;");
        line(indent, "dir.memory := m.val;");
        return;
    case ActionKind::CopyDataFromMessage:
        line(indent, "if !m.hasData then error \"protocol error: " + where + ": the message carries no data\" end;");
        line(indent, "cache[c].val := m.val; cache[c].dataValid := true;");
        return;
    case ActionKind::AddAcksFromMessage:
        line(indent, "cache[c].acks := cache[c].acks + m.acks;");
        return;
    case ActionKind::DecrementAcks:
        line(indent, "cache[c].acks := cache[c].acks - 1;");
        return;
    case ActionKind::PerformLoad:
        line(indent,
             "if !cache[c].dataValid then error \"protocol error: " + where + ": loads without valid data\" end;");
        if (m_protocol.consistency == Consistency::Strong) {
            line(indent, "assert cache[c].val = lastWrite \"data-value: a load returned a stale value\";");
        } else {
            const int mod = m_protocol.modelValues();
            line(indent, fmt::format("assert (lastWrite - cache[c].val + {0}) % {0} <= {1} \"data-value: a load "
                                     "returned a value more than {1} version(s) stale\";",
                                     mod, m_protocol.stalenessBound));
        }
        return;
    case ActionKind::PerformStore:
        if (m_protocol.consistency == Consistency::Strong)
            line(indent, "cache[c].val := v; cache[c].dataValid := true; lastWrite := v;");
        else // the next version, as BlockSystem numbers it
            line(indent, fmt::format("lastWrite := (lastWrite + 1) % {}; cache[c].val := lastWrite; "
                                     "cache[c].dataValid := true;",
                                     m_protocol.modelValues()));
        return;
    case ActionKind::PerformLoadAtHome:
        line(indent, "assert dir.memory = lastWrite \"data-value: the home served a load a stale value\";");
        return;
    case ActionKind::PerformStoreAtHome:
        line(indent, "if !m.hasData then error \"protocol error: " + where + ": the message carries no data\" end;");
        line(indent, "dir.memory := m.val; lastWrite := m.val;");
        return;
    case ActionKind::CompleteLoad:
        line(indent, "if !m.hasData then error \"protocol error: " + where + ": the message carries no data\" end;");
        return;
    case ActionKind::CompleteStore:
        line(indent, "-- the store completes: the home already performed it");
        return;
    }
    throw std::logic_error("murphi export: unknown action");
}

void MurphiTableWriter::writeSend(bool directory, const Action& a, const std::string& where, int indent)
{
    const MessageType& type = m_protocol.messages[a.message];
    const std::string actor = directory ? "DIR" : "c";
    const std::string req = directory ? "m.req" : "req";
    // A request names its sender; everything else names the request it serves.
    const std::string requestor = type.network == VirtualNetwork::Request ? actor : req;
    std::string acks = "0";
    if (a.acks == AckSource::SharersExceptRequestor)
        acks = "sharersExcept(" + req + ")";
    else if (a.acks == AckSource::FromMessage)
        acks = "m.acks";
    else if (a.acks == AckSource::AllExceptRequestor)
        acks = "NCACHES - 1";
    std::string data = "false, 0";
    if (a.data == DataSource::Cache) {
        if (directory)
            throw std::logic_error("murphi export: the directory cannot send cache data");
        line(indent,
             "if !cache[c].dataValid then error \"protocol error: " + where + ": sends data it does not hold\" end;");
        data = "true, cache[c].val";
    } else if (a.data == DataSource::Memory) {
        data = "true, dir.memory";
    } else if (a.data == DataSource::StoreValue) {
        if (directory)
            throw std::logic_error("murphi export: the directory has no store value to send");
        data = "true, v";
    }
    const std::string call = "netSend(" + m_names.message(a.message) + ", " + actor + ", {}, " + requestor + ", " +
                             acks + ", " + data + ");";
    switch (a.to) {
    case Target::Dir:
        line(indent, fmt::format(fmt::runtime(call), "DIR"));
        return;
    case Target::Requestor:
        line(indent, fmt::format(fmt::runtime(call), req));
        return;
    case Target::Owner:
        line(indent, "if dir.owner = NO_OWNER then error \"protocol error: " + where + ": no owner\" end;");
        line(indent, fmt::format(fmt::runtime(call), "dir.owner"));
        return;
    case Target::SharersExceptRequestor:
        line(indent, "for n: CacheId do");
        line(indent + 1, "if dir.sharers[n] & n != " + req + " then " + fmt::format(fmt::runtime(call), "n") + " end;");
        line(indent, "end;");
        return;
    case Target::AllExceptRequestor:
        line(indent, "for n: CacheId do");
        line(indent + 1, "if n != " + req + " then " + fmt::format(fmt::runtime(call), "n") + " end;");
        line(indent, "end;");
        return;
    }
    throw std::logic_error("murphi export: unknown send target");
}

void MurphiTableWriter::writeRules()
{
    writeOpRule();
    writeDeliveryRule();
}

void MurphiTableWriter::writeOpRule()
{
    // One rule for all three ops, for the same reason as the single delivery rule; `e` names the op in traces.
    line(0,
         "-- A processor op at any cache whose state has a Fire entry for it (Stall and undefined entries leave the");
    line(0, "-- op unissued, as in the explorer); a store explores both values.");
    line(0, "ruleset c: CacheId; e: CacheEvent; v: Value do");
    line(1, "rule \"issue\"");
    line(2, "opFires(cache[c].state, e) & (v = 0 | cacheStores(cache[c].state, e))");
    line(1, "==>");
    line(1, "var none: Msg;");
    line(1, "begin");
    line(2, "clear none;");
    line(2, "cacheStep(c, e, none, c, v);");
    line(1, "end;");
    line(0, "end;");
    line(0, "");
}

void MurphiTableWriter::writeDeliveryRule()
{
    // One rule for every message type: Rumur copies a called procedure into each call site, so a rule per type
    // would multiply the generation time. The ruleset's `t` still names the type in every trace step.
    const bool value = anyDeliveryStores();
    line(0, "-- Delivery of in-flight message i, of type t, at its destination: it must be deliverable (the oldest on");
    line(0, "-- its channel when its network is ordered) and not stalled there.");
    line(0, value ? "ruleset t: MsgType; i: MsgIndex; v: Value do" : "ruleset t: MsgType; i: MsgIndex do");
    line(1, "rule \"deliver\"");
    std::string guard = "i < netCount & net[i].mtype = t & deliverable(i) & !stalled(net[i])";
    if (value)
        guard += " & (v = 0 | storesOnDelivery(net[i]))";
    line(2, guard);
    line(1, "==>");
    line(1, "var m: Msg;");
    line(1, "begin");
    line(2, "m := net[i];");
    line(2, "netRemove(i);");
    line(2, "if m.dst = DIR then");
    line(3, "dirStep(dirEvent(m), m);");
    line(2, "else");
    line(3, fmt::format("cacheStep(m.dst, cacheEvent(m.dst, m), m, m.req, {});", value ? "v" : "0"));
    line(2, "end;");
    line(1, "end;");
    line(0, "end;");
    line(0, "");
}

} // namespace coh::core::coherence
