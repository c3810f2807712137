#include "core/store/legacy_traffic.h"

#include <string_view>

namespace coh::core {

namespace {

std::uint64_t countOf(const nlohmann::ordered_json& j, const char* key)
{
    const auto it = j.find(key);
    return it != j.end() && it->is_number_unsigned() ? it->get<std::uint64_t>() : 0;
}

// The old write-back count covered the decode path only: the prefix pool's kinds ("pool ...", "Prefix-...")
// never entered it.
bool onDecodePath(const MessageKindStats& k)
{
    const std::string_view name = k.name;
    return !name.starts_with("pool ") && !name.starts_with("Prefix-");
}

} // namespace

bool isLegacyTrafficSummary(const nlohmann::ordered_json& summary)
{
    return summary.is_object() && !summary.contains("flows");
}

void upgradeLegacyTraffic(const nlohmann::ordered_json& summary, RunSummary& s)
{
    s.flows = countOf(summary, "messages");
    // The old count took block data a cache sent home: write-backs and requests that carry data (a
    // write-through's Write) always go there; what is left were data-role answers sent home.
    std::uint64_t accounted = 0;
    for (const auto& k : s.messagesByKind)
        if (onDecodePath(k) && k.data && (k.role == "writeback" || k.role == "request"))
            accounted += k.count;
    const std::uint64_t reported = countOf(summary, "writebacks");
    if (reported <= accounted)
        return;
    const std::uint64_t sentHome = reported - accounted;
    // Which data kind they were is not stored: the busiest one that can hold them ("Data" in every shipped
    // directory protocol); the totals are exact either way.
    MessageKindStats* from = nullptr;
    for (auto& k : s.messagesByKind)
        if (onDecodePath(k) && k.role == "data" && k.data && k.count >= sentHome && (!from || k.count > from->count))
            from = &k;
    if (!from)
        return; // nothing can hold them: the run reads with fewer write-backs than it reported
    const double bytes = from->bytes * static_cast<double>(sentHome) / static_cast<double>(from->count);
    MessageKindStats home{from->name + " to home", true, sentHome, bytes, "writeback"};
    from->count -= sentHome;
    from->bytes -= bytes;
    s.messagesByKind.push_back(std::move(home));
}

} // namespace coh::core
