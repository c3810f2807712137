#include "core/coherence/step_record.h"
#include "core/coherence/text_list.h"

#include <fmt/format.h>

#include <bit>

namespace coh::core::coherence {

std::string nodeName(const Protocol& protocol, std::uint8_t node)
{
    if (node == kDirNode)
        return homeName(protocol.home);
    if (node == kNoNode)
        return "none";
    return fmt::format("P{}", node);
}

std::string opLabel(int cache, ProcessorOp op)
{
    const char letter = op == ProcessorOp::Load ? 'R' : op == ProcessorOp::Store ? 'W' : 'E';
    return fmt::format("P{}:{}", cache, letter);
}

MessageView viewMessage(const BlockSystem& system, const Message& m)
{
    MessageView v;
    v.kind = system.protocol().messages[m.type].name;
    v.from = nodeName(system.protocol(), m.src);
    v.to = nodeName(system.protocol(), m.dst);
    if (m.hasData)
        v.data = m.value;
    v.ackCount = m.ackCount;
    return v;
}

void snapshot(const BlockSystem& system, StepRecord& record)
{
    const Protocol& p = system.protocol();
    record.caches.clear();
    for (int c = 0; c < system.caches(); ++c) {
        const CacheLine& line = system.line(c);
        CacheView view{nodeName(p, static_cast<std::uint8_t>(c)), p.cache.states[line.state].name, std::nullopt};
        if (line.dataValid)
            view.data = line.value;
        record.caches.push_back(std::move(view));
    }
    const DirectoryEntry& dir = system.directory();
    record.directory.name = homeName(p.home);
    record.directory.state = p.directory.states[dir.state].name;
    record.directory.tracksSharers = homeTracksSharers(p.home);
    record.directory.sharers.clear();
    for (int c = 0; c < system.caches(); ++c)
        if (dir.sharers & (1u << c))
            record.directory.sharers.push_back(nodeName(p, static_cast<std::uint8_t>(c)));
    record.directory.owner = dir.owner == kNoNode ? "" : nodeName(p, dir.owner);
    record.directory.memory = dir.memory;
}

std::string explainStep(const BlockSystem& before, const Move& move, const StepResult& result)
{
    const Protocol& p = before.protocol();
    const ControllerTable& table = result.atDirectory ? p.directory : p.cache;
    const std::string& text = table.explanations[result.transition];
    std::uint8_t requestor = result.actor;
    std::uint8_t src = result.actor;
    if (move.deliver) {
        requestor = before.message(move.index).requestor;
        src = before.message(move.index).src;
    }
    const DirectoryEntry& dir = before.directory();
    const unsigned others = dir.sharers & ~(requestor < kMaxCaches ? 1u << requestor : 0u);
    std::string othersText;
    for (int c = 0; c < before.caches(); ++c)
        if (others & (1u << c))
            appendItem(othersText, nodeName(p, static_cast<std::uint8_t>(c)));
    if (othersText.empty())
        othersText = "none";

    // "P0 has no copy, ..." needs no "P0: " in front; other sentences get the actor as a prefix.
    std::string out;
    if (!text.starts_with("{self}"))
        out.append(nodeName(p, result.actor)).append(": ");
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] != '{') {
            out += text[i];
            continue;
        }
        const std::size_t close = text.find('}', i);
        if (close == std::string::npos) {
            out += text.substr(i);
            break;
        }
        const std::string key = text.substr(i + 1, close - i - 1);
        if (key == "self")
            out += nodeName(p, result.actor);
        else if (key == "req")
            out += nodeName(p, requestor);
        else if (key == "src")
            out += nodeName(p, src);
        else if (key == "owner")
            out += nodeName(p, dir.owner);
        else if (key == "others")
            out += othersText;
        else if (key == "acks")
            out += std::to_string(std::popcount(others));
        else
            out.append("{").append(key).append("}");
        i = close;
    }
    return out;
}

StepRecord recordStep(const BlockSystem& before, const Move& move, const StepResult& result, const BlockSystem& after,
                      int index)
{
    const Protocol& p = before.protocol();
    const ControllerTable& table = result.atDirectory ? p.directory : p.cache;
    StepRecord r;
    r.index = index;
    if (move.deliver)
        r.message = viewMessage(before, before.message(move.index));
    else
        r.op = opLabel(move.index, move.op);
    r.actor = nodeName(p, result.actor);
    r.event = result.status == StepStatus::Unclassified ? r.message->kind + " (no event matches)"
                                                        : table.events[result.event].name;
    r.fromState = table.states[result.from].name;
    r.toState = table.states[result.to].name;
    for (int i = 0; i < result.sentCount; ++i)
        r.sent.push_back(viewMessage(after, after.message(result.firstSent + i)));
    snapshot(after, r);
    if (result.status == StepStatus::Done || result.status == StepStatus::Fault)
        r.explanation = explainStep(before, move, result);
    if (result.loaded)
        r.loaded = result.value;
    if (result.stored)
        r.stored = result.value;
    return r;
}

} // namespace coh::core::coherence
