// Reads /topology: nodes with their compute and memory tiers, and the links between them.
#include "core/scenario/input_limits.h"
#include "core/scenario/node_kinds.h"
#include "core/scenario/scenario_sections.h"
#include "core/scenario/strict_json.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <unordered_set>

namespace coh::core {

using nlohmann::json;

namespace {

constexpr const char* kHbmExample = R"({ "tier": "hbm", "capacity": "80 GB", "bandwidth": "3.35 TB/s" })";

bool servesRole(NodeRole role)
{
    return role == NodeRole::Prefill || role == NodeRole::Decode || role == NodeRole::Both;
}

// Returns false when any tier had a problem (so "no hbm tier" is not reported on top of it).
bool readMemory(ProblemList& problems, const json& value, const std::string& pointer, Node& node)
{
    if (!value.is_array()) {
        problems.add(pointer, fmt::format("memory must be an array of tiers, not {}", describeJsonType(value)),
                     fmt::format("write \"memory\": [ {} ]", kHbmExample));
        return false;
    }
    const std::size_t before = problems.size();
    for (std::size_t i = 0; i < value.size(); ++i) {
        ObjectReader r(problems, value[i], jsonPointer(pointer, i), kHbmExample);
        auto tier = r.enumeration<Tier>("tier", requiredAs("\"hbm\""));
        auto capacity = r.quantity(Quantity::Bytes, "capacity", requiredAs(""));
        auto bandwidth = r.quantity(Quantity::Bandwidth, "bandwidth", requiredAs(""));
        r.finish();
        if (tier && node.tier(*tier)) {
            r.problem("tier", fmt::format("node '{}' lists tier '{}' twice", node.id, toString(*tier)),
                      "merge the two entries into one (add their capacities)");
            continue;
        }
        if (tier && capacity && bandwidth)
            node.memory.push_back({*tier, *capacity, *bandwidth});
    }
    return problems.size() == before;
}

void readCompute(ObjectReader& nodeReader, const json& value, Node& node)
{
    ObjectReader r(nodeReader.problems(), value, nodeReader.pointerTo("compute"),
                   R"({ "peak_flops": "989 TFLOP/s", "memory_bandwidth": "3.35 TB/s" })");
    auto peak = r.quantity(Quantity::Flops, "peak_flops", requiredAs(""));
    auto bandwidth = r.quantity(Quantity::Bandwidth, "memory_bandwidth");
    r.finish();
    node.compute.peakFlops = peak.value_or(0);
    if (bandwidth)
        node.compute.memoryBandwidthBytesPerSec = *bandwidth;
}

Node readNode(ProblemList& problems, const json& value, const std::string& pointer)
{
    Node node;
    ObjectReader r(problems, value, pointer, R"({ "id": "gpu0", "kind": "gpu", "role": "prefill", ... })");
    node.id = r.string("id", requiredAs("\"gpu0\"")).value_or("");
    node.kind = r.enumeration<NodeKind>("kind", requiredAs("\"gpu\"")).value_or(NodeKind::Gpu);
    node.role = r.enumeration<NodeRole>("role").value_or(NodeRole::None);
    // A part the kind does not have (compute on a cxl_memory node) is refused, not silently ignored.
    const auto partOf = [&](NodePart part) -> const json* {
        if (nodeKindHas(node.kind, part))
            return r.get(nodePartKey(part));
        r.rejectKeys({nodePartKey(part)}, fmt::format("is not part of a {} node (only {} nodes have it)",
                                                      toString(node.kind), kindsWith(part)));
        return nullptr;
    };
    const json* compute = partOf(NodePart::Compute);
    const json* memory = partOf(NodePart::Memory);
    const json* position = r.get("position");
    node.source = r.string("source").value_or("");
    r.finish();
    if (!r.valid())
        return node;
    if (r.get("id") && node.id.empty())
        r.problem("id", "node id is empty", "give the node a name, e.g. \"id\": \"gpu0\"");

    bool memoryClean = memory ? readMemory(problems, *memory, r.pointerTo("memory"), node) : true;
    if (compute)
        readCompute(r, *compute, node);
    if (compute && node.compute.memoryBandwidthBytesPerSec == 0 && compute->is_object() &&
        !compute->contains("memory_bandwidth")) {
        // Default documented in scenario-format.md: the hbm tier's bandwidth, else the first tier's.
        if (const MemoryTier* hbm = node.tier(Tier::Hbm))
            node.compute.memoryBandwidthBytesPerSec = hbm->bandwidthBytesPerSec;
        else if (!node.memory.empty())
            node.compute.memoryBandwidthBytesPerSec = node.memory.front().bandwidthBytesPerSec;
        else if (memoryClean)
            problems.add(jsonPointer(r.pointerTo("compute"), "memory_bandwidth"),
                         fmt::format("node '{}' has no memory_bandwidth and no memory tier to take it from", node.id),
                         "add \"memory_bandwidth\": \"3.35 TB/s\" to compute, or a memory tier");
    }
    if (position) {
        if (position->is_array() && position->size() == 2 && (*position)[0].is_number() && (*position)[1].is_number()) {
            node.x = (*position)[0].get<double>();
            node.y = (*position)[1].get<double>();
        } else {
            r.problem("position", fmt::format("position must be two numbers [x, y], not {}", jsonExcerpt(*position)),
                      "write \"position\": [120, 40] or remove it");
        }
    }

    if (servesRole(node.role)) {
        if (!nodeKindHas(node.kind, NodePart::Compute))
            r.problem("role",
                      fmt::format("node '{}' has role '{}', but a {} node does not compute", node.id,
                                  toString(node.role), toString(node.kind)),
                      fmt::format("remove the role, or make the node one of: {}", kindsWith(NodePart::Compute)));
        else if (!compute)
            r.problem("compute", fmt::format("node '{}' has role '{}' but no compute", node.id, toString(node.role)),
                      "add \"compute\": { \"peak_flops\": \"989 TFLOP/s\" } from the device's datasheet, or remove "
                      "the role");
        if (memoryClean && nodeKindHas(node.kind, NodePart::Compute) && !node.tier(Tier::Hbm))
            r.problem("memory",
                      fmt::format("node '{}' has role '{}' but no hbm tier (KV blocks live in HBM)", node.id,
                                  toString(node.role)),
                      fmt::format("add {} to \"memory\", or remove the role", kHbmExample));
    }
    return node;
}

Link readLink(ProblemList& problems, const json& value, const std::string& pointer,
              const std::vector<std::string>& nodeIds, const std::unordered_set<std::string>& knownNodes)
{
    Link link;
    ObjectReader r(
        problems, value, pointer,
        R"({ "a": "gpu0", "b": "nvswitch", "kind": "nvlink", "latency": "0.7 us", "bandwidth": "450 GB/s" })");
    auto id = r.string("id");
    auto a = r.string("a", requiredAs("\"gpu0\""));
    auto b = r.string("b", requiredAs("\"gpu1\""));
    link.kind = r.enumeration<LinkKind>("kind", requiredAs("\"nvlink\"")).value_or(LinkKind::Pcie);
    link.latency = r.time("latency", requiredAs("")).value_or(0);
    link.bandwidthBytesPerSec = r.quantity(Quantity::Bandwidth, "bandwidth", requiredAs("")).value_or(0);
    link.source = r.string("source").value_or("");
    r.finish();
    link.a = a.value_or("");
    link.b = b.value_or("");
    link.id = id.value_or(link.a + "-" + link.b);
    if (id && id->empty())
        r.problem("id", "link id is empty", "remove \"id\" (it defaults to \"a-b\") or give a name");

    for (const char* end : {"a", "b"}) {
        const std::string& name = *end == 'a' ? link.a : link.b;
        if (!(*end == 'a' ? a : b) || knownNodes.count(name) || problems.full())
            continue;
        std::string message = fmt::format("unknown node '{}' in link", name);
        if (auto near = closestName(name, nodeIds))
            message += fmt::format("; did you mean '{}'?", *near);
        message += fmt::format(" (known nodes: {})", joinNames(nodeIds));
        r.problem(
            end, message,
            fmt::format("use one of the node ids above, or add a node with \"id\": \"{}\" to /topology/nodes", name));
    }
    if (a && b && *a == *b)
        r.problem("b", fmt::format("link connects node '{}' to itself", *a),
                  "set \"b\" to the node at the other end of the link");
    return link;
}

} // namespace

void readTopology(ObjectReader& top, Topology& topology)
{
    const json* value = top.get("topology", requiredAs(R"({ "nodes": [ ... ], "links": [ ... ] })"));
    if (!value)
        return;
    ProblemList& problems = top.problems();
    ObjectReader r(problems, *value, top.pointerTo("topology"), R"({ "nodes": [ ... ], "links": [ ... ] })");
    const json* nodes = r.get("nodes", requiredAs(R"([ { "id": "gpu0", "kind": "gpu", "role": "prefill", ... } ])"));
    const json* links = r.get("links");
    r.finish();

    std::vector<std::string> nodeIds;
    std::unordered_set<std::string> knownNodes;
    // Counts are checked before anything is built for them (input_limits.h).
    const auto tooMany = [&](const char* key, const json* list, std::uint32_t limit) {
        if (!list || !list->is_array() || list->size() <= limit)
            return false;
        r.problem(key, fmt::format("the topology has {} {}; one run takes at most {}", list->size(), key, limit),
                  "model a part of the system, or group devices into fewer, larger nodes");
        return true;
    };
    const bool tooManyNodes = tooMany("nodes", nodes, kMaxNodes);
    const bool tooManyLinks = tooMany("links", links, kMaxLinks); // both are reported
    // Stop here: every later section names nodes this one did not read, and would add problems that are not
    // ("there is no prefill instance").
    if (tooManyNodes || tooManyLinks)
        problems.throwIfAny();
    if (nodes && !nodes->is_array()) {
        r.problem("nodes", fmt::format("nodes must be an array, not {}", describeJsonType(*nodes)),
                  "write \"nodes\": [ { \"id\": \"gpu0\", ... } ]");
    } else if (nodes && nodes->empty()) {
        r.problem("nodes", "the topology has no nodes", "add at least one node that can serve (role \"both\")");
    } else if (nodes) {
        for (std::size_t i = 0; i < nodes->size(); ++i) {
            std::string pointer = jsonPointer(r.pointerTo("nodes"), i);
            Node node = readNode(problems, (*nodes)[i], pointer);
            if (!node.id.empty() && !knownNodes.insert(node.id).second)
                problems.add(jsonPointer(pointer, "id"), fmt::format("node id '{}' is used twice", node.id),
                             "give every node its own id");
            else if (!node.id.empty())
                nodeIds.push_back(node.id);
            topology.nodes.push_back(std::move(node));
        }
    }

    if (links && !links->is_array()) {
        r.problem("links", fmt::format("links must be an array, not {}", describeJsonType(*links)),
                  "write \"links\": [ { \"a\": \"gpu0\", \"b\": \"gpu1\", ... } ]");
        return;
    }
    if (!links)
        return;
    std::set<std::string> linkIds;
    for (std::size_t i = 0; i < links->size(); ++i) {
        std::string pointer = jsonPointer(r.pointerTo("links"), i);
        Link link = readLink(problems, (*links)[i], pointer, nodeIds, knownNodes);
        if (!linkIds.insert(link.id).second)
            problems.add((*links)[i].is_object() && (*links)[i].contains("id") ? jsonPointer(pointer, "id") : pointer,
                         fmt::format("link id '{}' is used twice", link.id),
                         "give parallel links their own \"id\" (ids default to \"a-b\")");
        topology.links.push_back(std::move(link));
    }
}

} // namespace coh::core
