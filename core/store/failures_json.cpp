#include "core/store/failures_json.h"

#include "core/store/summary_json_fields.h"

namespace coh::core {

namespace {

SimTime time(const nlohmann::ordered_json& j, const char* key, SimTime fallback)
{
    const auto it = j.find(key);
    return it != j.end() && it->is_number_integer() ? it->get<SimTime>() : fallback;
}

FailureRecord recordFromJson(const nlohmann::ordered_json& j)
{
    FailureRecord f;
    f.node = textField(j, "node", "");
    f.link = textField(j, "link", "");
    if (const auto it = j.find("instances"); it != j.end() && it->is_array())
        for (const auto& id : *it)
            if (id.is_string())
                f.instances.push_back(id.get<std::string>());
    f.failed = time(j, "failed_ns", 0);
    f.detected = time(j, "detected_ns", f.failed);
    f.repaired = time(j, "repaired_ns", -1);
    f.requestsLost = static_cast<std::uint32_t>(countField(j, "requests_lost"));
    return f;
}

} // namespace

nlohmann::ordered_json toJson(const FailuresSummary& s)
{
    auto failures = nlohmann::ordered_json::array();
    bool links = false;
    for (const auto& f : s.failures) {
        links |= !f.link.empty();
        // A link failure names its link and takes no instance; a node's record reads as it always did.
        if (!f.link.empty())
            failures.push_back(
                {{"link", f.link}, {"failed_ns", f.failed}, {"detected_ns", f.detected}, {"repaired_ns", f.repaired}});
        else
            failures.push_back({{"node", f.node},
                                {"instances", f.instances},
                                {"failed_ns", f.failed},
                                {"detected_ns", f.detected},
                                {"repaired_ns", f.repaired},
                                {"requests_lost", f.requestsLost}});
    }
    // Instances up as [time ns, count] pairs, as the tiers' occupancy.
    auto up = nlohmann::ordered_json::array();
    for (const auto& step : s.instancesUp)
        up.push_back({step.time, step.value});
    nlohmann::ordered_json j = {{"recovery", s.recovery},
                                {"hits", s.hits},
                                {"failed", s.failed},
                                {"recovered", s.recovered},
                                {"from_copy", s.fromCopy},
                                {"recomputes", s.recomputes},
                                {"rerouted", s.rerouted},
                                {"restored_tokens", s.restoredTokens},
                                {"recomputed_tokens", s.recomputedTokens},
                                {"availability", s.availability},
                                {"failures", std::move(failures)},
                                {"instances_up", std::move(up)}};
    if (links) {
        j["messages_stopped"] = s.messagesStopped;
        j["messages_rerouted"] = s.messagesRerouted;
        j["bytes_resent"] = s.bytesResent;
        j["stalled_ms"] = s.stalledMs;
    }
    return j;
}

FailuresSummary failuresFromJson(const nlohmann::ordered_json& j)
{
    FailuresSummary s;
    s.enabled = true;
    s.recovery = textField(j, "recovery", "recompute");
    s.hits = countField(j, "hits");
    s.failed = countField(j, "failed");
    s.recovered = countField(j, "recovered");
    s.fromCopy = countField(j, "from_copy");
    s.recomputes = countField(j, "recomputes");
    s.rerouted = countField(j, "rerouted");
    s.restoredTokens = countField(j, "restored_tokens");
    s.recomputedTokens = countField(j, "recomputed_tokens");
    if (const auto it = j.find("availability"); it != j.end() && it->is_number())
        s.availability = it->get<double>();
    s.messagesStopped = countField(j, "messages_stopped");
    s.messagesRerouted = countField(j, "messages_rerouted");
    for (auto [key, field] : {std::pair{"bytes_resent", &s.bytesResent}, std::pair{"stalled_ms", &s.stalledMs}})
        if (const auto it = j.find(key); it != j.end() && it->is_number())
            *field = it->get<double>();
    if (const auto it = j.find("failures"); it != j.end() && it->is_array())
        for (const auto& f : *it)
            if (f.is_object())
                s.failures.push_back(recordFromJson(f));
    if (const auto it = j.find("instances_up"); it != j.end() && it->is_array())
        for (const auto& step : *it)
            if (step.is_array() && step.size() == 2 && step[0].is_number_integer() && step[1].is_number_unsigned())
                s.instancesUp.push_back({step[0].get<SimTime>(), step[1].get<std::uint32_t>()});
    return s;
}

} // namespace coh::core
