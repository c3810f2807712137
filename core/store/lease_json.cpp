#include "core/store/lease_json.h"

#include "core/store/summary_json_fields.h"

namespace coh::core {

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
    s.grants = countField(j, "grants");
    s.leasedReads = countField(j, "leased_reads");
    s.expiredReads = countField(j, "expired_reads");
    s.expiredSteps = countField(j, "expired_steps");
    s.refetches = countField(j, "refetches");
    return s;
}

} // namespace coh::core
