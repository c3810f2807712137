#include "core/scenario/units.h"

#include <fmt/format.h>

#include <array>
#include <charconv>
#include <cmath>
#include <limits>
#include <optional>
#include <utility>

namespace coh::core {

namespace {

struct UnitScale {
    std::string_view unit;
    double scale;
};

constexpr std::array<UnitScale, 6> kTimeUnits{{
    {"ns", 1.0},
    {"us", 1e3},
    {"\xC2\xB5s", 1e3}, // U+00B5 MICRO SIGN
    {"\xCE\xBCs", 1e3}, // U+03BC GREEK SMALL LETTER MU, which many keyboards produce instead
    {"ms", 1e6},
    {"s", 1e9},
}};

constexpr std::array<UnitScale, 12> kByteUnits{{
    {"B", 1.0},
    {"KB", 1e3},
    {"kB", 1e3},
    {"MB", 1e6},
    {"GB", 1e9},
    {"TB", 1e12},
    {"PB", 1e15},
    {"KiB", 1024.0},
    {"MiB", 1024.0 * 1024},
    {"GiB", 1024.0 * 1024 * 1024},
    {"TiB", 1024.0 * 1024 * 1024 * 1024},
    {"PiB", 1024.0 * 1024 * 1024 * 1024 * 1024},
}};

// Bit units: the same prefixes with a lower-case b. Scales are in bits.
constexpr std::array<UnitScale, 11> kBitUnits{{
    {"b", 1.0},
    {"Kb", 1e3},
    {"kb", 1e3},
    {"Mb", 1e6},
    {"Gb", 1e9},
    {"Tb", 1e12},
    {"Pb", 1e15},
    {"Kib", 1024.0},
    {"Mib", 1024.0 * 1024},
    {"Gib", 1024.0 * 1024 * 1024},
    {"Tib", 1024.0 * 1024 * 1024 * 1024},
}};

template <std::size_t N> const UnitScale* findUnit(const std::array<UnitScale, N>& units, std::string_view unit)
{
    for (const auto& u : units)
        if (u.unit == unit)
            return &u;
    return nullptr;
}

std::string_view trim(std::string_view s)
{
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
        s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t'))
        s.remove_suffix(1);
    return s;
}

std::string lower(std::string_view s)
{
    std::string out(s);
    for (char& c : out)
        if (c >= 'A' && c <= 'Z')
            c = static_cast<char>(c - 'A' + 'a');
    return out;
}

// Splits "1.5 us" into 1.5 and "us". The unit may follow the number directly ("1.5us").
std::pair<double, std::string_view> splitNumber(std::string_view text, Quantity quantity)
{
    std::string_view s = trim(text);
    if (s.empty())
        throw UnitError(fmt::format("empty {}", quantityName(quantity)));
    const char* begin = s.data();
    if (*begin == '+')
        ++begin;
    double value = 0;
    auto [end, ec] = std::from_chars(begin, s.data() + s.size(), value);
    if (ec == std::errc::result_out_of_range)
        throw UnitError(fmt::format("'{}' is out of range", text));
    if (ec != std::errc() || end == begin)
        throw UnitError(fmt::format("'{}' does not start with a number", text));
    if (!std::isfinite(value))
        throw UnitError(fmt::format("'{}' is not a finite number", text));
    std::string_view unit = trim(std::string_view(end, static_cast<std::size_t>(s.data() + s.size() - end)));
    if (unit.empty())
        throw UnitError(fmt::format("'{}' has no unit", text));
    return {value, unit};
}

// Bytes per second from a unit such as "GB/s", "Gb/s", "GBps", "Gbps".
std::optional<double> bandwidthScale(std::string_view unit)
{
    std::string_view size;
    if (unit.size() > 2 && unit.substr(unit.size() - 2) == "/s")
        size = unit.substr(0, unit.size() - 2);
    else if (unit.size() > 2 && unit.substr(unit.size() - 2) == "ps")
        size = unit.substr(0, unit.size() - 2);
    else
        return std::nullopt;
    if (const UnitScale* u = findUnit(kByteUnits, size))
        return u->scale;
    if (const UnitScale* u = findUnit(kBitUnits, size))
        return u->scale / 8.0;
    return std::nullopt;
}

std::optional<double> flopsScale(std::string_view unit)
{
    std::string u = lower(unit);
    double scale = 1.0;
    // "flops" would otherwise read as prefix-less "flop" + "s"; check the bare forms first.
    static constexpr std::array<std::pair<char, double>, 6> kPrefixes{
        {{'k', 1e3}, {'m', 1e6}, {'g', 1e9}, {'t', 1e12}, {'p', 1e15}, {'e', 1e18}}};
    if (u != "flop/s" && u != "flops" && !u.empty()) {
        bool found = false;
        for (auto [prefix, s] : kPrefixes)
            if (u.front() == prefix) {
                scale = s;
                found = true;
            }
        if (!found)
            return std::nullopt;
        u.erase(0, 1);
    }
    if (u == "flop/s" || u == "flops")
        return scale;
    return std::nullopt;
}

double quantityInBaseUnits(Quantity quantity, std::string_view text)
{
    auto [value, unit] = splitNumber(text, quantity);
    switch (quantity) {
    case Quantity::Time:
        if (const UnitScale* u = findUnit(kTimeUnits, unit))
            return value * u->scale;
        throw UnitError(fmt::format("unknown time unit '{}' in '{}' (use ns, us, ms or s)", unit, text));
    case Quantity::Bytes:
        if (const UnitScale* u = findUnit(kByteUnits, unit))
            return value * u->scale;
        if (findUnit(kBitUnits, unit))
            throw UnitError(fmt::format("'{}' is in bits; sizes are in bytes (upper-case B, e.g. GB or GiB)", text));
        if (bandwidthScale(unit))
            throw UnitError(fmt::format("'{}' is a bandwidth, not a size", text));
        throw UnitError(
            fmt::format("unknown size unit '{}' in '{}' (use B, KB, MB, GB, TB or KiB, MiB, GiB, TiB)", unit, text));
    case Quantity::Bandwidth:
        if (auto scale = bandwidthScale(unit))
            return value * *scale;
        if (findUnit(kByteUnits, unit) || findUnit(kBitUnits, unit))
            throw UnitError(fmt::format("'{}' is a size, not a bandwidth (add /s)", text));
        throw UnitError(fmt::format("unknown bandwidth unit '{}' in '{}' (use GB/s, GiB/s, Gb/s or Gbps)", unit, text));
    case Quantity::Flops:
        if (auto scale = flopsScale(unit))
            return value * *scale;
        throw UnitError(fmt::format("unknown compute unit '{}' in '{}' (use TFLOP/s, TFLOPS or GFLOP/s)", unit, text));
    }
    throw UnitError("unknown quantity");
}

} // namespace

double parseQuantity(Quantity quantity, std::string_view text)
{
    // "1e308 TB" is a finite number times a finite scale, and infinite.
    const double value = quantityInBaseUnits(quantity, text);
    if (!std::isfinite(value))
        throw UnitError(fmt::format("'{}' is beyond the range this tool computes with", text));
    return value;
}

SimTime parseTime(std::string_view text)
{
    double ns = std::round(parseQuantity(Quantity::Time, text));
    // 2^63 ns is about 292 years; anything near it is a typo.
    if (std::fabs(ns) >= kClockLimitNs)
        throw UnitError(fmt::format("'{}' is too long (the limit is about 292 years)", text));
    return static_cast<SimTime>(ns);
}

double parseBytes(std::string_view text)
{
    return parseQuantity(Quantity::Bytes, text);
}
double parseBandwidth(std::string_view text)
{
    return parseQuantity(Quantity::Bandwidth, text);
}
double parseFlops(std::string_view text)
{
    return parseQuantity(Quantity::Flops, text);
}

const char* quantityName(Quantity quantity)
{
    switch (quantity) {
    case Quantity::Time:
        return "time";
    case Quantity::Bytes:
        return "size";
    case Quantity::Bandwidth:
        return "bandwidth";
    case Quantity::Flops:
        return "compute rate";
    }
    return "quantity";
}

const char* quantityExample(Quantity quantity)
{
    switch (quantity) {
    case Quantity::Time:
        return "\"1.5 us\"";
    case Quantity::Bytes:
        return "\"80 GB\"";
    case Quantity::Bandwidth:
        return "\"64 GB/s\"";
    case Quantity::Flops:
        return "\"989 TFLOP/s\"";
    }
    return "";
}

namespace {

std::string formatScaled(double value, const char* suffix)
{
    static constexpr std::array<std::pair<double, const char*>, 6> kScales{
        {{1e15, "P"}, {1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "K"}, {1.0, ""}}};
    for (auto [scale, prefix] : kScales)
        if (std::fabs(value) >= scale)
            return fmt::format("{:.3g} {}{}", value / scale, prefix, suffix);
    return fmt::format("{:.3g} {}", value, suffix);
}

} // namespace

std::string formatBytes(double bytes)
{
    return formatScaled(bytes, "B");
}
std::string formatBandwidth(double bytesPerSec)
{
    return formatScaled(bytesPerSec, "B/s");
}

} // namespace coh::core
