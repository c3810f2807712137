#include "core/workload/mooncake_trace.h"

#include "core/scenario/input_limits.h"

#include "core/base/input_error.h"
#include "core/scenario/strict_json.h"
#include "core/workload/trace_replay.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string_view>
#include <vector>

namespace coh::core {

namespace {

// Streams one JSON line through nlohmann's SAX interface: no DOM per line, which keeps a 12,000-line trace
// well under 100 ms while still rejecting anything that is not JSON.
class MooncakeLineHandler : public nlohmann::json_sax<nlohmann::json> {
  public:
    MooncakeLineHandler(const std::string& path, std::vector<std::uint32_t>& hashes)
        : m_path(path)
        , m_hashes(hashes)
    {
    }

    // Parses one line; returns the row (its hash ids appended to the shared vector).
    TraceRow parseLine(std::string_view line, std::size_t lineNumber)
    {
        m_line = lineNumber;
        m_depth = 0;
        m_key = Key::Other;
        std::fill(std::begin(m_seen), std::end(m_seen), false);
        m_row = TraceRow{};
        m_row.prefixOffset = static_cast<std::uint32_t>(m_hashes.size());
        nlohmann::json::sax_parse(line.begin(), line.end(), this);
        static constexpr const char* kNames[] = {"timestamp", "input_length", "output_length"};
        for (int k = 0; k < 3; ++k)
            if (!m_seen[k])
                fail(kNames[k], fmt::format("the key '{}' is missing", kNames[k]),
                     "give every line timestamp (ms), input_length and output_length");
        if (m_row.promptTokens == 0)
            fail("input_length", "a request with input_length 0 has no prompt to prefill",
                 "remove the line or give it an input_length of at least 1");
        // A request always yields at least the token its prefill produces, so output_length 0 replays as 1.
        if (m_row.outputTokens == 0)
            m_row.outputTokens = 1;
        m_row.prefixCount = static_cast<std::uint32_t>(m_hashes.size()) - m_row.prefixOffset;
        return m_row;
    }

    bool null() override
    {
        // "hash_ids": null reads as no shared prefix.
        if (ignored() || (m_depth == 1 && m_key == Key::HashIds))
            return true;
        return wrongType("null");
    }
    bool boolean(bool) override { return ignored() || wrongType("a boolean"); }
    bool string(string_t&) override { return ignored() || wrongType("a string"); }
    bool binary(binary_t&) override { return ignored() || wrongType("binary data"); }
    bool number_integer(number_integer_t v) override
    {
        if (v >= 0)
            return number_unsigned(static_cast<number_unsigned_t>(v));
        return ignored() || negative(double(v));
    }
    bool number_unsigned(number_unsigned_t v) override
    {
        if (ignored())
            return true;
        if (inHashList()) {
            if (v > std::numeric_limits<std::uint32_t>::max())
                fail("hash_ids", fmt::format("the hash id {} does not fit in 32 bits", v),
                     "number prefix blocks from 0 up to 4294967295");
            m_hashes.push_back(static_cast<std::uint32_t>(v));
            return true;
        }
        switch (m_depth == 1 ? m_key : Key::HashIds) {
        case Key::Timestamp:
            if (v > std::uint64_t(std::numeric_limits<std::int64_t>::max() / 1'000'000))
                fail("timestamp", fmt::format("the timestamp {} ms is too large", v), "give times in ms");
            m_row.timeNs = std::int64_t(v) * 1'000'000;
            return true;
        case Key::Input:
            m_row.promptTokens = length("input_length", v);
            return true;
        case Key::Output:
            m_row.outputTokens = length("output_length", v);
            return true;
        case Key::HashIds:
        case Key::Other:
            break;
        }
        return wrongType("a number");
    }
    bool number_float(number_float_t v, const string_t&) override
    {
        if (ignored())
            return true;
        if (m_depth == 0)
            return wrongType("a number");
        if (m_depth == 1 && m_key == Key::Timestamp) {
            // Fractional milliseconds are kept to the nearest ns.
            if (!std::isfinite(v) || std::fabs(v) > 9e12)
                fail("timestamp", fmt::format("the timestamp {} ms is out of range", v), "give times in ms");
            m_row.timeNs = std::llround(v * 1e6);
            return true;
        }
        if (v < 0)
            return negative(v);
        if (v != std::floor(v))
            fail(keyName(), fmt::format("{} is not a whole number", v), "give lengths and hash ids as whole numbers");
        if (v > double(std::numeric_limits<std::uint32_t>::max()))
            fail(keyName(), fmt::format("{} is too large", v), "give lengths and hash ids below 4294967296");
        return number_unsigned(static_cast<number_unsigned_t>(v));
    }
    bool start_object(std::size_t) override
    {
        if (m_depth > 0 && !ignored())
            return wrongType("an object");
        return deeper();
    }
    bool end_object() override
    {
        --m_depth;
        return true;
    }
    bool key(string_t& name) override
    {
        if (m_depth != 1)
            return true;
        m_key = name == "timestamp"       ? Key::Timestamp
                : name == "input_length"  ? Key::Input
                : name == "output_length" ? Key::Output
                : name == "hash_ids"      ? Key::HashIds
                                          : Key::Other;
        // As the scenario reader: a key given twice is a mistake to name, not a value to pick silently.
        if (m_key != Key::Other && m_seen[int(m_key)])
            fail(name, fmt::format("the key '{}' is given twice", name), "give each key once per line");
        if (m_key != Key::Other)
            m_seen[int(m_key)] = true;
        return true;
    }
    bool start_array(std::size_t) override
    {
        if (!ignored() && !(m_depth == 1 && m_key == Key::HashIds))
            return wrongType("an array");
        return deeper();
    }
    // Nesting in a key the reader ignores is bounded as the scenario reader bounds it.
    bool deeper()
    {
        if (++m_depth > kMaxJsonDepth)
            fail(keyName(), fmt::format("the line nests values more than {} levels deep", kMaxJsonDepth),
                 "write each line as one flat object: timestamp, input_length, output_length, hash_ids");
        return true;
    }
    bool end_array() override
    {
        --m_depth;
        return true;
    }
    bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& e) override
    {
        std::string what = e.what();
        if (const auto bracket = what.find("] "); what.starts_with("[json.exception") && bracket != std::string::npos)
            what = what.substr(bracket + 2);
        // Each line is parsed alone, so nlohmann's "line 1" would contradict the file line in the field.
        if (const auto at = what.find("at line 1, column"); at != std::string::npos)
            what.replace(at, 17, "at column");
        fail("", "malformed JSON: " + what,
             "write each line as one JSON object, e.g. "
             R"({"timestamp": 0, "input_length": 6758, "output_length": 500, "hash_ids": [0, 1]})");
    }

