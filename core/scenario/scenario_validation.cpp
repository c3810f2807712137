// Checks that span sections: which instances exist, whether their nodes can serve and hold the model, and
// whether every prefill instance can send KV to every decode instance.
#include "core/coherence/protocol_table.h"
#include "core/scenario/replica_nodes.h"
#include "core/scenario/scenario_sections.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <queue>

namespace coh::core {

namespace {

const std::string kNodesPointer = "/topology/nodes";
const std::string kInstancesPointer = "/serving/instances";

// Where a problem with instance i is reported: its JSON entry, or the node it was derived from.
struct InstanceOrigin {
    std::string pointer;
    std::vector<std::uint32_t> nodes; // topology indices; empty when a node is unknown
    bool nodesUsable = true;          // every node exists, computes and has HBM
};

void deriveInstances(Scenario& s, std::vector<InstanceOrigin>& origins)
{
    s.serving.instances = instancesFromNodeRoles(s.topology.nodes);
    for (const InstanceSpec& instance : s.serving.instances) {
        const std::uint32_t i = *s.topology.nodeIndex(instance.nodes.front());
        const Node& node = s.topology.nodes[i];
        origins.push_back({jsonPointer(kNodesPointer, i), {i}, node.canCompute() && node.tier(Tier::Hbm)});
    }
}

// Explicit instances: resolve node names, check each can serve. Nodes with a serving role were already
// checked where they are declared, so only the others are reported here.
void checkExplicitInstances(Scenario& s, std::vector<InstanceOrigin>& origins, ProblemList& problems)
{
    std::vector<std::string> nodeIds;
    for (const auto& node : s.topology.nodes)
        nodeIds.push_back(node.id);
    std::vector<std::string> seenIds;
    std::uint32_t count[2] = {0, 0};
    for (std::size_t k = 0; k < s.serving.instances.size(); ++k) {
        InstanceSpec& instance = s.serving.instances[k];
        InstanceOrigin origin{jsonPointer(kInstancesPointer, k), {}, true};
        if (instance.id.empty())
            instance.id = fmt::format("{}{}", toString(instance.role), count[static_cast<int>(instance.role)]);
        ++count[static_cast<int>(instance.role)];
        if (std::find(seenIds.begin(), seenIds.end(), instance.id) != seenIds.end())
            problems.add(jsonPointer(origin.pointer, "id"), fmt::format("instance id '{}' is used twice", instance.id),
                         "give every instance its own id");
        seenIds.push_back(instance.id);

        for (std::size_t j = 0; j < instance.nodes.size(); ++j) {
            const std::string& name = instance.nodes[j];
            std::string pointer = jsonPointer(jsonPointer(origin.pointer, "nodes"), j);
            auto index = s.topology.nodeIndex(name);
            if (!index) {
                origin.nodesUsable = false;
                if (name.empty())
                    continue; // a non-string entry, already reported
                std::string message = fmt::format("unknown node '{}' in instance '{}'", name, instance.id);
                if (auto near = closestName(name, nodeIds))
                    message += fmt::format("; did you mean '{}'?", *near);
                problems.add(pointer, message + fmt::format(" known nodes: {}", joinNames(nodeIds)),
                             "use an id from /topology/nodes");
                continue;
            }
            origin.nodes.push_back(*index);
            const Node& node = s.topology.nodes[*index];
            bool declaredServing =
                node.role == NodeRole::Prefill || node.role == NodeRole::Decode || node.role == NodeRole::Both;
            if (!node.canCompute()) {
                origin.nodesUsable = false;
                if (!declaredServing)
                    problems.add(
                        pointer,
                        fmt::format("node '{}' has no compute, so it cannot run instance '{}'", name, instance.id),
                        fmt::format("add \"compute\": {{ \"peak_flops\": \"989 TFLOP/s\" }} to node '{}', or "
                                    "use a GPU or accelerator node",
                                    name));
            }
            if (!node.tier(Tier::Hbm)) {
                origin.nodesUsable = false;
                if (!declaredServing)
                    problems.add(pointer,
                                 fmt::format("node '{}' has no hbm tier, so it cannot hold KV for instance '{}'", name,
                                             instance.id),
                                 fmt::format("add an hbm tier to node '{}'s memory, or use another node", name));
            }
        }
        origins.push_back(std::move(origin));
    }
}

void fillBatchDefaults(ServingSpec& serving)
{
    for (auto& instance : serving.instances) {
        bool prefill = instance.role == InstanceRole::Prefill;
        if (instance.maxBatchSize == 0)
            instance.maxBatchSize = prefill ? serving.prefillMaxBatchSize : serving.decodeMaxBatchSize;
        if (prefill && instance.maxBatchTokens == 0)
            instance.maxBatchTokens = serving.prefillMaxBatchTokens;
    }
}

void checkRoleCounts(const Scenario& s, const ValidationInput& input, ProblemList& problems)
{
    for (InstanceRole role : {InstanceRole::Prefill, InstanceRole::Decode}) {
        bool any = std::any_of(s.serving.instances.begin(), s.serving.instances.end(),
                               [role](const InstanceSpec& i) { return i.role == role; });
        if (any)
            continue;
        const char* name = toString(role);
        if (input.explicitInstances)
            problems.add(kInstancesPointer, fmt::format("there is no {} instance", name),
                         fmt::format("add {{ \"role\": \"{}\", \"nodes\": [\"gpu1\"] }} to /serving/instances", name));
        else
            problems.add(kNodesPointer, fmt::format("there is no {0} instance: no node has role '{0}' or 'both'", name),
                         fmt::format("give a node \"role\": \"{}\" (or \"both\"), or list instances under "
                                     "/serving/instances",
                                     name));
    }
}

// Weights (params x dtype_bytes) plus one KV block must fit in the group's HBM x kv_memory_fraction.
void checkModelFits(const Scenario& s, const std::vector<InstanceOrigin>& origins, ProblemList& problems)
{
    const double blockBytes = double(s.serving.blockTokens) * double(s.model.kvBytesPerToken());
    const double need = s.model.weightBytes() + blockBytes;
    const double fraction = s.serving.kvMemoryFraction;
    for (std::size_t k = 0; k < s.serving.instances.size(); ++k) {
        const InstanceOrigin& origin = origins[k];
        if (!origin.nodesUsable || origin.nodes.empty())
            continue;
        double hbm = 0;
        for (std::uint32_t n : origin.nodes)
            hbm += s.topology.nodes[n].tier(Tier::Hbm)->capacityBytes;
        if (need <= hbm * fraction)
            continue;
        const InstanceSpec& instance = s.serving.instances[k];
        const Node& first = s.topology.nodes[origin.nodes.front()];
        double perNode = first.tier(Tier::Hbm)->capacityBytes * fraction;
        auto group = static_cast<std::size_t>(std::ceil(need / perNode));
        std::string message = fmt::format(
            "instance '{}' cannot hold model '{}': weights {} + one KV block ({} tokens) {} exceed the usable HBM {} "
            "({} HBM x kv_memory_fraction {})",
            instance.id, s.model.name, formatBytes(s.model.weightBytes()), s.serving.blockTokens,
            formatBytes(blockBytes), formatBytes(hbm * fraction), formatBytes(hbm), fraction);
        std::string fix = fmt::format(
            "make it a tensor-parallel group of at least {} nodes like '{}' under /serving/instances (\"nodes\": "
            "[\"{}\", ...]), or choose a smaller model",
            std::max<std::size_t>(group, origin.nodes.size() + 1), first.id, first.id);
        problems.add(origin.pointer, message, fix);
    }
}

// `component`: linkComponents() of the topology.
void checkReachability(const Scenario& s, const std::vector<InstanceOrigin>& origins, const std::vector<int>& component,
                       ProblemList& problems)
{
    const auto& topo = s.topology;
    if (component.empty())
        return;
    for (std::size_t p = 0; p < s.serving.instances.size(); ++p) {
        if (s.serving.instances[p].role != InstanceRole::Prefill || origins[p].nodes.empty())
            continue;
        std::uint32_t from = origins[p].nodes.front();
        std::vector<std::string> unreachable;
        for (std::size_t d = 0; d < s.serving.instances.size(); ++d)
            if (s.serving.instances[d].role == InstanceRole::Decode && !origins[d].nodes.empty() &&
                component[origins[d].nodes.front()] != component[from])
                unreachable.push_back(s.serving.instances[d].id);
        if (unreachable.empty())
            continue;
        problems.add("/topology/links",
                     fmt::format("prefill instance '{}' (node '{}') has no path to decode instance(s) {}",
                                 s.serving.instances[p].id, topo.nodes[from].id, joinNames(unreachable)),
                     fmt::format("add links that connect node '{}' with the decode nodes (e.g. through a switch)",
                                 topo.nodes[from].id));
    }
}

// The prefix pool lives in a memory tier of a node every prefill instance can reach.
void checkPrefixPool(Scenario& s, const std::vector<InstanceOrigin>& origins, const std::vector<int>& component,
                     ProblemList& problems)
{
    PrefixPoolSpec& pool = s.serving.prefixPool;
    const auto& topo = s.topology;
    const auto node = topo.nodeIndex(pool.node);
    if (!node) {
        std::vector<std::string> ids;
        for (const auto& n : topo.nodes)
            ids.push_back(n.id);
        problems.add("/serving/prefix_pool/node", fmt::format("unknown node '{}'", pool.node),
                     fmt::format("use the id of a node with host, CXL or storage memory ({})", joinNames(ids)));
        return;
    }
    const Node& holder = topo.nodes[*node];
    const auto tier = std::find_if(holder.memory.begin(), holder.memory.end(),
                                   [&](const MemoryTier& m) { return m.tier == pool.tier; });
    if (tier == holder.memory.end()) {
        std::vector<std::string> tiers;
        for (const auto& m : holder.memory)
            tiers.push_back(toString(m.tier));
        problems.add("/serving/prefix_pool/tier",
                     fmt::format("node '{}' has no {} memory (it has: {})", holder.id, toString(pool.tier),
                                 tiers.empty() ? std::string("none") : joinNames(tiers)),
                     "set \"tier\" to one of the node's memory tiers, or add that tier to the node's \"memory\"");
        return;
    }
    if (pool.capacityBytes > tier->capacityBytes)
        problems.add("/serving/prefix_pool/capacity",
                     fmt::format("the pool ({:.4g} GB) is larger than node '{}''s {} memory ({:.4g} GB)",
                                 pool.capacityBytes / 1e9, holder.id, toString(pool.tier), tier->capacityBytes / 1e9),
                     "lower \"capacity\" or leave it out to use the whole tier");
    if (pool.capacityBytes <= 0)
        pool.capacityBytes = tier->capacityBytes;
    if (component.empty())
        return;
    for (std::size_t p = 0; p < s.serving.instances.size(); ++p)
        if (s.serving.instances[p].role == InstanceRole::Prefill && !origins[p].nodes.empty() &&
            component[origins[p].nodes.front()] != component[*node])
            problems.add("/serving/prefix_pool/node",
                         fmt::format("prefill instance '{}' has no path to the pool node '{}'",
                                     s.serving.instances[p].id, holder.id),
                         fmt::format("link node '{}' to the prefill nodes, or pick a pool node they reach", holder.id));
}

// A tier's protocol governs the prefix pool's blocks there: it needs a pool in that tier, and its caches are
// the prefill instances (at most kMaxCaches, the width of a sharer set).
void checkTierProtocols(const Scenario& s, ProblemList& problems)
{
    const PrefixPoolSpec& pool = s.serving.prefixPool;
    if (s.coherence.prefill != "direct") {
        if (!pool.enabled)
            problems.add("/coherence/prefill",
                         fmt::format("prefill instances share no blocks without a prefix pool, so '{}' would govern "
                                     "nothing (each sequence's own blocks follow \"decode\")",
                                     s.coherence.prefill),
                         "add \"serving\": {\"prefix_pool\": {\"node\": ...}} or remove \"prefill\"");
        else if (const auto tier = s.coherence.tiers.find(pool.tier);
                 tier != s.coherence.tiers.end() && tier->second != s.coherence.prefill)
            problems.add("/coherence/prefill",
                         fmt::format("both \"prefill\" ('{}') and \"tiers\".{} ('{}') name the protocol of the prefix "
                                     "pool's blocks",
                                     s.coherence.prefill, toString(pool.tier), tier->second),
                         "keep one of them");
    }
    for (const auto& [tier, protocol] : s.coherence.tiers) {
        const std::string pointer = jsonPointer("/coherence/tiers", toString(tier));
        if (protocol == "direct")
            continue;
        const auto& kvTiers = s.serving.kvTiers.tiers;
        const bool decodeKv = std::find(kvTiers.begin(), kvTiers.end(), tier) != kvTiers.end();
        if (!pool.enabled || pool.tier != tier) {
            if (!decodeKv)
                problems.add(
                    pointer,
                    fmt::format("no KV lives in the {} tier: the protocol would govern nothing", toString(tier)),
                    fmt::format(
                        "add \"{}\" to serving.kv_tiers.tiers (decode KV spills there), or a serving.prefix_pool in "
                        "that tier, or remove this entry",
                        toString(tier)));
            continue;
        }
        const auto prefill = std::count_if(s.serving.instances.begin(), s.serving.instances.end(),
                                           [](const InstanceSpec& i) { return i.role == InstanceRole::Prefill; });
        if (prefill > coherence::kMaxCaches)
            problems.add(pointer,
                         fmt::format("{} prefill instances share the pool, but a protocol tracks at most {} caches",
                                     prefill, coherence::kMaxCaches),
                         "use fewer prefill instances, or \"direct\" for this tier");
    }
}

// cache_aware routes by the prefixes prefill instances hold, so it gives them local prefix caches; those and the
// shared pool are not combined (a prompt would be served by one or the other, not both: not modelled).
void checkLocalPrefixCache(Scenario& s, const std::vector<InstanceOrigin>& origins, ProblemList& problems)
{
    LocalPrefixCacheSpec& cache = s.serving.localPrefixCache;
    if (s.serving.router.policy == RouterPolicy::CacheAware)
        cache.enabled = true;
    if (!cache.enabled)
        return;
    if (s.serving.prefixPool.enabled) {
        problems.add(s.serving.router.policy == RouterPolicy::CacheAware ? "/serving/router"
                                                                         : "/serving/local_prefix_cache",
                     "prefill instances' local prefix caches (local_prefix_cache, or router cache_aware, which keeps "
                     "them) and the shared prefix pool cannot be combined yet",
                     "remove \"prefix_pool\", or use another router and remove \"local_prefix_cache\"");
        return;
    }
    if (cache.capacityBytes <= 0)
        return;
    for (std::size_t k = 0; k < s.serving.instances.size(); ++k) {
        if (s.serving.instances[k].role != InstanceRole::Prefill || !origins[k].nodesUsable || origins[k].nodes.empty())
            continue;
        double hbm = 0;
        for (std::uint32_t n : origins[k].nodes)
            hbm += s.topology.nodes[n].tier(Tier::Hbm)->capacityBytes;
        const double room = hbm * s.serving.kvMemoryFraction - s.model.weightBytes();
        if (cache.capacityBytes > room) {
            problems.add("/serving/local_prefix_cache/capacity",
                         fmt::format("prefill instance '{}' has {} of HBM left after the weights, less than the local "
                                     "prefix cache's {}",
                                     s.serving.instances[k].id, formatBytes(std::max(room, 0.0)),
                                     formatBytes(cache.capacityBytes)),
                         "lower \"capacity\" or leave it out to use what HBM leaves");
            return;
        }
    }
}

// Shared prefix blocks are blocks of the decode protocol with a cache per instance: a protocol to keep them, at most
// as many instances as a table tracks caches, KV blocks that tile a prefix block, and no node failures (not modelled).
void checkSharedPrefix(const Scenario& s, ProblemList& problems)
{
    const SharedPrefixSpec& shared = s.serving.sharedPrefix;
    if (!shared.enabled)
        return;
    if (s.coherence.decode == "direct")
        problems.add("/serving/shared_prefix",
                     "shared prefix blocks are coherent blocks kept by the decode protocol, and \"direct\" is a plain "
                     "copy with no protocol",
                     "set /coherence/decode to a protocol (e.g. \"msi-directory\"), or remove \"shared_prefix\"");
    if (s.serving.instances.size() > static_cast<std::size_t>(coherence::kMaxCaches))
        problems.add("/serving/shared_prefix",
                     fmt::format("{} instances would share the prefix blocks, but a protocol tracks at most {} caches",
                                 s.serving.instances.size(), coherence::kMaxCaches),
                     "use fewer instances, or remove \"shared_prefix\"");
    if (shared.blockTokens % s.serving.blockTokens != 0)
        problems.add("/serving/shared_prefix/block_tokens",
                     fmt::format("a prefix block of {} tokens is not a whole number of KV blocks of {} tokens "
                                 "(serving.block_tokens)",
                                 shared.blockTokens, s.serving.blockTokens),
                     "use a multiple of serving.block_tokens (Mooncake's hash ids name 512-token blocks)");
    // A failed link loses no copy (its messages wait or go around it), so only node failures are refused.
    if (std::any_of(s.failures.events.begin(), s.failures.events.end(),
                    [](const FailureEventSpec& e) { return !e.isLink(); }))
        problems.add("/serving/shared_prefix",
                     "shared prefix blocks under node failures are not modelled yet: a failed node's shared copies "
                     "would need the directory to forget them",
                     "remove the node failures from \"failures\" (link failures are fine), or \"shared_prefix\"");
}

// Each decode node needs factor - 1 other nodes it reaches that may hold its replicas (the placement's pool).
void checkReplicasReachable(const Scenario& s, const std::vector<InstanceOrigin>& origins,
                            const std::vector<int>& component, ProblemList& problems)
{
    if (component.empty())
        return; // a link names an unknown node: reported elsewhere
    const ReplicationSpec& rep = s.serving.replication;
    std::vector<std::uint32_t> pool;
    if (rep.placement == ReplicaPlacement::Fixed) {
        for (const auto& id : rep.nodes)
            if (const auto node = s.topology.nodeIndex(id); node && canHoldKvReplica(s.topology.nodes[*node]))
                pool.push_back(*node);
    } else {
        pool = replicaCandidates(s.topology);
    }
    for (std::size_t i = 0; i < s.serving.instances.size() && i < origins.size(); ++i) {
        if (s.serving.instances[i].role != InstanceRole::Decode || origins[i].nodes.empty())
            continue;
        const std::uint32_t decode = origins[i].nodes.front();
        const auto reachable = std::count_if(pool.begin(), pool.end(), [&](std::uint32_t n) {
            return n != decode && component[n] == component[decode];
        });
        if (reachable + 1 < static_cast<std::ptrdiff_t>(rep.factor)) {
            problems.add("/serving/replication/factor",
                         fmt::format("decode instance '{}' reaches {} nodes that may hold its replicas, but factor {} "
                                     "needs {}",
                                     s.serving.instances[i].id, reachable, rep.factor, rep.factor - 1),
                         "lower the factor, or link more nodes with memory to the decode nodes");
            return;
        }
    }
}

// R copies on R distinct qualifying nodes, and a protocol has room for them: prefill, decode and R - 1 replicas are
// caches of every block, and one cache index is kept free for a later tier copy.
void checkReplication(const Scenario& s, const std::vector<InstanceOrigin>& origins, const std::vector<int>& component,
                      ProblemList& problems)
{
    const ReplicationSpec& rep = s.serving.replication;
    if (rep.factor <= 1 && rep.placement != ReplicaPlacement::Fixed)
        return;
    const std::uint32_t candidates = static_cast<std::uint32_t>(replicaCandidates(s.topology).size());
    const std::uint32_t limit = coherence::kMaxCaches - 2;
    if (rep.factor > limit)
        problems.add("/serving/replication/factor",
                     fmt::format("factor {} is more copies than a protocol tracks (at most {}: prefill, decode and "
                                 "the replicas are caches of one block)",
                                 rep.factor, limit),
                     fmt::format("use a factor of at most {}", limit));
    else if (rep.factor > candidates)
        problems.add("/serving/replication/factor",
                     fmt::format("factor {} needs {} distinct nodes that can hold KV, but the topology has {} (nodes "
                                 "with an HBM, DRAM or CXL memory tier)",
                                 rep.factor, rep.factor, candidates),
                     fmt::format("use a factor of at most {}, or add memory to more nodes", candidates));
    if (s.coherence.decode == "direct" && rep.factor > 1)
        problems.add("/serving/replication",
                     "replicas take part in the decode protocol, but \"coherence.decode\" is \"direct\" (a plain "
                     "copy with no protocol)",
                     "set \"coherence\": {\"decode\": \"msi-directory\"} (or another protocol), or remove "
                     "\"replication\"");
    if (rep.factor <= limit && rep.factor <= candidates)
        checkReplicasReachable(s, origins, component, problems);
    if (rep.placement != ReplicaPlacement::Fixed)
        return;
    for (std::size_t i = 0; i < rep.nodes.size(); ++i) {
        const std::string pointer = jsonPointer("/serving/replication/nodes", i);
        const auto node = s.topology.nodeIndex(rep.nodes[i]);
        if (!node)
            problems.add(pointer, fmt::format("unknown node '{}'", rep.nodes[i]), "use a node id from /topology/nodes");
        else if (!canHoldKvReplica(s.topology.nodes[*node]))
            problems.add(pointer, fmt::format("node '{}' has no memory that can hold KV", rep.nodes[i]),
                         "pick a node with an HBM, DRAM or CXL memory tier");
        else if (std::find(rep.nodes.begin(), rep.nodes.begin() + static_cast<std::ptrdiff_t>(i), rep.nodes[i]) !=
                 rep.nodes.begin() + static_cast<std::ptrdiff_t>(i))
            problems.add(pointer, fmt::format("node '{}' is listed twice", rep.nodes[i]), "list each node once");
    }
    // The decode node is skipped where it is listed, so a list naming a decode node needs one more entry.
    std::size_t decodeListed = 0;
    for (const auto& instance : s.serving.instances)
        if (instance.role == InstanceRole::Decode && !instance.nodes.empty() &&
            std::find(rep.nodes.begin(), rep.nodes.end(), instance.nodes.front()) != rep.nodes.end())
            decodeListed = 1;
    const std::size_t needed = rep.factor - 1 + decodeListed;
    if (rep.nodes.size() < needed)
        problems.add("/serving/replication/nodes",
                     fmt::format("factor {} needs {} replica nodes here, but {} are listed{}", rep.factor, needed,
                                 rep.nodes.size(),
                                 decodeListed ? " (a decode instance's node is skipped for that instance)" : ""),
                     fmt::format("list at least {} node ids, or lower the factor", needed));
}

// Every decode instance must reach a node with each tier its sequences may spill to.
void checkKvTiers(const Scenario& s, const std::vector<InstanceOrigin>& origins, const std::vector<int>& component,
                  ProblemList& problems)
{
    const auto& tiers = s.serving.kvTiers.tiers;
    for (const auto& [tier, bytes] : s.serving.kvTiers.capacityBytes)
        if (std::find(tiers.begin(), tiers.end(), tier) == tiers.end())
            problems.add(jsonPointer("/serving/kv_tiers/capacity", toString(tier)),
                         fmt::format("a capacity for {}, which \"tiers\" does not list", toString(tier)),
                         fmt::format("add \"{}\" to \"tiers\", or remove this entry", toString(tier)));
    if (tiers.empty() || component.empty())
        return;
    for (std::size_t t = 0; t < tiers.size(); ++t) {
        for (std::size_t i = 0; i < s.serving.instances.size() && i < origins.size(); ++i) {
            if (s.serving.instances[i].role != InstanceRole::Decode || origins[i].nodes.empty())
                continue;
            const std::uint32_t decode = origins[i].nodes.front();
            const bool reached = std::any_of(s.topology.nodes.begin(), s.topology.nodes.end(), [&](const Node& n) {
                const auto index = static_cast<std::size_t>(&n - s.topology.nodes.data());
                if (component[index] != component[decode] || !n.tier(tiers[t]))
                    return false;
                // The prefix pool keeps its part of its tier (checkPrefixPool has filled in its capacity).
                const PrefixPoolSpec& pool = s.serving.prefixPool;
                const double pooled =
                    pool.enabled && pool.tier == tiers[t] && pool.node == n.id ? pool.capacityBytes : 0;
                return n.tier(tiers[t])->capacityBytes - pooled > 0;
            });
            if (!reached) {
                problems.add(jsonPointer("/serving/kv_tiers/tiers", t),
                             fmt::format("decode instance '{}' reaches no node with {} memory",
                                         s.serving.instances[i].id, toString(tiers[t])),
                             fmt::format("add a \"{}\" tier to the \"memory\" of a node linked to '{}', or remove it "
                                         "from the list",
                                         toString(tiers[t]), s.topology.nodes[decode].id));
                break;
            }
        }
    }
}

} // namespace

std::vector<int> linkComponents(const Topology& topo, const std::vector<std::uint8_t>& without)
{
    std::vector<std::vector<std::uint32_t>> adjacent(topo.nodes.size());
    for (std::size_t l = 0; l < topo.links.size(); ++l) {
        const Link& link = topo.links[l];
        auto a = topo.nodeIndex(link.a), b = topo.nodeIndex(link.b);
        if (!a || !b)
            return {};
        if (l < without.size() && without[l])
            continue;
        adjacent[*a].push_back(*b);
        adjacent[*b].push_back(*a);
    }
    std::vector<int> component(topo.nodes.size(), -1);
    int components = 0;
    for (std::uint32_t start = 0; start < topo.nodes.size(); ++start) {
        if (component[start] >= 0)
            continue;
        std::queue<std::uint32_t> frontier;
        frontier.push(start);
        component[start] = components;
        while (!frontier.empty()) {
            std::uint32_t n = frontier.front();
            frontier.pop();
            for (std::uint32_t next : adjacent[n])
                if (component[next] < 0) {
                    component[next] = components;
                    frontier.push(next);
                }
        }
        ++components;
    }
    return component;
}

std::vector<InstanceSpec> instancesFromNodeRoles(const std::vector<Node>& nodes)
{
    // All prefill instances first, then all decode ones, each in node order: a stable, readable numbering.
    std::vector<InstanceSpec> instances;
    for (InstanceRole role : {InstanceRole::Prefill, InstanceRole::Decode}) {
        for (const Node& node : nodes) {
            const bool serves =
                node.role == NodeRole::Both ||
                (role == InstanceRole::Prefill ? node.role == NodeRole::Prefill : node.role == NodeRole::Decode);
            if (!serves || node.id.empty())
                continue;
            InstanceSpec instance;
            instance.id = fmt::format("{}-{}", toString(role), node.id);
            instance.role = role;
            instance.nodes = {node.id};
            instances.push_back(std::move(instance));
        }
    }
    return instances;
}

void validateScenario(Scenario& s, const ValidationInput& input, ProblemList& problems)
{
    std::vector<InstanceOrigin> origins;
    if (input.explicitInstances)
        checkExplicitInstances(s, origins, problems);
    else
        deriveInstances(s, origins);
    fillBatchDefaults(s.serving);
    checkRoleCounts(s, input, problems);
    if (input.modelKnown)
        checkModelFits(s, origins, problems);
    if (input.topologyClean) {
        const std::vector<int> component = linkComponents(s.topology);
        checkReachability(s, origins, component, problems);
        if (s.serving.prefixPool.enabled)
            checkPrefixPool(s, origins, component, problems);
        checkReplication(s, origins, component, problems);
        checkKvTiers(s, origins, component, problems);
        checkFailures(s, component, problems);
    }
    checkTierProtocols(s, problems);
    checkSharedPrefix(s, problems);
    if (input.modelKnown)
        checkLocalPrefixCache(s, origins, problems);
    else if (s.serving.router.policy == RouterPolicy::CacheAware)
        s.serving.localPrefixCache.enabled = true;
    if (s.coherence.home == HomePolicy::Node && input.topologyClean && !s.topology.nodeIndex(s.coherence.homeNode)) {
        std::vector<std::string> ids;
        for (const auto& n : s.topology.nodes)
            ids.push_back(n.id);
        problems.add("/coherence/home",
                     fmt::format("home '{}' is neither a policy nor a node (known nodes: {})", s.coherence.homeNode,
                                 joinNames(ids)),
                     "use \"allocating_node\", \"hashed\" or the id of a node that holds the directory");
    }
}

} // namespace coh::core
