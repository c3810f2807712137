#include "core/store/kv_tiers_json.h"

#include "core/store/summary_json_fields.h"

namespace coh::core {

namespace {

nlohmann::ordered_json toJson(const KvTierUsage& u)
{
    // Occupancy as [time ns, blocks] pairs: compact for the thousands of steps a long run keeps.
    auto occupancy = nlohmann::ordered_json::array();
    for (const auto& step : u.occupancy)
        occupancy.push_back({step.at, step.blocks});
    return {{"tier", u.tier},
            {"protocol", u.protocol},
            {"nodes", u.nodes},
            {"capacity_blocks", u.capacityBlocks},
            {"offloads", u.offloads},
            {"fetches", u.fetches},
            {"blocks_down", u.blocksDown},
            {"blocks_up", u.blocksUp},
            {"messages", u.messages},
            {"bytes_down", u.bytesDown},
            {"bytes_up", u.bytesUp},
            {"peak_blocks", u.peakBlocks},
            {"occupancy", std::move(occupancy)}};
}

KvTierUsage usageFromJson(const nlohmann::ordered_json& j)
{
    KvTierUsage u;
    u.tier = textField(j, "tier", "");
    u.protocol = textField(j, "protocol", "direct");
    if (const auto it = j.find("nodes"); it != j.end() && it->is_array())
        for (const auto& node : *it)
            if (node.is_string())
                u.nodes.push_back(node.get<std::string>());
    u.capacityBlocks = countField(j, "capacity_blocks");
    u.offloads = countField(j, "offloads");
    u.fetches = countField(j, "fetches");
    u.blocksDown = countField(j, "blocks_down");
    u.blocksUp = countField(j, "blocks_up");
    u.messages = countField(j, "messages");
    u.bytesDown = numberField(j, "bytes_down");
    u.bytesUp = numberField(j, "bytes_up");
    u.peakBlocks = numberField(j, "peak_blocks");
    if (const auto it = j.find("occupancy"); it != j.end() && it->is_array())
        for (const auto& step : *it)
            if (step.is_array() && step.size() == 2 && step[0].is_number_integer() && step[1].is_number())
                u.occupancy.push_back({step[0].get<SimTime>(), step[1].get<double>()});
    return u;
}

} // namespace

nlohmann::ordered_json toJson(const KvTiersSummary& s)
{
    auto tiers = nlohmann::ordered_json::array();
    for (const auto& u : s.tiers)
        tiers.push_back(toJson(u));
    return {{"eviction", s.eviction},
            {"write", s.write},
            {"preemptions", s.preemptions},
            {"off_hbm_ms", s.offHbmMs},
            {"tiers", std::move(tiers)}};
}

KvTiersSummary kvTiersFromJson(const nlohmann::ordered_json& j)
{
    KvTiersSummary s;
    s.enabled = true;
    s.eviction = textField(j, "eviction", "lru");
    s.write = textField(j, "write", "write_back");
    s.preemptions = countField(j, "preemptions");
    s.offHbmMs = numberField(j, "off_hbm_ms");
    if (const auto it = j.find("tiers"); it != j.end() && it->is_array())
        for (const auto& tier : *it)
            if (tier.is_object())
                s.tiers.push_back(usageFromJson(tier));
    return s;
}

} // namespace coh::core
