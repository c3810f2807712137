#include "core/workload/azure_trace.h"

#include "core/scenario/input_limits.h"

#include "core/base/input_error.h"
#include "core/workload/trace_replay.h"

#include <fmt/format.h>

#include <array>
#include <charconv>
#include <optional>
#include <string_view>
#include <vector>

namespace coh::core {

namespace {

constexpr std::array<std::string_view, 3> kColumns = {"TIMESTAMP", "ContextTokens", "GeneratedTokens"};
constexpr const char* kTimestampFix = "write times as YYYY-MM-DD HH:MM:SS with up to 9 fractional digits, "
                                      "between 1677-09-22 and 2262-04-11 (64-bit nanoseconds), "
                                      "e.g. 2023-11-16 18:15:46.6805900";

std::string_view trim(std::string_view s)
{
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r'))
        s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
        s.remove_suffix(1);
    if (s.size() >= 2 && s.front() == '"' && s.back() == '"')
        s = s.substr(1, s.size() - 2);
    return s;
}

// Splits one line at commas into `out` (reused across lines to avoid allocation).
void splitFields(std::string_view line, std::vector<std::string_view>& out)
{
    out.clear();
    std::size_t start = 0;
    while (true) {
        const std::size_t comma = line.find(',', start);
        const std::size_t length = comma == std::string_view::npos ? std::string_view::npos : comma - start;
        out.push_back(trim(line.substr(start, length)));
        if (comma == std::string_view::npos)
            return;
        start = comma + 1;
    }
}

// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil).
std::int64_t daysFromCivil(std::int64_t y, unsigned m, unsigned d)
{
    y -= m <= 2;
    const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
    const auto yoe = static_cast<unsigned>(y - era * 400);
    const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
    const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

// Reads exactly `digits` decimal digits at s[pos].
std::optional<unsigned> fixedDigits(std::string_view s, std::size_t pos, std::size_t digits)
{
    if (pos + digits > s.size())
        return std::nullopt;
    unsigned v = 0;
    for (std::size_t i = pos; i < pos + digits; ++i) {
        if (s[i] < '0' || s[i] > '9')
            return std::nullopt;
        v = v * 10 + unsigned(s[i] - '0');
    }
    return v;
}

// "YYYY-MM-DD HH:MM:SS[.f{1,9}]" (a 'T' separator also works) -> ns since the Unix epoch.
// `outOfRange` is set when the text is a well-formed date that the 64-bit nanosecond clock cannot hold.
std::optional<std::int64_t> parseTimestamp(std::string_view s, bool& outOfRange)
{
    outOfRange = false;
    const auto year = fixedDigits(s, 0, 4), month = fixedDigits(s, 5, 2), day = fixedDigits(s, 8, 2);
    const auto hour = fixedDigits(s, 11, 2), minute = fixedDigits(s, 14, 2), second = fixedDigits(s, 17, 2);
    if (!year || !month || !day || !hour || !minute || !second || s[4] != '-' || s[7] != '-' ||
        (s[10] != ' ' && s[10] != 'T') || s[13] != ':' || s[16] != ':')
        return std::nullopt;
    if (*month < 1 || *month > 12 || *day < 1 || *hour > 23 || *minute > 59 || *second > 60)
        return std::nullopt;
    // The month's own length (February 29 only in a leap year): 2023-02-30 is no date, not March 2.
    const bool leap = (*year % 4 == 0 && *year % 100 != 0) || *year % 400 == 0;
    constexpr unsigned kDays[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (*day > kDays[*month - 1] + (*month == 2 && leap ? 1u : 0u))
        return std::nullopt;
    std::int64_t fractionNs = 0;
    if (s.size() > 19) {
        const std::size_t digits = s.size() - 20;
        if (s[19] != '.' || digits < 1 || digits > 9)
            return std::nullopt;
        const auto fraction = fixedDigits(s, 20, digits);
        if (!fraction)
            return std::nullopt;
        fractionNs = *fraction;
        for (std::size_t i = digits; i < 9; ++i)
            fractionNs *= 10;
    }
    const std::int64_t seconds = daysFromCivil(*year, *month, *day) * 86400 + std::int64_t(*hour) * 3600 +
                                 std::int64_t(*minute) * 60 + std::int64_t(*second);
    // Nanoseconds since 1970 in 64 bits reach from 1677-09-21 to 2262-04-11.
    std::int64_t ns = 0;
    if (__builtin_mul_overflow(seconds, std::int64_t{1'000'000'000}, &ns) ||
        __builtin_add_overflow(ns, fractionNs, &ns)) {
        outOfRange = true;
        return std::nullopt;
    }
    return ns;
}

class AzureParser {
  public:
    AzureParser(const std::string& path, std::string_view text)
        : m_path(path)
        , m_text(text)
    {
    }

    std::vector<TraceRow> parse()
    {
        std::vector<TraceRow> rows;
        rows.reserve(m_text.size() / 36); // about one row per 36 bytes in the published traces
        bool haveHeader = false;
        std::size_t pos = 0;
        if (m_text.substr(0, 3) == "\xEF\xBB\xBF") // UTF-8 byte order mark from spreadsheet exports
            pos = 3;
        while (pos < m_text.size()) {
            const std::size_t end = std::min(m_text.find('\n', pos), m_text.size());
            const std::string_view line = m_text.substr(pos, end - pos);
            pos = end + 1;
            ++m_line;
            if (trim(line).empty())
                continue;
            splitFields(line, m_fields);
            if (!haveHeader) {
                readHeader();
                haveHeader = true;
            } else {
                if (rows.size() == kMaxRequests)
                    fail(fmt::format("line {}", m_line),
                         fmt::format("the trace has more than {} requests, the most one run takes", kMaxRequests),
                         "cut the trace into parts, or keep its first rows (head -n) in a file of its own");
                rows.push_back(readRow());
            }
        }
        if (!haveHeader)
            fail("header", "the file has no header line",
                 "start the file with the header TIMESTAMP,ContextTokens,GeneratedTokens");
        return rows;
    }

  private:
    [[noreturn]] void fail(const std::string& field, std::string message, std::string fix) const
    {
        throw InputError(m_path, field, std::move(message), std::move(fix));
    }

    std::string at(std::string_view column) const { return fmt::format("line {}, column {}", m_line, column); }

    void readHeader()
    {
        for (std::size_t c = 0; c < kColumns.size(); ++c) {
            m_index[c] = m_fields.size();
            for (std::size_t i = 0; i < m_fields.size(); ++i)
                if (m_fields[i] == kColumns[c])
                    m_index[c] = i;
            if (m_index[c] == m_fields.size())
                fail(fmt::format("line {}, header", m_line),
                     fmt::format("column '{}' is missing from the header; the Azure format needs "
                                 "TIMESTAMP,ContextTokens,GeneratedTokens",
                                 kColumns[c]),
                     fmt::format("add a '{}' column; names are case-sensitive and other columns are ignored",
                                 kColumns[c]));
        }
        m_headerFields = m_fields.size();
    }

    std::uint32_t readCount(std::size_t column) const
    {
        const std::string_view s = m_fields[m_index[column]];
        const std::string_view name = kColumns[column];
        if (!s.empty() && s.front() == '-')
            fail(at(name), fmt::format("'{}' is a negative token count", s), "token counts are 0 or more");
        std::uint32_t value = 0;
        const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
        if (s.empty() || ec != std::errc() || end != s.data() + s.size())
            fail(at(name),
                 ec == std::errc::result_out_of_range ? fmt::format("'{}' is too large for a token count", s)
                                                      : fmt::format("'{}' is not a whole number", s),
                 "write the token count as a whole number, e.g. 374");
        return value;
    }

    TraceRow readRow() const
    {
        if (m_fields.size() != m_headerFields)
            fail(fmt::format("line {}", m_line),
                 fmt::format("the row has {} fields but the header has {}", m_fields.size(), m_headerFields),
                 "give every row one value per header column, separated by commas");
        TraceRow row;
        const std::string_view stamp = m_fields[m_index[0]];
        bool outOfRange = false;
        const auto time = parseTimestamp(stamp, outOfRange);
        if (!time)
            fail(at(kColumns[0]),
                 outOfRange ? fmt::format("'{}' is outside the range of the 64-bit nanosecond clock", stamp)
                            : fmt::format("'{}' is not a timestamp", stamp),
                 kTimestampFix);
        row.timeNs = *time;
        row.promptTokens = readCount(1);
        row.outputTokens = readCount(2);
        if (row.promptTokens == 0)
            fail(at(kColumns[1]), "a request with 0 context tokens has no prompt to prefill",
                 "remove the row or give it at least 1 context token");
        // A request always yields at least the token its prefill produces, so 0 generated tokens replay as 1.
        if (row.outputTokens == 0)
            row.outputTokens = 1;
        return row;
    }

    const std::string& m_path;
    std::string_view m_text;
    std::size_t m_line = 0;
    std::vector<std::string_view> m_fields;
    std::array<std::size_t, 3> m_index{};
    std::size_t m_headerFields = 0;
};

} // namespace

Workload readAzureTrace(const std::string& path, double timeScale, std::uint32_t maxRequests)
{
    const std::string text = readTraceFile(path, "Azure");
    std::vector<TraceRow> rows = AzureParser(path, text).parse();
    // Azure rows carry no prefix hashes. Out-of-order rows are sorted stably by finishTrace.
    return finishTrace(std::move(rows), {}, path, timeScale, maxRequests);
}

} // namespace coh::core
