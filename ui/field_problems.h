#pragma once
// Core's validation problems as the editor's fields show them: each problem names its field by JSON pointer, so a
// field's problems are those at its pointer. A field with a problem turns red (the palette's Error tone) and its
// tooltip says what is wrong in a form's words; the Problems dock keeps core's full lines with the JSON fix.

#include "core/base/input_error.h"
#include "ui/qt_text.h"
#include "ui/theme.h"

#include <QStringList>
#include <QVariant>
#include <QWidget>

#include <string>
#include <vector>

namespace coh::ui {

// One problem in a form's words: core's formText for a problem with the value itself ("Enter a bandwidth such as
// 64 GB/s"), else core's message (how it fits the rest: "node 'gpu0' has role 'prefill' but no compute").
inline QString formWords(const core::InputProblem& problem)
{
    QString text = toQString(problem.formText.empty() ? problem.message : problem.formText);
    if (!text.isEmpty())
        text[0] = text[0].toUpper();
    return text;
}

// The problems naming exactly `pointer` (not "/topology/nodes/10" for "/topology/nodes/1").
inline QStringList problemsAt(const std::vector<core::InputProblem>& problems, const std::string& pointer)
{
    QStringList found;
    for (const core::InputProblem& problem : problems)
        if (problem.field == pointer)
            found << formWords(problem);
    return found;
}

// The problems at `pointer` or anywhere below it, each after the field it names relative to `pointer`
// ("memory/0/capacity: Enter a size above zero, such as 80 GB").
inline QStringList problemsUnder(const std::vector<core::InputProblem>& problems, const std::string& pointer)
{
    QStringList found;
    for (const core::InputProblem& problem : problems) {
        if (problem.field == pointer)
            found << formWords(problem);
        else if (problem.field.rfind(pointer + "/", 0) == 0)
            found << toQString(problem.field.substr(pointer.size() + 1)) + QStringLiteral(": ") + formWords(problem);
    }
    return found;
}

// Red (the Error tone, kept across palette changes) with the problems as tooltip, above the field's own help; or
// back to normal with only the help. The "invalid" property says which, for tests and style.
inline void markField(QWidget* field, const QStringList& problems)
{
    // A tooltip this function did not set is the field's explanation (set before or since): keep it under problems.
    const QVariant shown = field->property("cohShown");
    if (!shown.isValid() || shown.toString() != field->toolTip())
        field->setProperty("cohHelp", field->toolTip());
    const QString help = field->property("cohHelp").toString();
    QStringList tip = problems;
    if (!help.isEmpty())
        tip << help;
    const QString toolTip = tip.join(QLatin1Char('\n'));
    const bool invalid = !problems.isEmpty();
    const bool unchanged = field->property("invalid").isValid() && field->property("invalid").toBool() == invalid;
    field->setProperty("invalid", invalid);
    field->setProperty("cohProblems", problems);
    field->setToolTip(toolTip);
    field->setProperty("cohShown", toolTip);
    if (!unchanged)
        setTone(field, invalid ? Tone::Error : Tone::Normal);
}

// Sets a field's explanation (its tooltip, under any problems); use instead of setToolTip on marked fields.
inline void setFieldHelp(QWidget* field, const QString& help)
{
    field->setProperty("cohHelp", help);
    field->setToolTip(help);
    field->setProperty("cohShown", help);
    markField(field, field->property("cohProblems").toStringList());
}

} // namespace coh::ui
