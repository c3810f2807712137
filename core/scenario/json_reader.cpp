#include "core/scenario/json_reader.h"

#include "core/base/shell_descriptor.h"

#include "core/scenario/strict_json.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>

namespace coh::core {

using nlohmann::json;

void ProblemList::add(std::string field, std::string message, std::string fix, std::string formText)
{
    if (full()) {
        ++m_dropped;
        return;
    }
    m_problems.push_back({m_file, std::move(field), std::move(message), std::move(fix), std::move(formText)});
}

void ProblemList::throwIfAny() const
{
    if (m_problems.empty())
        return;
    std::vector<InputProblem> problems = m_problems;
    if (m_dropped > 0)
        problems.push_back({m_file, "", fmt::format("… and {} more problems not listed", m_dropped),
                            "fix the ones above first; the rest are often the same mistake"});
    throw InputError(std::move(problems));
}

std::string jsonPointer(const std::string& parent, std::string_view key)
{
    std::string out = parent + '/';
    for (char c : key) {
        if (c == '~')
            out += "~0";
        else if (c == '/')
            out += "~1";
        else
            out += c;
    }
    return out;
}

std::string jsonPointer(const std::string& parent, std::size_t index)
{
    return parent + '/' + std::to_string(index);
}

nlohmann::json readJsonFile(const std::string& path)
{
    namespace fs = std::filesystem;
    std::error_code ec;
    if (!fs::exists(path, ec))
        throw InputError(path, "", "file not found",
                         fmt::format("check the path; relative paths are taken from the current folder ({})",
                                     fs::current_path(ec).string()));
    if (fs::is_directory(path, ec))
        throw InputError(path, "", "is a folder, not a JSON file", "name the .json file inside it");
    const bool passedDescriptor = isShellDescriptor(path);
    if (fs::is_fifo(path, ec) && !passedDescriptor)
        throw InputError(path, "", "is a named pipe, whose reading waits for something to write into it",
                         "give a regular file (a process substitution, <(command), works)");
    if ((fs::is_character_file(path, ec) || fs::is_block_file(path, ec)) && !passedDescriptor)
        throw InputError(path, "", "is a device, not a JSON file", "give the JSON file itself");
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw InputError(path, "", "cannot open the file for reading", "check its permissions");
    // Read with a cap rather than trusting the size: a pipe or a device has none (cohsim validate /dev/zero).
    std::string text;
    std::vector<char> buffer(1 << 16);
    while (in.read(buffer.data(), static_cast<std::streamsize>(buffer.size())) || in.gcount() > 0) {
        text.append(buffer.data(), static_cast<std::size_t>(in.gcount()));
        if (text.size() > kMaxJsonFileBytes)
            throw InputError(path, "",
                             fmt::format("the file is larger than {} MiB, the most a JSON input may be (it is read "
                                         "whole)",
                                         kMaxJsonFileBytes >> 20),
                             "check that this is the file you meant; a request trace belongs in workload.path");
    }
    // A NUL byte is in no JSON text: the parser would name a position in the middle of binary data.
    if (const auto nul = text.find('\0'); nul != std::string::npos)
        throw InputError(path, "", fmt::format("holds binary data (a zero byte at byte {}), not JSON text", nul),
                         "give the JSON file itself");
    return parseJsonText(text, path);
}

nlohmann::json parseJsonText(const std::string& text, const std::string& file)
{
    return parseStrictJson<nlohmann::json>(text, file);
}

const char* describeJsonType(const json& value)
{
    switch (value.type()) {
    case json::value_t::null:
        return "null";
    case json::value_t::object:
        return "an object";
    case json::value_t::array:
        return "an array";
    case json::value_t::string:
        return "a string";
    case json::value_t::boolean:
        return "a boolean";
    case json::value_t::number_integer:
    case json::value_t::number_unsigned:
    case json::value_t::number_float:
        return "a number";
    case json::value_t::binary:
        return "binary data";
    case json::value_t::discarded:
        return "invalid";
    }
    return "unknown";
}

namespace {

std::string lower(std::string_view s)
{
    std::string out(s);
    std::transform(out.begin(), out.end(), out.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return out;
}

std::size_t editDistance(const std::string& a, const std::string& b)
{
    std::vector<std::size_t> row(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j)
        row[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        std::size_t diagonal = row[0];
        row[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            std::size_t up = row[j];
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
            diagonal = up;
        }
    }
    return row[b.size()];
}

// A message fragment as the start of a sentence: "'fast' has no unit" stays, "empty bandwidth" -> "Empty ...".
std::string capitalised(std::string text)
{
    if (!text.empty())
        text[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(text[0])));
    return text;
}

// A JSON example as a form shows it: "\"64 GB/s\"" -> "64 GB/s" (a form field has no quotes).
std::string formExample(std::string_view example)
{
    if (example.size() >= 2 && example.front() == '"' && example.back() == '"')
        example = example.substr(1, example.size() - 2);
    return std::string(example);
}

} // namespace

std::optional<std::string> closestName(std::string_view name, const std::vector<std::string>& candidates)
{
    const std::string needle = lower(name);
    std::optional<std::string> best;
    std::size_t bestDistance = 0;
    for (const auto& candidate : candidates) {
        std::size_t d = editDistance(needle, lower(candidate));
        if (!best || d < bestDistance) {
            best = candidate;
            bestDistance = d;
        }
    }
    // A third of the length, at least 1 and at most 3 edits: "bandwith" finds "bandwidth", "foo" finds nothing.
    std::size_t limit = std::clamp<std::size_t>(needle.size() / 3, 1, 3);
    if (best && bestDistance <= limit)
        return best;
    return std::nullopt;
}

std::string joinNames(const std::vector<std::string>& names, std::size_t limit)
{
    std::string out;
    for (std::size_t i = 0; i < names.size() && i < limit; ++i) {
        if (i > 0)
            out += ", ";
        out += names[i];
    }
    if (names.size() > limit)
        out += fmt::format(", … ({} more)", names.size() - limit);
    return out;
}

ObjectReader::ObjectReader(ProblemList& problems, const json& value, std::string pointer, const char* example)
    : m_problems(problems)
    , m_pointer(std::move(pointer))
{
    if (value.is_object())
        m_object = &value;
    else
        m_problems.add(m_pointer.empty() ? "/" : m_pointer,
                       fmt::format("must be an object, not {}", describeJsonType(value)),
                       fmt::format("write an object such as {}", example));
}

void ObjectReader::problem(std::string_view key, std::string message, std::string fix, std::string formText)
{
    m_problems.add(pointerTo(key), std::move(message), std::move(fix), std::move(formText));
}

void ObjectReader::missing(std::string_view key, Need need)
{
    if (need.required)
        m_problems.add(pointerTo(key), fmt::format("missing required key '{}'", key),
                       fmt::format("add \"{}\": {}", key, need.example));
}

const json* ObjectReader::get(std::string_view key, Need need)
{
    m_known.emplace(key);
    if (!m_object)
        return nullptr;
    auto it = m_object->find(key);
    if (it == m_object->end()) {
        missing(key, need);
        return nullptr;
    }
    return &*it;
}

std::optional<std::string> ObjectReader::string(std::string_view key, Need need)
{
    const json* v = get(key, need);
    if (!v)
        return std::nullopt;
    if (!v->is_string()) {
        problem(key, fmt::format("'{}' must be a string, not {}", key, describeJsonType(*v)),
                fmt::format("write it in quotes, e.g. \"{}\": {}", key, need.required ? need.example : "\"...\""),
                "Enter text");
        return std::nullopt;
    }
    return v->get<std::string>();
}

std::optional<double> ObjectReader::number(std::string_view key, Need need)
{
    const json* v = get(key, need);
    if (!v)
        return std::nullopt;
    if (!v->is_number()) {
        const std::string example = need.required ? need.example : "1";
        problem(key, fmt::format("'{}' must be a number, not {}", key, describeJsonType(*v)),
                fmt::format("write a plain number without quotes, e.g. \"{}\": {}", key, example),
                fmt::format("Enter a number such as {}", formExample(example)));
        return std::nullopt;
    }
    // Files cannot hold one (strict JSON refuses it), but a form's "1e400" reads as infinity.
    if (!std::isfinite(v->get<double>())) {
        problem(key, fmt::format("'{}' is beyond the numbers this tool computes with", key), "write a realistic value",
                "Enter a smaller number");
        return std::nullopt;
    }
    return v->get<double>();
}

std::optional<double> ObjectReader::positive(std::string_view key, Need need)
{
    auto v = number(key, need);
    if (v && !(*v > 0)) {
        const std::string example = need.required ? need.example : "1";
        problem(key, fmt::format("'{}' must be positive, not {}", key, *v),
                fmt::format("use a value above 0, e.g. \"{}\": {}", key, example),
                fmt::format("Enter a number above 0, such as {}", formExample(example)));
        return std::nullopt;
    }
    return v;
}

std::optional<double> ObjectReader::nonNegative(std::string_view key, Need need)
{
    auto v = number(key, need);
    if (v && *v < 0) {
        problem(key, fmt::format("'{}' must not be negative, not {}", key, *v),
                fmt::format("use 0 or more, e.g. \"{}\": {}", key, need.required ? need.example : "0"),
                "Enter 0 or a number above it");
        return std::nullopt;
    }
    return v;
}

std::optional<double> ObjectReader::fraction(std::string_view key, Need need)
{
    auto v = number(key, need);
    if (v && !(*v > 0 && *v <= 1)) {
        problem(key, fmt::format("'{}' must be in (0, 1], not {}", key, *v),
                fmt::format("use a fraction above 0 and at most 1, e.g. \"{}\": 0.8", key),
                "Enter a fraction above 0 and at most 1, such as 0.8");
        return std::nullopt;
    }
    return v;
}

std::optional<std::uint64_t> ObjectReader::integer(std::string_view key, Need need, std::uint64_t min,
                                                   std::uint64_t max)
{
    const json* v = get(key, need);
    if (!v)
        return std::nullopt;
    // An optional key has no example of its own: the value nearest 1 within the range is one.
    const std::string fallback = std::to_string(std::clamp<std::uint64_t>(1, min, std::max(min, max)));
    const char* example = need.required ? need.example : fallback.c_str();
    const auto outOfRange = [&] {
        problem(key, fmt::format("'{}' must be between {} and {}, not {}", key, min, max, jsonExcerpt(*v)),
                fmt::format("use a value in that range, e.g. \"{}\": {}", key, example),
                fmt::format("Enter a whole number from {} to {}", min, max));
        return std::nullopt;
    };
    // Integers JSON wrote as integers are compared exactly: a double cannot tell 2^64 - 1 from 2^64.
    if (v->is_number_unsigned()) {
        const auto value = v->get<std::uint64_t>();
        if (value < min || value > max)
            return outOfRange();
        return value;
    }
    if (v->is_number_integer()) { // signed: a negative from text, or any int a caller put in the document
        const auto value = v->get<std::int64_t>();
        if (value < 0 || static_cast<std::uint64_t>(value) < min || static_cast<std::uint64_t>(value) > max)
            return outOfRange();
        return static_cast<std::uint64_t>(value);
    }
    const double asDouble = v->is_number_float() ? v->get<double>() : 0.5;
    if (!v->is_number_float() || std::floor(asDouble) != asDouble) {
        problem(key, fmt::format("'{}' must be a whole number, not {}", key, jsonExcerpt(*v)),
                fmt::format("write an integer without quotes, e.g. \"{}\": {}", key, example),
                fmt::format("Enter a whole number such as {}", formExample(example)));
        return std::nullopt;
    }
    // 1e3 or 2.0: whole, written as a double. Beyond 2^53 a double is not the number that was written, and
    // 2^64 itself (where a conversion to uint64 is undefined) rounds to the same double as UINT64_MAX.
    constexpr double kExactDoubleLimit = 9007199254740992.0; // 2^53
    if (asDouble < static_cast<double>(min) || asDouble > static_cast<double>(max) ||
        asDouble >= 18446744073709551616.0)
        return outOfRange();
    if (std::fabs(asDouble) > kExactDoubleLimit) {
        problem(key,
                fmt::format("'{}' is written as {}, too large to be exact with a decimal point or exponent", key,
                            jsonExcerpt(*v)),
                fmt::format("write all its digits without '.' or 'e', e.g. \"{}\": {}", key, example),
                "Enter all its digits, without a decimal point or exponent");
        return std::nullopt;
    }
    return static_cast<std::uint64_t>(asDouble);
}

std::optional<std::uint32_t> ObjectReader::count(std::string_view key, Need need, std::uint32_t min)
{
    auto v = integer(key, need, min, UINT32_MAX);
    if (!v)
        return std::nullopt;
    return static_cast<std::uint32_t>(*v);
}

std::optional<double> ObjectReader::quantity(Quantity q, std::string_view key, Need need)
{
    const json* v = get(key, need.required ? Need{true, quantityExample(q)} : need);
    if (!v)
        return std::nullopt;
    double value = 0;
    if (v->is_number()) {
        value = v->get<double>();
    } else if (v->is_string()) {
        try {
            value = parseQuantity(q, v->get<std::string>());
        } catch (const UnitError& e) {
            problem(key, fmt::format("cannot read '{}' as a {}: {}", key, quantityName(q), e.what()),
                    fmt::format("write a number with a unit, e.g. \"{}\": {}", key, quantityExample(q)),
                    fmt::format("{}. Enter a {} such as {}", capitalised(e.what()), quantityName(q),
                                formExample(quantityExample(q))));
            return std::nullopt;
        }
    } else {
        problem(key,
                fmt::format("'{}' must be a {} (a string with a unit or a number), not {}", key, quantityName(q),
                            describeJsonType(*v)),
                fmt::format("e.g. \"{}\": {}", key, quantityExample(q)),
                fmt::format("Enter a {} such as {}", quantityName(q), formExample(quantityExample(q))));
        return std::nullopt;
    }
    if (!std::isfinite(value)) {
        problem(key,
                fmt::format("{} is {}, which is beyond any {} this tool can compute with", key, jsonExcerpt(*v),
                            quantityName(q)),
                fmt::format("write a realistic value, e.g. \"{}\": {}", key, quantityExample(q)),
                fmt::format("Enter a realistic {} such as {}", quantityName(q), formExample(quantityExample(q))));
        return std::nullopt;
    }
    if (q != Quantity::Time && !(value > 0)) {
        problem(key, fmt::format("{} must be positive, not {}", key, jsonExcerpt(*v)),
                fmt::format("use a value above zero, e.g. \"{}\": {}", key, quantityExample(q)),
                fmt::format("Enter a {} above zero, such as {}", quantityName(q), formExample(quantityExample(q))));
        return std::nullopt;
    }
    return value;
}

std::optional<SimTime> ObjectReader::time(std::string_view key, Need need, bool allowZero)
{
    auto ns = quantity(Quantity::Time, key, need);
    if (!ns)
        return std::nullopt;
    double rounded = std::round(*ns);
    const char* bound = allowZero ? "not be negative" : "be positive";
    if (rounded < 0 || (!allowZero && rounded <= 0)) {
        problem(key, fmt::format("{} must {}, not {}", key, bound, jsonExcerpt(m_object->at(std::string(key)))),
                fmt::format("e.g. \"{}\": {}", key, quantityExample(Quantity::Time)),
                fmt::format("Enter a time {}, such as {}", allowZero ? "of 0 or more" : "above zero",
                            formExample(quantityExample(Quantity::Time))));
        return std::nullopt;
    }
    if (rounded >= kClockLimitNs) {
        problem(key, fmt::format("{} is too long (the limit is about 292 years)", key),
                fmt::format("e.g. \"{}\": \"2 s\"", key), "Enter a time under 292 years, such as 2 s");
        return std::nullopt;
    }
    return static_cast<SimTime>(rounded);
}

void ObjectReader::reportUnknownName(std::string_view key, const std::string& name,
                                     const std::vector<std::string>& known)
{
    std::string message = fmt::format("unknown {} '{}'", key, name);
    if (auto suggestion = closestName(name, known))
        message += fmt::format("; did you mean '{}'?", *suggestion);
    problem(key, message, fmt::format("use one of: {}", joinNames(known)),
            fmt::format("Pick one of: {}", joinNames(known)));
}

void ObjectReader::rejectKeys(std::initializer_list<std::string_view> keys, std::string_view why)
{
    for (auto key : keys) {
        m_known.emplace(key);
        if (m_object && m_object->contains(key))
            problem(key, fmt::format("'{}' {}", key, why), fmt::format("remove \"{}\"", key));
    }
}

void ObjectReader::finish()
{
    if (!m_object)
        return;
    std::vector<std::string> known(m_known.begin(), m_known.end());
    for (const auto& [key, value] : m_object->items()) {
        if (m_known.count(key))
            continue;
        if (auto suggestion = closestName(key, known))
            problem(key, fmt::format("unknown key '{}'; did you mean '{}'?", key, *suggestion),
                    fmt::format("rename it to \"{}\"", *suggestion));
        else
            problem(key, fmt::format("unknown key '{}'", key),
                    fmt::format("remove it; keys allowed here: {}", joinNames(known, 40)));
    }
}

} // namespace coh::core
