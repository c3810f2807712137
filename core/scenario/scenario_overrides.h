#pragma once
// Edits to a scenario's JSON before it is read, as `cohsim run --set /coherence/decode=lazy-causal` gives them: one
// file serves a whole matrix of runs, and each stored run keeps the scenario it really ran.
#include <nlohmann/json.hpp>

#include <string>
#include <string_view>

namespace coh::core {

// `assignment` is POINTER=VALUE: a JSON pointer (RFC 6901) and a JSON value, or a bare word taken as a string.
// Objects on the way are created; `null` removes the member. Throws InputError naming `file`, the pointer and the
// fix when the assignment cannot be made.
// Sets the member at `pointer` (RFC 6901) to `value`, creating objects on the way; `null` removes it. Throws
// InputError naming `file`, the pointer and `fix` when it cannot be set.
void setScenarioField(nlohmann::json& root, const std::string& pointer, nlohmann::json value, const std::string& file,
                      const std::string& fix);

void applyOverride(nlohmann::json& root, std::string_view assignment, const std::string& file);

} // namespace coh::core
