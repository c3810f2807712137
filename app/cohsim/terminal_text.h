#pragma once
// Text that users stored (run names) printed on a terminal, and names given on the command line. A newline breaks
// `runs list`'s table and an escape sequence recolours the terminal, so control characters are printed as \xNN
// (what is stored, visibly), and a new name may not hold any.
#include "core/base/input_error.h"
#include "core/base/printable_text.h"

#include <fmt/format.h>

#include <string>
#include <string_view>

namespace coh::cli {

using core::isControl;
using core::terminalSafe;

// Refuses an empty name, or one with a control character, naming `option` (e.g. "--name").
inline void checkRunName(std::string_view name, const std::string& option)
{
    if (name.empty())
        throw core::InputError("", option, "a run's name may not be empty", "give it a name, e.g. \"msi baseline\"");
    for (const char c : name)
        if (isControl(static_cast<unsigned char>(c)))
            throw core::InputError("", option,
                                   fmt::format("'{}' holds a control character (\\x{:02x})", terminalSafe(name),
                                               static_cast<unsigned char>(c)),
                                   "give a name of printable characters (spaces and any script are fine)");
}

} // namespace coh::cli
