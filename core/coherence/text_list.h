#pragma once
// Comma lists for reports. Appending piecewise (rather than `sep + std::string`) also sidesteps GCC 12's
// -Wrestrict false positive on operator+(const char*, std::string&&).
#include <string>
#include <string_view>

namespace coh::core::coherence {

inline void appendItem(std::string& list, std::string_view item, std::string_view separator = ", ")
{
    if (!list.empty())
        list += separator;
    list += item;
}

} // namespace coh::core::coherence
