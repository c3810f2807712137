// Reads /serving: batching limits, cost-model efficiencies and (optionally) explicit instances.
#include "core/scenario/scenario_sections.h"
#include "core/scenario/strict_json.h"

#include <fmt/format.h>

#include <algorithm>

namespace coh::core {

using nlohmann::json;

namespace {

constexpr const char* kInstanceExample = R"({ "id": "prefill0", "role": "prefill", "nodes": ["gpu0"] })";

InstanceSpec readInstance(ProblemList& problems, const json& value, const std::string& pointer)
{
    InstanceSpec instance;
    ObjectReader r(problems, value, pointer, kInstanceExample);
    auto id = r.string("id");
    instance.role = r.enumeration<InstanceRole>("role", requiredAs("\"prefill\"")).value_or(InstanceRole::Prefill);
    const json* nodes = r.get("nodes", requiredAs("[\"gpu0\"]"));
    instance.maxBatchSize = r.count("max_batch_size", kOptional, 1).value_or(0);
    if (instance.role == InstanceRole::Prefill)
        instance.maxBatchTokens = r.count("max_batch_tokens", kOptional, 1).value_or(0);
    else
        r.rejectKeys({"max_batch_tokens"}, "only applies to prefill instances");
    r.finish();
    if (id && id->empty())
        r.problem("id", "instance id is empty", "remove \"id\" (a default is derived) or give a name");
    instance.id = id.value_or("");

    if (!nodes)
        return instance;
    if (!nodes->is_array() || nodes->empty()) {
        r.problem("nodes", fmt::format("nodes must be a non-empty array of node ids, not {}", jsonExcerpt(*nodes)),
                  "write \"nodes\": [\"gpu0\"] (several nodes form one tensor-parallel group)");
        return instance;
    }
    for (std::size_t i = 0; i < nodes->size(); ++i) {
        const json& node = (*nodes)[i];
        std::string nodePointer = jsonPointer(r.pointerTo("nodes"), i);
        if (!node.is_string()) {
            problems.add(nodePointer, fmt::format("node ids are strings, not {}", describeJsonType(node)),
                         "write the node's id in quotes, e.g. \"gpu0\"");
            instance.nodes.emplace_back();
            continue;
        }
        std::string name = node.get<std::string>();
        if (std::find(instance.nodes.begin(), instance.nodes.end(), name) != instance.nodes.end())
            problems.add(nodePointer, fmt::format("node '{}' is listed twice in this instance", name),
                         "list each node of the tensor-parallel group once");
        instance.nodes.push_back(std::move(name));
    }
    return instance;
}

constexpr const char* kPrefixPoolExample = R"({ "node": "cxl0", "tier": "cxl", "capacity": "256 GB" })";

void readPrefixPool(ObjectReader& serving, PrefixPoolSpec& pool)
{
    const json* value = serving.get("prefix_pool");
    if (!value)
        return;
    ObjectReader r(serving.problems(), *value, serving.pointerTo("prefix_pool"), kPrefixPoolExample);
    if (!r.valid())
        return;
    pool.enabled = true;
    pool.node = r.string("node", requiredAs("\"cpu0\"")).value_or("");
    pool.tier = r.enumeration<Tier>("tier").value_or(pool.tier);
    pool.capacityBytes = r.quantity(Quantity::Bytes, "capacity").value_or(0);
    pool.blockTokens = r.count("block_tokens", kOptional, 1).value_or(pool.blockTokens);
    r.finish();
}

constexpr const char* kRouterExample = R"({ "policy": "cache_aware", "overlap_weight": 1, "max_imbalance": 2 })";

// "router": "least_loaded", or an object naming the policy and cache_aware's weights.
void readRouter(ObjectReader& serving, RouterSpec& router)
{
    const json* value = serving.get("router");
    if (!value)
        return;
    if (value->is_string()) {
        router.policy = serving.enumeration<RouterPolicy>("router").value_or(router.policy);
        return;
    }
    if (!value->is_object()) {
        serving.problem("router", fmt::format("router is a policy name or an object, not {}", describeJsonType(*value)),
                        fmt::format("write \"least_loaded\", or an object such as {}", kRouterExample));
        return;
    }
    ObjectReader r(serving.problems(), *value, serving.pointerTo("router"), kRouterExample);
    router.policy = r.enumeration<RouterPolicy>("policy", requiredAs("\"cache_aware\"")).value_or(router.policy);
    const auto weight = r.nonNegative("overlap_weight");
    const auto imbalance = r.number("max_imbalance");
    if (imbalance && *imbalance < 1)
        r.problem(
            "max_imbalance",
            fmt::format("max_imbalance is a multiple of the mean load and must be at least 1, not {}", *imbalance),
            "use a value of 1 or more (2: fall back once an instance would hold twice the mean load)");
    if ((weight || imbalance) && router.policy != RouterPolicy::CacheAware)
        r.problem(weight ? "overlap_weight" : "max_imbalance",
                  fmt::format("\"{}\" only applies to the cache_aware policy, not {}",
                              weight ? "overlap_weight" : "max_imbalance", toString(router.policy)),
                  "set \"policy\": \"cache_aware\" or remove the weight");
    router.overlapWeight = weight.value_or(router.overlapWeight);
    if (imbalance && *imbalance >= 1)
        router.maxImbalance = *imbalance;
    r.finish();
}

constexpr const char* kLocalCacheExample = R"({ "capacity": "20 GB", "block_tokens": 512 })";

void readLocalPrefixCache(ObjectReader& serving, LocalPrefixCacheSpec& cache)
{
    const json* value = serving.get("local_prefix_cache");
    if (!value)
        return;
    ObjectReader r(serving.problems(), *value, serving.pointerTo("local_prefix_cache"), kLocalCacheExample);
    if (!r.valid())
        return;
    cache.enabled = true;
    cache.capacityBytes = r.quantity(Quantity::Bytes, "capacity").value_or(0);
    cache.blockTokens = r.count("block_tokens", kOptional, 1).value_or(cache.blockTokens);
    r.finish();
}

bool isZeroBytes(const std::string& text)
{
    try {
        return parseQuantity(Quantity::Bytes, text) == 0;
    } catch (const std::exception&) {
        return false; // quantity() names what is wrong with it
    }
}

constexpr const char* kSharedPrefixExample = R"({ "block_tokens": 512, "capacity": "20 GB" })";

void readSharedPrefix(ObjectReader& serving, SharedPrefixSpec& shared)
{
    const json* value = serving.get("shared_prefix");
    if (!value)
        return;
    ObjectReader r(serving.problems(), *value, serving.pointerTo("shared_prefix"), kSharedPrefixExample);
    if (!r.valid())
        return;
    shared.enabled = true;
    shared.blockTokens = r.count("block_tokens", kOptional, 1).value_or(shared.blockTokens);
    // "0 B" keeps no idle prefix block (docs/scenario-format.md): the one byte size that may be zero.
    const json* capacity = r.get("capacity");
    if (capacity && ((capacity->is_number() && capacity->get<double>() == 0) ||
                     (capacity->is_string() && isZeroBytes(capacity->get<std::string>()))))
        shared.capacityBytes = 0.0;
    else
        shared.capacityBytes = r.quantity(Quantity::Bytes, "capacity");
    r.finish();
}

constexpr const char* kReplicationExample = R"({ "factor": 2, "placement": "spread" })";

// The replica count and placement; whether enough nodes qualify is checked with the topology (validation).
void readReplication(ObjectReader& serving, ReplicationSpec& replication)
{
    const json* value = serving.get("replication");
    if (!value)
        return;
    ObjectReader r(serving.problems(), *value, serving.pointerTo("replication"), kReplicationExample);
    if (!r.valid())
        return;
    replication.factor = r.count("factor", requiredAs("2"), 1).value_or(replication.factor);
    replication.placement = r.enumeration<ReplicaPlacement>("placement").value_or(replication.placement);
    const json* nodes = r.get("nodes");
    r.finish();
    if (replication.placement != ReplicaPlacement::Fixed) {
        if (nodes)
            r.problem("nodes", "\"nodes\" only applies to the \"fixed\" placement",
                      "remove \"nodes\", or write \"placement\": \"fixed\"");
        return;
    }
    if (!nodes) {
        r.problem("nodes", "the \"fixed\" placement needs the list of replica nodes",
                  "add \"nodes\": [\"gpu1\", ...] with at least factor - 1 node ids");
        return;
    }
    if (!nodes->is_array()) {
        r.problem("nodes", fmt::format("nodes must be an array of node ids, not {}", describeJsonType(*nodes)),
                  "write \"nodes\": [\"gpu1\", \"gpu2\"]");
        return;
    }
    for (std::size_t i = 0; i < nodes->size(); ++i) {
        const json& node = (*nodes)[i];
        if (!node.is_string()) {
            serving.problems().add(jsonPointer(r.pointerTo("nodes"), i),
                                   fmt::format("node ids are strings, not {}", describeJsonType(node)),
                                   "write the node's id in quotes, e.g. \"gpu1\"");
            continue;
        }
        replication.nodes.push_back(node.get<std::string>());
    }
}

constexpr const char* kKvTiersExample = R"({ "tiers": ["dram"], "eviction": "lru", "write": "write_back" })";

// The tiers below HBM, in spill order; whether a node has each tier is checked with the topology (validation).
void readKvTiers(ObjectReader& serving, KvTiersSpec& spec)
{
    const json* value = serving.get("kv_tiers");
    if (!value)
        return;
    ObjectReader r(serving.problems(), *value, serving.pointerTo("kv_tiers"), kKvTiersExample);
    if (!r.valid())
        return;
    spec.eviction = r.enumeration<TierEviction>("eviction").value_or(spec.eviction);
    spec.write = r.enumeration<TierWrite>("write").value_or(spec.write);
    if (const json* capacity = r.get("capacity")) {
        ObjectReader c(serving.problems(), *capacity, r.pointerTo("capacity"), R"({ "dram": "4 GiB" })");
        if (c.valid())
            for (const auto& [name, value] : capacity->items()) {
                const auto tier = enumFromString<Tier>(name);
                if (!tier || *tier == Tier::Hbm) {
                    c.get(name); // reported here, not again as an unknown member
                    c.problem(name, fmt::format("\"{}\" is not a tier below HBM", name),
                              "use one of: dram, cxl, storage");
                    continue;
                }
                if (const auto bytes = c.quantity(Quantity::Bytes, name))
                    spec.capacityBytes[*tier] = *bytes;
            }
        c.finish();
    }
    const json* tiers = r.get("tiers", requiredAs("[\"dram\"]"));
    r.finish();
    if (!tiers)
        return;
    const std::string pointer = r.pointerTo("tiers");
    if (!tiers->is_array() || tiers->empty()) {
        serving.problems().add(
            pointer,
            tiers->is_array() ? std::string("tiers lists no tier")
                              : fmt::format("tiers must be an array, not {}", describeJsonType(*tiers)),
            "write \"tiers\": [\"dram\"] (or [\"dram\", \"cxl\", \"storage\"]: sequences spill in this "
            "order), or remove kv_tiers");
        return;
    }
    for (std::size_t i = 0; i < tiers->size(); ++i) {
        const json& item = (*tiers)[i];
        const auto tier = item.is_string() ? enumFromString<Tier>(item.get<std::string>()) : std::nullopt;
        if (!tier || *tier == Tier::Hbm) {
            serving.problems().add(jsonPointer(pointer, i),
                                   item.is_string()
                                       ? fmt::format("\"{}\" is not a tier below HBM", item.get<std::string>())
                                       : fmt::format("a tier is a name, not {}", describeJsonType(item)),
                                   "use one of: dram, cxl, storage");
            continue;
        }
        if (std::find(spec.tiers.begin(), spec.tiers.end(), *tier) != spec.tiers.end()) {
            serving.problems().add(jsonPointer(pointer, i), fmt::format("{} is listed twice", toString(*tier)),
                                   "list each tier once, in the order sequences spill to");
            continue;
        }
        spec.tiers.push_back(*tier);
    }
}

} // namespace

bool readServing(ObjectReader& top, ServingSpec& serving)
{
    const json* value = top.get("serving");
    if (!value)
        return false;
    ProblemList& problems = top.problems();
    ObjectReader r(problems, *value, top.pointerTo("serving"), R"({ "block_tokens": 16, "router": "round_robin" })");
    serving.blockTokens = r.count("block_tokens", kOptional, 1).value_or(serving.blockTokens);
    readRouter(r, serving.router);
    serving.decodeAffinity = r.enumeration<DecodeAffinity>("decode_affinity").value_or(serving.decodeAffinity);
    if (const json* prefill = r.get("prefill")) {
        ObjectReader p(problems, *prefill, r.pointerTo("prefill"),
                       R"({ "max_batch_size": 16, "max_batch_tokens": 8192 })");
        serving.prefillMaxBatchSize = p.count("max_batch_size", kOptional, 1).value_or(serving.prefillMaxBatchSize);
        serving.prefillMaxBatchTokens =
            p.count("max_batch_tokens", kOptional, 1).value_or(serving.prefillMaxBatchTokens);
        p.finish();
    }
    if (const json* decode = r.get("decode")) {
        ObjectReader d(problems, *decode, r.pointerTo("decode"), R"({ "max_batch_size": 128 })");
        serving.decodeMaxBatchSize = d.count("max_batch_size", kOptional, 1).value_or(serving.decodeMaxBatchSize);
        d.rejectKeys({"max_batch_tokens"}, "only applies to prefill (decode batches one token per sequence)");
        d.finish();
    }
    serving.iterationOverhead = r.time("iteration_overhead").value_or(serving.iterationOverhead);
    serving.flopsEfficiency = r.fraction("flops_efficiency").value_or(serving.flopsEfficiency);
    serving.bandwidthEfficiency = r.fraction("bandwidth_efficiency").value_or(serving.bandwidthEfficiency);
    serving.kvMemoryFraction = r.fraction("kv_memory_fraction").value_or(serving.kvMemoryFraction);
    readPrefixPool(r, serving.prefixPool);
    readLocalPrefixCache(r, serving.localPrefixCache);
    readSharedPrefix(r, serving.sharedPrefix);
    readReplication(r, serving.replication);
    readKvTiers(r, serving.kvTiers);
    const json* instances = r.get("instances");
    r.finish();
    if (!instances)
        return false;
    if (!instances->is_array()) {
        r.problem("instances", fmt::format("instances must be an array, not {}", describeJsonType(*instances)),
                  fmt::format("write \"instances\": [ {} ], or remove it to derive instances from node roles",
                              kInstanceExample));
        return true;
    }
    for (std::size_t i = 0; i < instances->size(); ++i)
        serving.instances.push_back(readInstance(problems, (*instances)[i], jsonPointer(r.pointerTo("instances"), i)));
    return true;
}

} // namespace coh::core
