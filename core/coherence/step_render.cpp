#include "core/coherence/step_render.h"
#include "core/coherence/text_list.h"

#include <fmt/format.h>

namespace coh::core::coherence {

nlohmann::ordered_json messageToJson(const MessageView& m)
{
    nlohmann::ordered_json j = {
        {"kind", m.kind}, {"from", m.from}, {"to", m.to}, {"data", nullptr}, {"ack_count", m.ackCount}};
    if (m.data)
        j["data"] = *m.data;
    return j;
}

nlohmann::ordered_json stepToJson(const StepRecord& step)
{
    nlohmann::ordered_json j;
    j["index"] = step.index;
    if (step.block >= 0)
        j["block"] = step.block;
    if (step.message)
        j["message"] = messageToJson(*step.message);
    else
        j["op"] = step.op;
    j["actor"] = step.actor;
    j["event"] = step.event;
    j["from_state"] = step.fromState;
    j["to_state"] = step.toState;
    j["messages_sent"] = nlohmann::ordered_json::array();
    for (const MessageView& m : step.sent)
        j["messages_sent"].push_back(messageToJson(m));
    j["caches"] = nlohmann::ordered_json::array();
    for (const CacheView& c : step.caches) {
        nlohmann::ordered_json cache = {{"name", c.name}, {"state", c.state}, {"data", nullptr}};
        if (c.data)
            cache["data"] = *c.data;
        j["caches"].push_back(cache);
    }
    // A bus keeps no sharer list: null, not an empty one.
    j["directory"] = {{"state", step.directory.state},
                      {"sharers", step.directory.tracksSharers ? nlohmann::ordered_json(step.directory.sharers)
                                                               : nlohmann::ordered_json()},
                      {"owner", step.directory.owner.empty() ? nlohmann::ordered_json()
                                                             : nlohmann::ordered_json(step.directory.owner)},
                      {"memory", step.directory.memory}};
    j["explanation"] = step.explanation;
    j["loaded"] = step.loaded ? nlohmann::ordered_json(*step.loaded) : nlohmann::ordered_json();
    j["stored"] = step.stored ? nlohmann::ordered_json(*step.stored) : nlohmann::ordered_json();
    return j;
}

std::string messageToText(const MessageView& m)
{
    std::string s = fmt::format("{} {}->{}", m.kind, m.from, m.to);
    if (m.data)
        s += fmt::format(" data={}", *m.data);
    if (m.ackCount != 0)
        s += fmt::format(" acks={}", m.ackCount);
    return s;
}

std::string stepToText(const StepRecord& step)
{
    std::string head =
        step.block >= 0 ? fmt::format("[{}] block {}: ", step.index, step.block) : fmt::format("[{}] ", step.index);
    if (step.message)
        head += fmt::format("{} receives {}", step.actor, messageToText(*step.message));
    else
        head += fmt::format("{} issues {} ({})", step.actor, step.event, step.op);
    head += fmt::format(": {} -> {}", step.fromState, step.toState);
    if (step.message)
        head += fmt::format("  [{}]", step.event);
    if (step.loaded)
        head += fmt::format("  loaded {}", *step.loaded);
    if (step.stored)
        head += fmt::format("  stored {}", *step.stored);

    std::string sent;
    for (const MessageView& m : step.sent)
        appendItem(sent, messageToText(m));
    std::string caches;
    for (const CacheView& c : step.caches)
        caches += fmt::format("{}{}={}", caches.empty() ? "" : " ", c.name, c.state);
    std::string sharers;
    for (const std::string& s : step.directory.sharers)
        appendItem(sharers, s, ",");
    const std::string owner = step.directory.owner.empty() ? "-" : step.directory.owner;
    // A bus has no sharer list to show: who holds a copy is in the cache states on the same line.
    const std::string home =
        step.directory.tracksSharers
            ? fmt::format("{}={} sharers={{{}}}", step.directory.name, step.directory.state, sharers)
            : fmt::format("{}={}", step.directory.name, step.directory.state);

    std::string out = head + "\n";
    out += fmt::format("    sent: {}\n", sent.empty() ? "nothing" : sent);
    out += fmt::format("    now:  {} | {} owner={} memory={}\n", caches, home, owner, step.directory.memory);
    if (!step.explanation.empty())
        out += "    why:  " + step.explanation + "\n";
    return out;
}

} // namespace coh::core::coherence
