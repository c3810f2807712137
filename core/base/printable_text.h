#pragma once
// Text a user typed, echoed on a terminal harmlessly: a newline would break a table and an escape sequence recolour
// the terminal, so control characters are shown as \xNN (what was typed, visibly).
#include <fmt/format.h>

#include <string>
#include <string_view>

namespace coh::core {

inline bool isControl(unsigned char c)
{
    return c < 0x20 || c == 0x7f;
}

inline std::string terminalSafe(std::string_view text)
{
    std::string out;
    out.reserve(text.size());
    for (const char c : text) {
        if (isControl(static_cast<unsigned char>(c)))
            out += fmt::format("\\x{:02x}", static_cast<unsigned char>(c));
        else
            out += c;
    }
    return out;
}

} // namespace coh::core
