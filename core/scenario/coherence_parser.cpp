// The scenario's "coherence" section (docs/scenario-format.md).
#include "core/coherence/protocol_registry.h"
#include "core/scenario/scenario_sections.h"

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
    coherence.prefill = readProtocol(r, "prefill").value_or(coherence.decode);
    if (coherence.prefill != coherence.decode)
        r.problem("prefill",
                  fmt::format("prefill protocol '{}' differs from decode protocol '{}': a block is written by prefill "
                              "and read by decode under one protocol, and no prefill instances share blocks yet",
                              coherence.prefill, coherence.decode),
                  "leave \"prefill\" out or set it to the decode protocol");
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
    r.rejectKeys({"tiers"}, "is not supported yet: KV blocks stay in device HBM (no offload to other tiers)");
    r.rejectKeys({"staleness"}, "is not configurable yet: lazy-causal's bound is part of its table (1 version behind "
                                "at most); a larger bound needs more writer states in the table");
    r.finish();
}

} // namespace coh::core