  private:
    enum class Key { Timestamp = 0, Input = 1, Output = 2, HashIds = 3, Other = 4 };

    [[noreturn]] void fail(std::string_view key, std::string message, std::string fix) const
    {
        std::string field = fmt::format("line {}", m_line);
        if (!key.empty())
            field += fmt::format(", {}", key);
        throw InputError(m_path, std::move(field), std::move(message), std::move(fix));
    }

    const char* keyName() const
    {
        static constexpr const char* kNames[] = {"timestamp", "input_length", "output_length", "hash_ids", ""};
        return kNames[int(m_key)];
    }

    // Values under keys we do not read (at any depth) are skipped.
    bool ignored() const { return m_depth >= 1 && m_key == Key::Other; }
    bool inHashList() const { return m_depth == 2 && m_key == Key::HashIds; }

    [[noreturn]] bool wrongType(const char* what) const
    {
        if (m_depth == 0)
            fail("", fmt::format("the line is {}, not a JSON object", what), "write one JSON object per line");
        const char* expected = inHashList()              ? "a whole number"
                               : m_key == Key::HashIds   ? "an array of whole numbers"
                               : m_key == Key::Timestamp ? "a number of milliseconds"
                                                         : "a whole number of tokens";
        fail(keyName(), fmt::format("{} is {}, not {}", inHashList() ? "a hash id" : keyName(), what, expected),
             fmt::format("give {} as {}", keyName(), expected));
    }

    bool negative(double v)
    {
        if (m_depth == 0)
            return wrongType("a number");
        if (m_depth == 1 && m_key == Key::Timestamp) {
            m_row.timeNs = std::llround(v * 1e6); // a clock before 0 is fine: arrivals are shifted to 0
            return true;
        }
        fail(keyName(), fmt::format("{} is negative", v),
             m_key == Key::HashIds ? "hash ids are 0 or more" : "lengths are token counts, 0 or more");
    }

    std::uint32_t length(const char* key, std::uint64_t v) const
    {
        if (v > std::numeric_limits<std::uint32_t>::max())
            fail(key, fmt::format("{} tokens is too many", v), "give lengths below 4294967296 tokens");
        return static_cast<std::uint32_t>(v);
    }

    const std::string& m_path;
    std::vector<std::uint32_t>& m_hashes;
    std::size_t m_line = 0;
    int m_depth = 0;
    Key m_key = Key::Other;
    bool m_seen[4] = {};
    TraceRow m_row;
};

} // namespace

Workload readMooncakeTrace(const std::string& path, double timeScale, std::uint32_t maxRequests)
{
    const std::string text = readTraceFile(path, "Mooncake");
    std::vector<TraceRow> rows;
    std::vector<std::uint32_t> hashes;
    rows.reserve(text.size() / 200); // the published traces average 250 bytes a line
    hashes.reserve(text.size() / 8);
    MooncakeLineHandler handler(path, hashes);
    std::size_t pos = 0, lineNumber = 0;
    const std::string_view all = text;
    while (pos < all.size()) {
        const std::size_t end = std::min(all.find('\n', pos), all.size());
        const std::string_view line = all.substr(pos, end - pos);
        pos = end + 1;
        ++lineNumber;
        if (line.find_first_not_of(" \t\r") == std::string_view::npos)
            continue; // blank lines (a trailing newline, spacing) carry no request
        if (rows.size() == kMaxRequests)
            throw InputError(path, fmt::format("line {}", lineNumber),
                             fmt::format("the trace has more than {} requests, the most one run takes", kMaxRequests),
                             "cut the trace into parts, or keep its first lines (head -n) in a file of its own");
        rows.push_back(handler.parseLine(line, lineNumber));
    }
    return finishTrace(std::move(rows), hashes, path, timeScale, maxRequests);
}

} // namespace coh::core
