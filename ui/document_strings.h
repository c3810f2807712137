#pragma once
// Strings the editor forms read back from the scenario document: one at a pointer, or a list of them.
#include "ui/qt_text.h"
#include "ui/scenario_document.h"

#include <QString>
#include <QStringList>

#include <string>

namespace coh::ui {

// The document's string at `pointer`; "" when it holds none (missing, or another type).
inline QString documentString(const ScenarioDocument& document, const std::string& pointer)
{
    const auto v = document.value(pointer);
    return v && v->is_string() ? toQString(v->get<std::string>()) : QString();
}

// The strings of the array at `pointer`, in order, skipping anything else; empty when it is no array.
inline QStringList documentStrings(const ScenarioDocument& document, const std::string& pointer)
{
    QStringList strings;
    const auto v = document.value(pointer);
    if (v && v->is_array())
        for (const auto& item : *v)
            if (item.is_string())
                strings << toQString(item.get<std::string>());
    return strings;
}

} // namespace coh::ui
