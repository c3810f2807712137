#pragma once
// Checks shared by cohsim's number options. CLI11 2.1 reads "-1" into an unsigned option as its largest value and
// a value past the type as the largest (strtoull wraps and saturates), so a seed of -1 ran as 18446744073709551615
// without a word: whole-number options take digits only, within their type.
#include <CLI/CLI.hpp>

#include <charconv>
#include <cstdint>
#include <limits>
#include <string>

namespace coh::cli {

// Digits only, no sign, at most `most` (the option's type's largest by default). Give it with ->transform (it strips
// leading zeros, which ->check would not keep).
inline CLI::Validator wholeNumber(std::uint64_t most = std::numeric_limits<std::uint64_t>::max())
{
    return CLI::Validator(
        [most](std::string& text) -> std::string {
            // CLI11 converts with base 0, so "010" would be octal 8: the digits are read as decimal here.
            while (text.size() > 1 && text.front() == '0')
                text.erase(0, 1);
            std::uint64_t value = 0;
            const char* end = text.data() + text.size();
            const auto [stop, error] = std::from_chars(text.data(), end, value);
            if (text.empty() || error == std::errc::invalid_argument || stop != end)
                return "'" + text + "' is not a whole number (digits only, no sign)";
            if (error == std::errc::result_out_of_range || value > most)
                return "'" + text + "' is larger than " + std::to_string(most);
            return {};
        },
        "UINT");
}

// A --repeat: rounds or runs of a bench, at least one and few enough to end (0 was taken as 1 without a word).
inline CLI::Range repeatCount()
{
    return CLI::Range(1, 1000);
}

} // namespace coh::cli
