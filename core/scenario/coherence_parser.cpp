// The scenario's "coherence" section (docs/scenario-format.md).
#include "core/coherence/protocol_leases.h"
#include "core/coherence/protocol_registry.h"
#include "core/scenario/enum_names.h"
#include "core/scenario/scenario_sections.h"

#include <algorithm>
#include <fmt/format.h>

namespace coh::core {

namespace {

constexpr const char* kExample = R"({ "decode": "msi-directory", "home": "allocating_node" })";

std::vector<std::string> protocolNames()
{
    std::vector<std::string> names{"direct"};
    for (const auto& p : coherence::allProtocols())
        if (!p.bugHunt)
            names.push_back(p.name);
    return names;
}

// A protocol name or "direct"; bug-hunt variants are for the lab and the checker, never for runs.
std::optional<std::string> readProtocol(ObjectReader& r, std::string_view key)
{
    auto name = r.string(key);
    if (!name)
        return std::nullopt;
    const auto known = protocolNames();
    if (std::find(known.begin(), known.end(), *name) != known.end())
        return name;
    std::string message = fmt::format("unknown protocol '{}'", *name);
    if (auto near = closestName(*name, known))
        message += fmt::format("; did you mean '{}'?", *near);
    r.problem(key, message, fmt::format("use one of: {}", joinNames(known)));
    return std::nullopt;
}

// "tiers": {"cxl": "sealed-lease"}: a protocol per memory tier other than HBM (whose blocks decode and prefill
// govern).
void readTiers(ObjectReader& coherence, std::map<Tier, std::string>& tiers)
{
    const nlohmann::json* section = coherence.get("tiers");
    if (!section)
        return;
    ObjectReader r(coherence.problems(), *section, coherence.pointerTo("tiers"), R"({ "cxl": "sealed-lease" })");
    if (!r.valid())
        return;
    for (const auto& [key, value] : section->items()) {
        const auto tier = enumFromString<Tier>(key);
        if (!tier || *tier == Tier::Hbm) {
            r.problem(key,
                      tier ? std::string("HBM blocks are the ones \"decode\" governs, not a tier entry")
                           : fmt::format("unknown memory tier '{}'", key),
                      "use \"dram\", \"cxl\" or \"storage\" (the tier of serving.prefix_pool)");
            continue;
        }
        if (auto protocol = readProtocol(r, key))
            tiers[*tier] = *protocol;
    }
}

constexpr const char* kStalenessExample = R"({ "max_versions": 0, "max_age": "20 us" })";

void readStaleness(ObjectReader& coherence, StalenessSpec& staleness)
{
    const nlohmann::json* section = coherence.get("staleness");
    if (!section)
        return;
    ObjectReader r(coherence.problems(), *section, coherence.pointerTo("staleness"), kStalenessExample);
    if (!r.valid())
        return;
    if (auto versions = r.count("max_versions"))
        staleness.maxVersions = *versions;
    staleness.maxAge = r.time("max_age");
    r.finish();
}

// A reader-side bound only means something where reads may be stale, and only up to the protocol's own bound.
void checkStaleness(ObjectReader& r, const CoherenceSpec& coherence)
{
    const coherence::Protocol* protocol = nullptr;
    for (const auto& p : coherence::allProtocols())
        if (p.name == coherence.decode)
            protocol = &p;
    if (!protocol || protocol->consistency != coherence::Consistency::BoundedStaleness) {
        r.problem("staleness",
                  fmt::format("'{}' never returns a stale version, so a staleness bound has nothing to limit",
                              coherence.decode),
                  "remove \"staleness\" or set \"decode\" to a bounded-staleness protocol (lazy-causal)");
        return;
    }
    const auto versions = coherence.staleness.maxVersions;
    if (versions && *versions > protocol->stalenessBound)
        r.problem("staleness",
                  fmt::format("max_versions {} is never reached: {}'s replicas are at most {} version(s) behind "
                              "(its writer waits for the acknowledgements)",
                              *versions, protocol->name, protocol->stalenessBound),
                  fmt::format("use a max_versions from 0 (every read waits for the latest version) to {}",
                              protocol->stalenessBound));
}

constexpr const char* kLeaseExample = R"({ "ttl": "2 s", "on_expiry": "refetch" })";

bool grantsLeases(const std::string& protocol)
{
    const auto& protocols = coherence::allProtocols();
    const auto it = std::find_if(protocols.begin(), protocols.end(),
                                 [&](const coherence::Protocol& p) { return p.name == protocol; });
    return it != protocols.end() && coherence::grantsLeases(*it);
}

void readLease(ObjectReader& coherence, const std::string& decode, LeaseSpec& lease)
{
    const nlohmann::json* section = coherence.get("lease");
    if (!section)
        return;
    ObjectReader r(coherence.problems(), *section, coherence.pointerTo("lease"), kLeaseExample);
    if (!r.valid())
        return;
    // An empty object is no lease (what the editor leaves when its time to live is cleared).
    lease.ttl = r.time("ttl", kOptional, false);
    const auto onExpiry = r.enumeration<LeaseExpiry>("on_expiry");
    lease.onExpiry = onExpiry.value_or(lease.onExpiry);
    if (onExpiry && !r.get("ttl"))
        r.problem("ttl", "\"on_expiry\" says what happens when a lease expires, but no lease time to live is set",
                  "add \"ttl\" (e.g. \"2 s\") or remove \"on_expiry\"");
    if (lease.ttl && !grantsLeases(decode))
        r.problem("ttl", fmt::format("'{}' grants no leases, so a lease time has nothing to expire", decode),
                  "remove \"lease\" or set \"decode\" to a protocol with leases (sealed-lease)");
    r.finish();
}

} // namespace

void readCoherence(ObjectReader& top, CoherenceSpec& coherence)
{
    const nlohmann::json* section = top.get("coherence");
    if (!section)
        return;
    ObjectReader r(top.problems(), *section, top.pointerTo("coherence"), kExample);
    if (!r.valid())
        return;
    coherence.decode = readProtocol(r, "decode").value_or(coherence.decode);
    coherence.prefill = readProtocol(r, "prefill").value_or("direct");
    if (auto home = r.string("home")) {
        if (*home == toString(HomePolicy::AllocatingNode)) {
            coherence.home = HomePolicy::AllocatingNode;
        } else if (*home == toString(HomePolicy::Hashed)) {
            coherence.home = HomePolicy::Hashed;
        } else {
            coherence.home = HomePolicy::Node;
            coherence.homeNode = *home;
        }
    }
    coherence.controlBytes = r.count("control_bytes", kOptional, 1).value_or(coherence.controlBytes);
    readTiers(r, coherence.tiers);
    readStaleness(r, coherence.staleness);
    if (coherence.staleness.any())
        checkStaleness(r, coherence);
    readLease(r, coherence.decode, coherence.lease);
    r.finish();
}

} // namespace coh::core
