#pragma once
// Small conversions the run store's files share: the time stamp every row gets and a nullable text column.
#include <SQLiteCpp/Column.h>
#include <fmt/chrono.h>

#include <ctime>
#include <string>

namespace coh::core {

// ISO-8601 UTC to the second, e.g. 2024-05-01T12:34:56Z.
inline std::string utcNow()
{
    return fmt::format("{:%Y-%m-%dT%H:%M:%SZ}", fmt::gmtime(std::time(nullptr)));
}

inline std::string textOrEmpty(const SQLite::Column& c)
{
    return c.isNull() ? std::string{} : c.getString();
}

} // namespace coh::core
