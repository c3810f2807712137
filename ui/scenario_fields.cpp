#include "ui/scenario_fields.h"

#include "ui/field_edit.h"
#include "ui/field_problems.h"
#include "ui/qt_text.h"
#include "ui/scenario_document.h"
#include "ui/vary_action.h"

#include <QComboBox>
#include <QSignalBlocker>

#include <algorithm>

namespace coh::ui {

ScenarioFields::ScenarioFields(ScenarioDocument* document, QObject* parent)
    : QObject(parent)
    , m_document(document)
{
}

nlohmann::ordered_json ScenarioFields::parseValue(const QString& text)
{
    return ScenarioDocument::fieldValue(text).value_or(nlohmann::ordered_json(std::string()));
}

QString ScenarioFields::valueText(const nlohmann::ordered_json& value)
{
    if (value.is_string())
        return toQString(value.get<std::string>());
    if (value.is_number_integer())
        return QString::number(value.get<long long>());
    if (value.is_number())
        return QString::number(value.get<double>(), 'g', 15);
    if (value.is_null())
        return {};
    return toQString(value.dump());
}

FieldEdit* ScenarioFields::text(const std::string& pointer, const QString& what, bool removeWhenEmpty, QWidget* parent)
{
    auto* edit = new FieldEdit(m_document, removeWhenEmpty ? FieldEdit::Kind::OptionalText : FieldEdit::Kind::Text,
                               what, parent);
    edit->setObjectName(toQString(pointer)); // found by the value it edits (tests, "show this problem")
    edit->setPointer(pointer);
    m_edits.push_back(edit);
    return edit;
}

FieldEdit* ScenarioFields::value(const std::string& pointer, const QString& what, const QString& defaultText,
                                 QWidget* parent)
{
    auto* edit = new FieldEdit(m_document, FieldEdit::Kind::Value, what, parent);
    edit->setObjectName(toQString(pointer));
    if (!defaultText.isEmpty())
        edit->setPlaceholderText(tr("default: %1").arg(defaultText));
    edit->setPointer(pointer);
    m_edits.push_back(edit);
    return edit;
}

QComboBox* ScenarioFields::choice(const std::string& pointer, const QString& what, const QStringList& values,
                                  const QString& defaultText, QWidget* parent)
{
    auto* combo = new QComboBox(parent);
    combo->setObjectName(toQString(pointer));
    // A long entry ("(default: round_robin)") must not hold the dock wider than a narrow screen leaves it.
    combo->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    combo->setMinimumContentsLength(8);
    if (!defaultText.isEmpty())
        combo->addItem(tr("(default: %1)").arg(defaultText), QString());
    for (const QString& v : values)
        combo->addItem(v, v);
    offerVary(combo, m_document, pointer);
    m_choices.push_back({pointer, combo, what});
    const Choice choice = m_choices.back();
    connect(combo, &QComboBox::activated, this, [this, choice] { commit(choice); });
    return combo;
}

void ScenarioFields::watch(QWidget* widget, const std::string& pointer)
{
    if (widget->objectName().isEmpty()) {
        widget->setObjectName(toQString(pointer)); // the first pointer it answers for (ScenarioPanel::showField)
        // A form's own choice (the decode protocol) varies the field it answers for first.
        if (auto* combo = qobject_cast<QComboBox*>(widget))
            offerVary(combo, m_document, pointer);
    }
    m_watched.emplace_back(widget, pointer);
}

void ScenarioFields::commit(const Choice& choice)
{
    const QString what = tr("Edit %1").arg(choice.what);
    const auto current = m_document->value(choice.pointer);
    const QString v = choice.combo->currentData().toString();
    std::optional<nlohmann::ordered_json> next;
    if (!v.isEmpty())
        next = toStdString(v);
    // Re-committing what is already there would push an empty undo step.
    if (next == current)
        return;
    if (next)
        m_document->setValue(choice.pointer, *next, what);
    else
        m_document->removeValue(choice.pointer, what);
}

void ScenarioFields::refresh()
{
    for (FieldEdit* edit : m_edits)
        edit->refresh();
    for (const Choice& choice : m_choices) {
        const auto v = m_document->value(choice.pointer);
        const QSignalBlocker blocker(choice.combo);
        const QString text = v ? valueText(*v) : QString();
        int index = choice.combo->findData(text);
        if (index < 0 && !text.isEmpty()) {
            // A value the form does not offer (a typo in the file): show it so the problem makes sense.
            choice.combo->addItem(text, text);
            index = choice.combo->count() - 1;
        }
        choice.combo->setCurrentIndex(std::max(index, 0));
    }
}

void ScenarioFields::showProblems(const std::vector<core::InputProblem>& problems)
{
    for (FieldEdit* edit : m_edits)
        edit->showProblems(problemsAt(problems, edit->pointer()));
    // A combo box may answer for several pointers (the type picker for "/workload" and "/workload/type").
    std::vector<std::pair<QWidget*, QStringList>> marks;
    const auto add = [&](QWidget* widget, const std::string& pointer) {
        auto it = std::find_if(marks.begin(), marks.end(), [&](const auto& mark) { return mark.first == widget; });
        if (it == marks.end())
            it = marks.insert(marks.end(), {widget, {}});
        it->second << problemsAt(problems, pointer);
    };
    for (const Choice& choice : m_choices)
        add(choice.combo, choice.pointer);
    for (const auto& [widget, pointer] : m_watched)
        add(widget, pointer);
    for (const auto& [widget, found] : marks)
        markField(widget, found);
}

} // namespace coh::ui
