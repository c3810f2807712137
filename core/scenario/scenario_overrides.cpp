#include "core/scenario/scenario_overrides.h"

#include "core/base/input_error.h"

#include <fmt/format.h>

#include <charconv>
#include <vector>

namespace coh::core {

using nlohmann::json;

void setScenarioField(json& root, const std::string& pointerText, json value, const std::string& file,
                      const std::string& fix)
{
    const auto refuse = [&](const std::string& message) { throw InputError(file, pointerText, message, fix); };
    if (pointerText.empty() || pointerText.front() != '/')
        refuse(fmt::format("'{}' is not a JSON pointer: it must start with '/'", pointerText));
    json::json_pointer pointer;
    try {
        pointer = json::json_pointer(pointerText);
    } catch (const json::exception&) {
        // The one way a pointer starting with '/' is malformed: an escape other than ~0 and ~1.
        refuse(fmt::format("'{}' is not a JSON pointer: a '~' in it must be followed by 0 (for '~') or 1 (for '/')",
                           pointerText));
    }
    try {
        if (value.is_null()) {
            json& parent = root.at(pointer.parent_pointer());
            if (!parent.is_object())
                refuse(fmt::format("{} is not a member of an object", pointerText));
            parent.erase(pointer.back());
            return;
        }
        json* at = &root;
        // Walk, creating objects, so a type mismatch on the way is named instead of thrown from inside the library.
        std::vector<std::string> tokens;
        for (json::json_pointer rest = pointer; !rest.empty(); rest = rest.parent_pointer())
            tokens.insert(tokens.begin(), rest.back());
        for (const std::string& token : tokens) {
            if (at->is_null())
                *at = json::object();
            if (at->is_object()) {
                at = &(*at)[token];
            } else if (at->is_array()) {
                std::size_t index = 0;
                const auto [end, error] = std::from_chars(token.data(), token.data() + token.size(), index);
                if (error != std::errc() || end != token.data() + token.size() || index >= at->size())
                    refuse(fmt::format("'{}' is not an index of the {}-element array on the way to {}", token,
                                       at->size(), pointerText));
                at = &(*at)[index];
            } else {
                refuse(fmt::format("the way to {} passes through a {}, not an object", pointerText, at->type_name()));
            }
        }
        *at = std::move(value);
    } catch (const json::exception&) {
        // What the walk above does not name itself: removing (null) a member whose parent is not there.
        refuse(fmt::format("{} names nothing in the scenario, so there is nothing to remove", pointerText));
    }
}

void applyOverride(json& root, std::string_view assignment, const std::string& file)
{
    const auto eq = assignment.find('=');
    const std::string pointerText(assignment.substr(0, eq));
    const std::string fix = "write --set /json/pointer=value, e.g. --set /coherence/decode=lazy-causal or --set "
                            "/serving/replication/factor=2 (null removes the member)";
    if (eq == std::string_view::npos || pointerText.empty() || pointerText.front() != '/')
        throw InputError(file, pointerText,
                         fmt::format("--set {} is not POINTER=VALUE with a pointer starting with '/'", assignment),
                         fix);
    const std::string valueText(assignment.substr(eq + 1));
    // A JSON value if it reads as one; otherwise the text itself (protocol and node names need no quotes).
    json value = json::parse(valueText, nullptr, /*allow_exceptions=*/false);
    if (value.is_discarded())
        value = valueText;
    setScenarioField(root, pointerText, std::move(value), file, fix);
}

} // namespace coh::core
