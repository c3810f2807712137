#pragma once
// Reading the run summary's optional blocks (failures, kv_tiers, lease): a member that is missing or of another type
// reads as its default, so a summary written by an older or newer version still loads.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>

namespace coh::core {

inline std::uint64_t countField(const nlohmann::ordered_json& j, const char* key)
{
    const auto it = j.find(key);
    return it != j.end() && it->is_number_unsigned() ? it->get<std::uint64_t>() : 0;
}

inline double numberField(const nlohmann::ordered_json& j, const char* key)
{
    const auto it = j.find(key);
    return it != j.end() && it->is_number() ? it->get<double>() : 0.0;
}

inline std::string textField(const nlohmann::ordered_json& j, const char* key, const char* fallback)
{
    const auto it = j.find(key);
    return it != j.end() && it->is_string() ? it->get<std::string>() : std::string(fallback);
}

} // namespace coh::core
