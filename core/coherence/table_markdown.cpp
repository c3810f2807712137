#include "core/coherence/table_markdown.h"
#include "core/coherence/text_list.h"

#include <fmt/format.h>

namespace coh::core::coherence {

namespace {

std::string targetText(const Protocol& p, Target t)
{
    switch (t) {
    case Target::Dir:
        return homeName(p.home);
    case Target::Requestor:
        return "Req";
    case Target::Owner:
        return "Owner";
    case Target::SharersExceptRequestor:
        return "Sharers-Req";
    case Target::AllExceptRequestor:
        return "All-Req";
    }
    return "?";
}

std::string actionText(const Protocol& p, const Action& a)
{
    switch (a.kind) {
    case ActionKind::Send: {
        std::string extra;
        if (a.data == DataSource::Memory)
            extra = "mem";
        else if (a.data == DataSource::Cache)
            extra = "cache";
        else if (a.data == DataSource::StoreValue)
            extra = "value";
        if (a.acks != AckSource::None)
            appendItem(extra,
                       a.acks == AckSource::FromMessage          ? "acks=msg"
                       : a.acks == AckSource::AllExceptRequestor ? "acks=all-1"
                                                                 : "acks",
                       ",");
        return fmt::format("{}{}→{}", p.messages[a.message].name, extra.empty() ? "" : fmt::format("({})", extra),
                           targetText(p, a.to));
    }
    case ActionKind::AddRequestorToSharers:
        return "sharers+=Req";
    case ActionKind::AddOwnerToSharers:
        return "sharers+=Owner";
    case ActionKind::RemoveRequestorFromSharers:
        return "sharers-=Req";
    case ActionKind::ClearSharers:
        return "sharers={}";
    case ActionKind::SetOwnerToRequestor:
        return "owner=Req";
    case ActionKind::ClearOwner:
        return "owner=none";
    case ActionKind::WriteMemoryFromMessage:
        return "mem=msg";
    case ActionKind::CopyDataFromMessage:
        return "data=msg";
    case ActionKind::AddAcksFromMessage:
        return "acks+=msg";
    case ActionKind::DecrementAcks:
        return "acks--";
    case ActionKind::PerformLoad:
        return "load";
    case ActionKind::PerformStore:
        return "store";
    case ActionKind::PerformLoadAtHome:
        return "load@mem";
    case ActionKind::PerformStoreAtHome:
        return "store@mem=msg";
    case ActionKind::CompleteLoad:
        return "load done=msg";
    case ActionKind::CompleteStore:
        return "store done";
    }
    return "?";
}

void appendController(std::string& out, const Protocol& p, const ControllerTable& t, const std::string& title)
{
    out += fmt::format("#### {} states\n\n| State | Kind | Permission | Meaning |\n|---|---|---|---|\n", title);
    for (const StateInfo& s : t.states)
        out += fmt::format("| {} | {} | {} | {} |\n", s.name, s.stable ? "stable" : "transient",
                           permissionName(s.permission), s.meaning);

    std::string guarded;
    for (const EventInfo& e : t.events) {
        std::string guards;
        for (Guard g : e.guards)
            if (g != Guard::None)
                appendItem(guards, guardName(g), " and ");
        if (!guards.empty())
            guarded += fmt::format("{}{} = {} when {}", guarded.empty() ? "" : "; ", e.name,
                                   p.messages[e.trigger.index].name, guards);
    }
    out += fmt::format("\n#### {} transitions\n\n", title);
    if (!guarded.empty())
        out += fmt::format("Guarded events: {}.\n\n", guarded);
    out += "| State |";
    for (const EventInfo& e : t.events)
        out += fmt::format(" {} |", e.name);
    out += "\n|---|";
    for (std::size_t e = 0; e < t.events.size(); ++e)
        out += "---|";
    out += "\n";
    for (std::size_t s = 0; s < t.states.size(); ++s) {
        out += fmt::format("| {} |", t.states[s].name);
        for (std::size_t e = 0; e < t.events.size(); ++e)
            out += fmt::format(" {} |", transitionCell(p, t, static_cast<int>(s), static_cast<int>(e)));
        out += "\n";
    }
    out += "\n";
}

} // namespace

std::string transitionCell(const Protocol& p, const ControllerTable& t, int state, int event)
{
    const Transition& tr = t.at(state, event);
    if (tr.kind == EntryKind::Undefined)
        return "";
    if (tr.kind == EntryKind::Stall)
        return "stall";
    std::string cell;
    for (int k = 0; k < tr.actionCount; ++k)
        cell += (k ? "; " : "") + actionText(p, t.actions[tr.firstAction + k]);
    if (tr.next != state)
        cell += (cell.empty() ? "/ " : " / ") + t.states[tr.next].name;
    return cell.empty() ? "-" : cell;
}

std::string protocolMarkdown(const Protocol& p)
{
    std::string out =
        fmt::format("### {}: {}\n\n{}\n\n**When to pick it.** {}\n\n", p.name, p.title, p.summary, p.whenToPick);
    std::string nets;
    for (int n = 0; n < kVirtualNetworks; ++n)
        nets += fmt::format("{}{} ({})", n ? ", " : "", networkName(static_cast<VirtualNetwork>(n)),
                            p.ordered[n] ? "point-to-point FIFO" : "unordered");
    out += fmt::format("Networks: {}.\n\n", nets);
    if (p.acquireTailForWrite)
        out += "In the simulator, decode acquires the open tail block with a Store at the KV transfer, not a Load.\n\n";
    out += "#### Messages\n\n| Message | Network | Carries | Meaning |\n|---|---|---|---|\n";
    for (const MessageType& m : p.messages)
        out += fmt::format("| {} | {} | {} | {} |\n", m.name, networkName(m.network),
                           m.carriesData ? "data" : "control", m.meaning);
    out += "\n";
    appendController(out, p, p.cache, "Cache controller");
    appendController(out, p, p.directory, p.home == Home::Bus ? "Bus controller" : "Directory controller");
    return out;
}

} // namespace coh::core::coherence
