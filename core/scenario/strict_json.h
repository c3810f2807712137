#pragma once
// The JSON parser for user input (scenarios, model catalogs, studies). nlohmann's own parser accepts what a
// person never means and cannot see: a repeated key silently replaces the first, a number beyond the double
// range is an internal exception, and a value nested thousands of levels deep is a stack overflow waiting in
// whatever walks it later. This parser refuses each with an InputError naming the file, the line and column,
// the JSON pointer where it can, and the fix.
#include "core/base/input_error.h"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <string>

namespace coh::core {

// The deepest nesting a JSON input may have (objects and arrays). A scenario needs 6; the limit leaves room for
// anything a person writes and keeps every recursive walk (dump, compare, the GUI's tree) far from the stack's end.
inline constexpr std::size_t kMaxJsonDepth = 64;

// Parses `text` (read from `file`, named in errors) into nlohmann::json or nlohmann::ordered_json.
template <class Json> Json parseStrictJson(const std::string& text, const std::string& file);

extern template nlohmann::json parseStrictJson<nlohmann::json>(const std::string&, const std::string&);
extern template nlohmann::ordered_json parseStrictJson<nlohmann::ordered_json>(const std::string&, const std::string&);

// A value as an error message may quote it: at most `limit` characters, containers shortened with "…", never a
// recursive dump of an unbounded value.
std::string jsonExcerpt(const nlohmann::json& value, std::size_t limit = 60);
std::string jsonExcerpt(const nlohmann::ordered_json& value, std::size_t limit = 60);

} // namespace coh::core
