#pragma once
// Problem-collecting access to JSON input. Readers never throw on bad values: they record an InputProblem
// (file, JSON pointer, message, fix) and return nullopt, so one pass reports every mistake at once.
#include "core/base/input_error.h"
#include "core/scenario/enum_names.h"
#include "core/scenario/units.h"
#include "core/sim/time.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace coh::core {

// The problems found in one file; throwIfAny() turns them into one InputError.
class ProblemList {
  public:
    explicit ProblemList(std::string file)
        : m_file(std::move(file))
    {
    }
    // At most kMaxProblems are kept; later ones are only counted (throwIfAny says how many), so a file with a
    // million mistakes costs no more than one with a hundred.
    static constexpr std::size_t kMaxProblems = 100;
    // `formText`: the problem in a form's words, for problems with a value's own type, unit or range (InputProblem).
    void add(std::string field, std::string message, std::string fix, std::string formText = {});
    bool empty() const { return m_problems.empty(); }
    // Whether further problems would only be counted: a caller may skip building an expensive message.
    bool full() const { return m_problems.size() >= kMaxProblems; }
    std::size_t size() const { return m_problems.size() + m_dropped; }
    const std::string& file() const { return m_file; }
    const std::vector<InputProblem>& problems() const { return m_problems; }
    void throwIfAny() const;

  private:
    std::string m_file;
    std::vector<InputProblem> m_problems;
    std::size_t m_dropped = 0;
};

// JSON pointer of a member or element below `parent` (RFC 6901: '~' and '/' in keys are escaped).
std::string jsonPointer(const std::string& parent, std::string_view key);
std::string jsonPointer(const std::string& parent, std::size_t index);

// The largest JSON file readJsonFile reads (it is held whole in memory, twice while parsing).
inline constexpr std::uintmax_t kMaxJsonFileBytes = std::uintmax_t{64} << 20;

// Reads and parses a JSON file with parseStrictJson (no repeated keys, bounded nesting, numbers in range). A
// missing, oversized or malformed file throws InputError naming the file and, for a syntax error, the line and
// column.
nlohmann::json readJsonFile(const std::string& path);
nlohmann::json parseJsonText(const std::string& text, const std::string& file);

// "a string", "an array", ... for "must be X, not Y" messages.
const char* describeJsonType(const nlohmann::json& value);

// The candidate closest to `name` by edit distance (ignoring case), if close enough to be a likely typo.
std::optional<std::string> closestName(std::string_view name, const std::vector<std::string>& candidates);
std::string joinNames(const std::vector<std::string>& names, std::size_t limit = 20);

// Whether a read key must be present; `example` is the value shown in the fix when it is missing.
struct Need {
    bool required = false;
    const char* example = "";
};
inline constexpr Need kOptional{};
constexpr Need requiredAs(const char* example)
{
    return {true, example};
}

// Reads the members of one JSON object. Every key asked for is remembered, present or not, so finish()
// can report the keys nobody asked for as unknown (with a "did you mean" from the asked ones).
class ObjectReader {
  public:
    // When `value` is not an object this records a problem and valid() is false; reads then return nullopt.
    ObjectReader(ProblemList& problems, const nlohmann::json& value, std::string pointer, const char* example = "{}");

    bool valid() const { return m_object != nullptr; }
    const std::string& pointer() const { return m_pointer; }
    std::string pointerTo(std::string_view key) const { return jsonPointer(m_pointer, key); }
    ProblemList& problems() { return m_problems; }
    void problem(std::string_view key, std::string message, std::string fix, std::string formText = {});

    // The raw member (nullptr when absent); reports it missing when required.
    const nlohmann::json* get(std::string_view key, Need need = kOptional);

    std::optional<std::string> string(std::string_view key, Need need = kOptional);
    std::optional<double> number(std::string_view key, Need need = kOptional);
    std::optional<double> positive(std::string_view key, Need need = kOptional);    // > 0
    std::optional<double> nonNegative(std::string_view key, Need need = kOptional); // >= 0
    std::optional<double> fraction(std::string_view key, Need need = kOptional);    // in (0, 1]
    std::optional<std::uint64_t> integer(std::string_view key, Need need = kOptional, std::uint64_t min = 0,
                                         std::uint64_t max = UINT32_MAX);
    // A whole count in [min, 2^32): batch sizes, token counts.
    std::optional<std::uint32_t> count(std::string_view key, Need need = kOptional, std::uint32_t min = 0);
    // A string with a unit or a number in base units; bytes, bandwidth and FLOP/s must be positive.
    std::optional<double> quantity(Quantity quantity, std::string_view key, Need need = kOptional);
    std::optional<SimTime> time(std::string_view key, Need need = kOptional, bool allowZero = true);

    template <class E> std::optional<E> enumeration(std::string_view key, Need need = kOptional)
    {
        auto name = string(key, need);
        if (!name)
            return std::nullopt;
        if (auto value = enumFromString<E>(*name))
            return value;
        reportUnknownName(key, *name, enumNames<E>());
        return std::nullopt;
    }

    // Keys that belong to another variant of this object (e.g. "rate" in a trace workload): accepted as
    // known, but each one present is reported with `why` ("is only used by synthetic workloads").
    void rejectKeys(std::initializer_list<std::string_view> keys, std::string_view why);

    // Reports every member that no read asked for.
    void finish();

  private:
    void reportUnknownName(std::string_view key, const std::string& name, const std::vector<std::string>& known);
    void missing(std::string_view key, Need need);

    ProblemList& m_problems;
    const nlohmann::json* m_object = nullptr;
    std::string m_pointer;
    std::set<std::string, std::less<>> m_known;
};

} // namespace coh::core
