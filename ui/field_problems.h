#pragma once
// Matches core's validation text to editor fields: each problem line reads "file: /json/pointer: message (fix:
// ...)", so the problem of a field is the line that names the field's pointer. Fields with a problem turn red
// and carry the line as tooltip.

#include "ui/qt_text.h"

#include <nlohmann/json.hpp>

#include <optional>

#include <QStringList>
#include <QWidget>

#include <string>

namespace coh::ui {

// The problem lines naming exactly `pointer` (not "/topology/nodes/10" for "/topology/nodes/1").
inline QStringList problemsAt(const QStringList& lines, const std::string& pointer)
{
    const QString needle = toQString(pointer) + QStringLiteral(": ");
    QStringList found;
    for (const QString& line : lines) {
        const qsizetype at = line.indexOf(needle);
        if (at >= 0)
            found << line.mid(at);
    }
    return found;
}

// The problem lines at `pointer` or anywhere below it.
inline QStringList problemsUnder(const QStringList& lines, const std::string& pointer)
{
    const QString exact = toQString(pointer) + QStringLiteral(": ");
    const QString below = toQString(pointer) + QLatin1Char('/');
    QStringList found;
    for (const QString& line : lines) {
        qsizetype at = line.indexOf(exact);
        if (at < 0)
            at = line.indexOf(below);
        if (at >= 0)
            found << line.mid(at);
    }
    return found;
}

inline void markField(QWidget* field, const QStringList& problems)
{
    const bool invalid = !problems.isEmpty();
    if (field->property("invalid").toBool() == invalid && field->toolTip() == problems.join(QLatin1Char('\n')))
        return;
    field->setProperty("invalid", invalid);
    field->setToolTip(problems.join(QLatin1Char('\n')));
    // Red text, not a red background: readable in light and dark palettes.
    field->setStyleSheet(invalid ? QStringLiteral("color: #d32f2f;") : QString());
}

// Line-edit text <-> JSON value: "42" is the number 42 (base units), "450 GB/s" stays a string, "" is absent.
inline std::optional<nlohmann::ordered_json> valueFromText(const QString& text)
{
    const QString trimmed = text.trimmed();
    if (trimmed.isEmpty())
        return std::nullopt;
    bool ok = false;
    const double number = trimmed.toDouble(&ok);
    if (!ok)
        return nlohmann::ordered_json(toStdString(trimmed));
    const bool whole = number == static_cast<double>(static_cast<long long>(number)) && number > -9e15 && number < 9e15;
    return whole ? nlohmann::ordered_json(static_cast<long long>(number)) : nlohmann::ordered_json(number);
}

inline QString textFromValue(const std::optional<nlohmann::ordered_json>& value)
{
    if (!value || value->is_null())
        return {};
    if (value->is_string())
        return toQString(value->get<std::string>());
    if (value->is_number_float())
        return QString::number(value->get<double>(), 'g', 15);
    return toQString(value->dump());
}

} // namespace coh::ui
