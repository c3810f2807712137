#pragma once
// Strings cross between core (UTF-8 std::string) and Qt (QString) only through these two calls.

#include <QString>

#include <string>
#include <string_view>

namespace coh::ui {

inline QString toQString(std::string_view text)
{
    return QString::fromUtf8(text.data(), static_cast<qsizetype>(text.size()));
}

inline std::string toStdString(const QString& text)
{
    return text.toStdString();
}

} // namespace coh::ui
