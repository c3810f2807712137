#include "core/scenario/strict_json.h"

#include "core/scenario/json_reader.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <type_traits>
#include <vector>

namespace coh::core {

namespace {

struct TextPosition {
    std::size_t line = 1, column = 1;
};

// `offset` is the 1-based count of characters read when the parser stopped (nlohmann's convention).
TextPosition positionOf(const std::string& text, std::size_t offset)
{
    const std::size_t pos = std::min<std::size_t>(offset == 0 ? 0 : offset - 1, text.size());
    const auto end = text.begin() + static_cast<std::ptrdiff_t>(pos);
    TextPosition p;
    p.line = 1 + static_cast<std::size_t>(std::count(text.begin(), end, '\n'));
    const std::size_t lineStart = pos == 0 ? std::string::npos : text.rfind('\n', pos - 1);
    p.column = lineStart == std::string::npos ? pos + 1 : pos - lineStart;
    return p;
}

// Builds the document like nlohmann's DOM parser, and stops at the first thing a person would not mean.
template <class Json> class StrictBuilder final : public nlohmann::json_sax<Json> {
    using Base = nlohmann::json_sax<Json>;

  public:
    explicit StrictBuilder(Json& root)
        : m_root(root)
    {
    }

    bool null() override { return add(Json(nullptr)); }
    bool boolean(bool v) override { return add(Json(v)); }
    bool number_integer(typename Base::number_integer_t v) override { return add(Json(v)); }
    bool number_unsigned(typename Base::number_unsigned_t v) override { return add(Json(v)); }
    bool number_float(typename Base::number_float_t v, const typename Base::string_t&) override { return add(Json(v)); }
    bool string(typename Base::string_t& v) override { return add(Json(std::move(v))); }
    bool binary(typename Base::binary_t& v) override { return add(Json::binary(std::move(v))); }

    bool start_object(std::size_t) override { return open(Json::object()); }
    bool start_array(std::size_t) override { return open(Json::array()); }
    bool end_object() override { return close(); }
    bool end_array() override { return close(); }

    bool key(typename Base::string_t& key) override
    {
        Frame& top = m_stack.back();
        if (top.keys.count(key)) {
            m_error = Error::DuplicateKey;
            m_errorPointer = jsonPointer(pointer(), key);
            m_errorDetail = key;
            return false;
        }
        top.keys.insert(key);
        top.key = std::move(key);
        return true;
    }

    bool parse_error(std::size_t position, const std::string& lastToken, const nlohmann::detail::exception& ex) override
    {
        m_error = ex.id == 406 ? Error::NumberRange : Error::Syntax;
        m_errorOffset = position;
        m_errorDetail = ex.id == 406 ? lastToken : std::string(ex.what());
        return false;
    }

    enum class Error { None, Syntax, NumberRange, DuplicateKey, TooDeep };
    Error error() const { return m_error; }
    std::size_t errorOffset() const { return m_errorOffset; }
    const std::string& errorPointer() const { return m_errorPointer; }
    const std::string& errorDetail() const { return m_errorDetail; }

  private:
    struct Frame {
        Json* value;
        std::set<typename Base::string_t> keys;
        typename Base::string_t key; // the member being read, in an object
    };

    // Where the next value goes: the root, the end of an array, or the current key of an object.
    Json* place(Json value)
    {
        if (m_stack.empty()) {
            m_root = std::move(value);
            return &m_root;
        }
        Frame& top = m_stack.back();
        if (top.value->is_array()) {
            top.value->push_back(std::move(value));
            return &top.value->back();
        }
        // key() refused repeats, so the member is new: append it without the container's own lookup (linear
        // in an ordered_json object).
        auto& object = top.value->template get_ref<typename Json::object_t&>();
        if constexpr (std::is_same_v<Json, nlohmann::ordered_json>) {
            auto& members = static_cast<typename Json::object_t::Container&>(object);
            members.emplace_back(top.key, std::move(value));
            return &members.back().second;
        } else {
            return &object.emplace(top.key, std::move(value)).first->second;
        }
    }

    bool add(Json value)
    {
        place(std::move(value));
        return true;
    }

    bool open(Json container)
    {
        if (m_stack.size() >= kMaxJsonDepth) {
            m_error = Error::TooDeep;
            m_errorPointer = pointer();
            return false;
        }
        Json* value = place(std::move(container));
        m_stack.push_back(Frame{value, {}, {}});
        return true;
    }

    bool close()
    {
        m_stack.pop_back();
        return true;
    }

    // The JSON pointer of the container being read.
    std::string pointer() const
    {
        std::string out;
        for (std::size_t i = 0; i + 1 < m_stack.size(); ++i) {
            const Frame& frame = m_stack[i];
            if (frame.value->is_array())
                out = jsonPointer(out, frame.value->size() - 1);
            else
                out = jsonPointer(out, frame.key);
        }
        return out;
    }

    Json& m_root;
    std::vector<Frame> m_stack;
    Error m_error = Error::None;
    std::size_t m_errorOffset = 0;
    std::string m_errorPointer;
    std::string m_errorDetail;
};

std::string syntaxReason(const std::string& what)
{
    const auto detail = what.find("syntax error");
    return detail == std::string::npos ? what : what.substr(detail);
}

template <class Json> void appendExcerpt(const Json& value, std::size_t limit, std::string& out)
{
    if (out.size() >= limit)
        return;
    if (value.is_object() || value.is_array()) {
        const bool object = value.is_object();
        out += object ? '{' : '[';
        bool first = true;
        for (auto it = value.begin(); it != value.end(); ++it) {
            if (out.size() >= limit)
                break;
            if (!first)
                out += ", ";
            first = false;
            if (object)
                out += Json(it.key()).dump() + ": ";
            appendExcerpt(*it, limit, out);
        }
        out += object ? '}' : ']';
        return;
    }
    // A scalar: a string is cut before it is quoted, so a megabyte string costs nothing.
    if (value.is_string()) {
        const auto& s = value.template get_ref<const typename Json::string_t&>();
        out += Json(s.size() > limit ? s.substr(0, limit) : s).dump(-1, ' ', false, Json::error_handler_t::replace);
        return;
    }
    out += value.dump();
}

template <class Json> std::string excerptOf(const Json& value, std::size_t limit)
{
    std::string out;
    appendExcerpt(value, limit, out);
    if (out.size() > limit)
        out = out.substr(0, limit) + "…";
    return out;
}

} // namespace

template <class Json> Json parseStrictJson(const std::string& text, const std::string& file)
{
    if (text.find_first_not_of(" \t\r\n") == std::string::npos)
        throw InputError(file, "", "the file is empty",
                         "write its JSON into it: a scenario or a study is an object ({ \"name\": ..., ... }), a "
                         "model catalog an array of models");
    Json root;
    StrictBuilder<Json> builder(root);
    if (Json::sax_parse(text, &builder))
        return root;

    using Error = typename StrictBuilder<Json>::Error;
    const TextPosition at = positionOf(text, builder.errorOffset());
    switch (builder.error()) {
    case Error::DuplicateKey:
        throw InputError(file, builder.errorPointer(),
                         fmt::format("the key '{}' appears twice in the same object; JSON readers keep only one of "
                                     "them, so one value would be silently lost",
                                     builder.errorDetail()),
                         "keep one of the two and delete the other");
    case Error::TooDeep:
        throw InputError(file, builder.errorPointer().empty() ? "/" : builder.errorPointer(),
                         fmt::format("objects and arrays are nested more than {} levels deep here", kMaxJsonDepth),
                         fmt::format("flatten it: no input of this tool needs more than a few levels (the limit is {})",
                                     kMaxJsonDepth));
    case Error::NumberRange:
        throw InputError(file, "",
                         fmt::format("the number {} at line {}, column {} is beyond the range of a double "
                                     "(about ±1.8e308)",
                                     builder.errorDetail().substr(0, 40), at.line, at.column),
                         "write a number of a sensible size; quantities also take units, e.g. \"80 GB\"");
    case Error::Syntax:
    case Error::None:
        break;
    }
    throw InputError(file, "",
                     fmt::format("malformed JSON at line {}, column {}: {}", at.line, at.column,
                                 syntaxReason(builder.errorDetail())),
                     "look for a missing comma, quote or bracket at or just before that spot; JSON allows no "
                     "comments and no trailing commas");
}

template nlohmann::json parseStrictJson<nlohmann::json>(const std::string&, const std::string&);
template nlohmann::ordered_json parseStrictJson<nlohmann::ordered_json>(const std::string&, const std::string&);

std::string jsonExcerpt(const nlohmann::json& value, std::size_t limit)
{
    return excerptOf(value, limit);
}

std::string jsonExcerpt(const nlohmann::ordered_json& value, std::size_t limit)
{
    return excerptOf(value, limit);
}

} // namespace coh::core
