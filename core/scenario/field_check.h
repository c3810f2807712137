#pragma once
// One form field checked the way the scenario loader reads it, so an editor refuses a value the loader would
// refuse before it reaches the document, in the loader's own words (InputProblem::formText).
#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <string_view>

namespace coh::core {

// The JSON value a form field's text stands for: a number when the text is a JSON number ("42", "2.5", "1e3";
// "1e400" is infinity, which the loader refuses), else the text as a string ("450 GB/s"); nullopt for blank text
// (the key is removed and the format's default applies).
std::optional<nlohmann::json> fieldValueFromText(std::string_view text);

// What the loader says about `value` itself (its type, unit or range) when it stands at `pointer` in `scenario`
// (read as if from `sourcePath`), in a form's words; empty when it reads the value. How the value fits the rest
// of the scenario (an unknown node id, a role without compute) is not the field's problem: such a value is
// stored, and validation reports it. The trial edit is made on `scenario` itself: move a fresh copy in.
std::string checkFieldValue(nlohmann::json scenario, const std::string& pointer, const nlohmann::json& value,
                            const std::string& sourcePath = {});

} // namespace coh::core
