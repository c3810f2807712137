#include "core/scenario/field_check.h"

#include "core/base/input_error.h"
#include "core/scenario/scenario_loader.h"

#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <regex>

namespace coh::core {

using nlohmann::json;

namespace {

std::string_view trimmed(std::string_view text)
{
    const auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
    while (!text.empty() && blank(text.front()))
        text.remove_prefix(1);
    while (!text.empty() && blank(text.back()))
        text.remove_suffix(1);
    return text;
}

} // namespace

std::optional<json> fieldValueFromText(std::string_view text)
{
    text = trimmed(text);
    if (text.empty())
        return std::nullopt;
    // JSON's number grammar: "0x10", "1.", "+3" and "inf" are text, as they would be in a file.
    static const std::regex number(R"(-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?)");
    const std::string s(text);
    if (!std::regex_match(s, number))
        return json(s);
    if (s.find_first_of(".eE") == std::string::npos) {
        std::int64_t whole = 0;
        if (auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), whole); ec == std::errc())
            return json(whole);
        std::uint64_t big = 0;
        if (auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), big); ec == std::errc())
            return json(big);
    }
    // strtod gives +-HUGE_VAL (infinity) beyond the double range: the loader names that as out of range.
    return json(std::strtod(s.c_str(), nullptr));
}

std::string checkFieldValue(json scenario, const std::string& pointer, const json& value, const std::string& sourcePath)
{
    try {
        scenario[json::json_pointer(pointer)] = value; // creates missing parent objects, as the editor does
    } catch (const json::exception&) {
        return {}; // no place for it (a parent of another type): validation reports the parent
    }
    try {
        parseScenario(scenario, sourcePath);
    } catch (const InputError& e) {
        for (const InputProblem& problem : e.problems())
            if (problem.field == pointer && !problem.formText.empty())
                return problem.formText;
    }
    return {};
}

} // namespace coh::core
