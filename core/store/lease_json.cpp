#include "core/store/lease_json.h"

namespace coh::core {

namespace {

std::uint64_t count(const nlohmann::ordered_json& j, const char* key)
{
    const auto it = j.find(key);
    return it != j.end() && it->is_number_unsigned() ? it->get<std::uint64_t>() : 0;
}

} // namespace

nlohmann::ordered_json toJson(const LeaseSummary& s)
{
    return {{"ttl_ns", s.ttl},
            {"on_expiry", s.refetch ? "refetch" : "trust"},
            {"grants", s.grants},
            {"leased_reads", s.leasedReads},
            {"expired_reads", s.expiredReads},
            {"expired_steps", s.expiredSteps},
            {"refetches", s.refetches}};
}

LeaseSummary leaseFromJson(const nlohmann::ordered_json& j)
{
    LeaseSummary s;
    if (const auto it = j.find("ttl_ns"); it != j.end() && it->is_number_integer())
        s.ttl = it->get<SimTime>();
    if (const auto it = j.find("on_expiry"); it != j.end() && it->is_string())
        s.refetch = it->get<std::string>() != "trust";
    s.grants = count(j, "grants");
    s.leasedReads = count(j, "leased_reads");
    s.expiredReads = count(j, "expired_reads");
    s.expiredSteps = count(j, "expired_steps");
    s.refetches = count(j, "refetches");
    return s;
}

} // namespace coh::core
