#include "core/tune/study_point.h"

#include "core/scenario/request_limit.h"
#include "core/scenario/scenario_overrides.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <filesystem>

namespace coh::core {

nlohmann::ordered_json pointParams(const StudySpec& study, const Point& point)
{
    nlohmann::ordered_json params = nlohmann::ordered_json::object();
    for (std::size_t i = 0; i < study.parameters.size() && i < point.values.size(); ++i)
        params[study.parameters[i].pointer] = point.values[i];
    if (point.load)
        params[study.capacity.field] = *point.load;
    return params;
}

bool isExcluded(const StudySpec& study, const Point& point)
{
    const auto valueOf = [&](const std::string& pointer) -> const nlohmann::json* {
        for (std::size_t i = 0; i < study.parameters.size(); ++i)
            if (study.parameters[i].pointer == pointer)
                return &point.values[i];
        return nullptr;
    };
    return std::any_of(study.exclusions.begin(), study.exclusions.end(), [&](const Exclusion& exclusion) {
        return std::all_of(exclusion.matches.begin(), exclusion.matches.end(), [&](const auto& match) {
            const nlohmann::json* value = valueOf(match.first);
            return value && std::find(match.second.begin(), match.second.end(), *value) != match.second.end();
        });
    });
}

nlohmann::json resolvePoint(const StudySpec& study, const Point& point, std::uint32_t requestLimit)
{
    const std::string fix = "check the parameter's pointer against the scenario (docs/scenario-format.md)";
    nlohmann::json scenario = study.baseScenario;
    for (std::size_t i = 0; i < study.parameters.size(); ++i)
        setScenarioField(scenario, study.parameters[i].pointer, point.values.at(i), study.sourcePath, fix);
    if (point.load)
        setScenarioField(scenario, study.capacity.field, *point.load, study.sourcePath, fix);
    for (const DerivedField& derived : study.derived) {
        const auto from = nlohmann::json::json_pointer(derived.from);
        if (scenario.contains(from))
            setScenarioField(scenario, derived.pointer, scenario.at(from), study.sourcePath, fix);
    }
    // Replay samples, not whole records: a study's database stays small.
    setScenarioField(scenario, "/record/max_messages", study.recordMessages, study.sourcePath, fix);
    setScenarioField(scenario, "/record/max_iterations", study.recordIterations, study.sourcePath, fix);
    limitScenarioRequests(scenario, requestLimit);
    return scenario;
}

namespace {

// FNV-1a 64 over the text, in two passes with different offsets: a 128-bit key without a cryptographic library.
// It guards against accidents (two points of a study differ in a few fields), not against crafted collisions.
std::uint64_t fnv1a(const std::string& text, std::uint64_t hash)
{
    for (const unsigned char c : text) {
        hash ^= c;
        hash *= 0x100000001b3ULL;
    }
    return hash;
}

} // namespace

std::string pointKey(const StudySpec& study, const nlohmann::json& resolved, const Scenario* parsed)
{
    nlohmann::json identity = {{"scenario", resolved}, {"keep", study.keepRequests ? "full" : "summary"}};
    if (parsed && parsed->workload.kind == WorkloadKind::Trace) {
        const auto& trace = parsed->workload.trace;
        const std::string path = trace.resolvedPath.empty() ? trace.path : trace.resolvedPath;
        std::error_code error;
        const auto size = std::filesystem::file_size(path, error);
        const auto modified = std::filesystem::last_write_time(path, error);
        identity["trace"] = {
            {"path", path}, {"size", error ? 0 : size}, {"modified", error ? 0 : modified.time_since_epoch().count()}};
    }
    return scenarioKey(identity);
}

std::string scenarioKey(const nlohmann::json& resolved)
{
    const std::string text = resolved.dump(); // nlohmann::json keeps object keys sorted: a canonical text
    return fmt::format("{:016x}{:016x}", fnv1a(text, 0xcbf29ce484222325ULL), fnv1a(text, 0x84222325cbf29ce4ULL));
}

} // namespace coh::core
