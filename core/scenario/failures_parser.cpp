// Reads /failures (node and link failures, their detection and the recovery of the requests they hit) and checks
// it against the topology and the instances.
#include "core/scenario/scenario_sections.h"
#include "core/scenario/strict_json.h"

#include <fmt/format.h>

#include <algorithm>

namespace coh::core {

using nlohmann::json;

namespace {

constexpr const char* kFailuresExample =
    R"({ "events": [{ "node": "gpu4", "at": "20 s", "repair": "60 s" }], "recovery": "recompute" })";
constexpr const char* kEventExample = R"({ "node": "gpu4", "at": "20 s", "repair": "60 s" })";
// A list longer than this is a generated file gone wrong, not a failure plan (mtbf covers repeated failures).
constexpr std::size_t kMaxFailureEvents = 1000;

FailureEventSpec readEvent(ProblemList& problems, const json& value, const std::string& pointer)
{
    FailureEventSpec event;
    ObjectReader r(problems, value, pointer, kEventExample);
    if (!r.valid())
        return event;
    event.node = r.string("node").value_or("");
    event.link = r.string("link").value_or("");
    event.at = r.time("at");
    event.mtbf = r.time("mtbf", kOptional, false);
    event.repair = r.time("repair", kOptional, false);
    r.finish();
    if (value.is_object() && value.contains("node") == value.contains("link"))
        r.problem(value.contains("node") ? "link" : "node",
                  value.contains("node") ? "a failure names either a \"node\" or a \"link\", not both"
                                         : "the failure names neither the \"node\" nor the \"link\" that fails",
                  value.contains("node") ? "keep one of them (two failures need two entries)"
                                         : "add \"node\": \"gpu4\", or \"link\": \"gpu4-switch\"");
    if (event.at && event.mtbf)
        r.problem("mtbf", "a failure has either \"at\" (one failure) or \"mtbf\" (failures at random), not both",
                  "remove one of them");
    else if (!event.at && !event.mtbf && value.is_object() && !value.contains("at") && !value.contains("mtbf"))
        r.problem("at", "the failure says neither when (\"at\") nor how often (\"mtbf\") it fails",
                  "add \"at\": \"20 s\", or \"mtbf\": \"600 s\" with a \"repair\" time");
    if (event.mtbf && !event.repair && !value.contains("repair"))
        r.problem("repair", "failures at random (\"mtbf\") need a repair time: what fails must come back to fail again",
                  "add \"repair\": \"60 s\"");
    return event;
}

// The ids of the topology's nodes or links, to list the ones a wrong id could have meant.
template <typename Items> std::vector<std::string> idsOf(const Items& items)
{
    std::vector<std::string> ids;
    for (const auto& item : items)
        ids.push_back(item.id);
    return ids;
}

void checkLinkFailure(const Scenario& s, const FailureEventSpec& event, const std::string& pointer,
                      ProblemList& problems)
{
    const auto named = std::count_if(s.topology.links.begin(), s.topology.links.end(),
                                     [&](const Link& l) { return l.id == event.link; });
    if (named > 1)
        problems.add(
            jsonPointer(pointer, "link"),
            fmt::format("{} links have the id '{}' (a link without an \"id\" is named \"a-b\")", named, event.link),
            "give the links distinct \"id\"s in topology.links and name one here");
    if (named > 0)
        return;
    problems.add(jsonPointer(pointer, "link"),
                 fmt::format("link '{}' is not in the topology (known links: {})", event.link,
                             joinNames(idsOf(s.topology.links))),
                 "use the id of a link of the topology");
}

// Links that fail and never come back must not cut the topology apart: the messages between the parts would wait for
// ever, and with them the requests (a partition that heals is modelled: its messages wait for the repair).
void checkPartitions(const Scenario& s, const std::vector<int>& component, ProblemList& problems)
{
    const Topology& topology = s.topology;
    std::vector<std::uint8_t> gone(topology.links.size(), 0);
    std::vector<std::size_t> entries;
    for (std::size_t i = 0; i < s.failures.events.size(); ++i) {
        const FailureEventSpec& event = s.failures.events[i];
        const auto link = event.isLink() ? topology.linkIndex(event.link) : std::nullopt;
        if (link && !event.repair) {
            gone[*link] = 1;
            entries.push_back(i);
        }
    }
    if (entries.empty() || component.empty())
        return;
    // Two nodes the whole topology connects must stay connected: each against the first node of its component.
    const std::vector<int> left = linkComponents(topology, gone);
    std::vector<std::uint32_t> first(topology.nodes.size(), UINT32_MAX); // per component of the whole topology
    for (std::uint32_t n = 0; n < topology.nodes.size(); ++n) {
        std::uint32_t& other = first[static_cast<std::size_t>(component[n])];
        if (other == UINT32_MAX)
            other = n;
        if (left[n] == left[other])
            continue;
        const std::size_t last = entries.back();
        problems.add(jsonPointer(jsonPointer("/failures/events", last), "link"),
                     fmt::format("link '{}'{} failing for good cuts node '{}' off from node '{}': messages between "
                                 "them would wait for ever",
                                 s.failures.events[last].link,
                                 entries.size() > 1 ? " (with the other links that never come back)" : "",
                                 topology.nodes[n].id, topology.nodes[other].id),
                     "give the link a \"repair\" time, or add a link that offers another path");
        return;
    }
}

} // namespace

void readFailures(ObjectReader& top, FailuresSpec& failures)
{
    const json* value = top.get("failures");
    if (!value)
        return;
    ObjectReader r(top.problems(), *value, top.pointerTo("failures"), kFailuresExample);
    if (!r.valid())
        return;
    failures.recovery = r.enumeration<FailureRecovery>("recovery").value_or(failures.recovery);
    if (const json* detection = r.get("detection")) {
        ObjectReader d(top.problems(), *detection, r.pointerTo("detection"),
                       R"({ "heartbeat": "100 ms", "timeout": "500 ms" })");
        failures.heartbeat = d.time("heartbeat", kOptional, false).value_or(failures.heartbeat);
        failures.timeout = d.time("timeout", kOptional, false).value_or(failures.timeout);
        d.finish();
        if (d.valid() && failures.timeout < failures.heartbeat)
            d.problem("timeout", "the timeout is shorter than the heartbeat period: every node would look dead",
                      "make \"timeout\" at least the heartbeat period (a few periods is usual)");
    }
    const json* events = r.get("events", requiredAs(fmt::format("[{}]", kEventExample).c_str()));
    r.finish();
    if (!events)
        return;
    const std::string pointer = r.pointerTo("events");
    if (!events->is_array() || events->empty() || events->size() > kMaxFailureEvents) {
        top.problems().add(
            pointer,
            !events->is_array() ? fmt::format("events must be an array, not {}", describeJsonType(*events))
            : events->empty()
                ? std::string("events lists no failure")
                : fmt::format("events lists {} failures; at most {} are read", events->size(), kMaxFailureEvents),
            fmt::format("write \"events\": [{}] (\"mtbf\" repeats a failure), or remove \"failures\"", kEventExample));
        return;
    }
    for (std::size_t i = 0; i < events->size(); ++i)
        failures.events.push_back(readEvent(top.problems(), (*events)[i], jsonPointer(pointer, i)));
}

void checkFailures(const Scenario& s, const std::vector<int>& component, ProblemList& problems)
{
    const FailuresSpec& failures = s.failures;
    for (std::size_t i = 0; i < failures.events.size(); ++i) {
        const FailureEventSpec& event = failures.events[i];
        const std::string pointer = jsonPointer("/failures/events", i);
        if (event.mtbf && *event.mtbf < failures.heartbeat)
            problems.add(jsonPointer(pointer, "mtbf"), "the mean time between failures is shorter than a heartbeat",
                         "make \"mtbf\" longer than detection.heartbeat (real MTBFs are hours)");
        if (event.isLink()) {
            checkLinkFailure(s, event, pointer, problems);
            continue;
        }
        if (event.node.empty())
            continue; // reported by the reader
        if (!s.topology.nodeIndex(event.node)) {
            problems.add(jsonPointer(pointer, "node"),
                         fmt::format("node '{}' is not in the topology (known nodes: {})", event.node,
                                     joinNames(idsOf(s.topology.nodes))),
                         "use the id of a node that runs a serving instance");
            continue;
        }
        std::vector<const InstanceSpec*> hosted;
        for (const InstanceSpec& instance : s.serving.instances)
            if (std::find(instance.nodes.begin(), instance.nodes.end(), event.node) != instance.nodes.end())
                hosted.push_back(&instance);
        // What else a node holds (replicas, tiers, the prefix pool, a directory) is lost with it too, but only
        // instance nodes are modelled failing so far (docs/engine.md#failures says what is left out).
        if (hosted.empty()) {
            problems.add(
                jsonPointer(pointer, "node"),
                fmt::format("node '{}' runs no serving instance; only instance nodes can fail so far", event.node),
                "name a node that runs a prefill or decode instance");
            continue;
        }
        const bool prefill = std::any_of(hosted.begin(), hosted.end(),
                                         [](const InstanceSpec* h) { return h->role == InstanceRole::Prefill; });
        if (prefill && s.serving.prefixPool.enabled)
            problems.add(jsonPointer(pointer, "node"),
                         fmt::format("node '{}' runs a prefill instance that loads from the prefix pool; failures of "
                                     "such nodes are not modelled yet",
                                     event.node),
                         "fail a decode node, or remove serving.prefix_pool");
    }
    checkPartitions(s, component, problems);
}

} // namespace coh::core
