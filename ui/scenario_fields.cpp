#include "ui/scenario_fields.h"

#include "ui/qt_text.h"
#include "ui/scenario_document.h"

#include <QComboBox>
#include <QLineEdit>
#include <QSignalBlocker>

namespace coh::ui {

ScenarioFields::ScenarioFields(ScenarioDocument* document, QObject* parent)
    : QObject(parent)
    , m_document(document)
{
}

nlohmann::ordered_json ScenarioFields::parseValue(const QString& text)
{
    const QString t = text.trimmed();
    bool ok = false;
    const qlonglong whole = t.toLongLong(&ok);
    if (ok)
        return whole;
    const double real = t.toDouble(&ok);
    if (ok)
        return real;
    return toStdString(t);
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

QLineEdit* ScenarioFields::text(const std::string& pointer, const QString& label, bool removeWhenEmpty, QWidget* parent)
{
    auto* edit = new QLineEdit(parent);
    m_bindings.push_back({pointer, edit, removeWhenEmpty ? Kind::TextOptional : Kind::Text, label});
    const Binding binding = m_bindings.back();
    // editingFinished (Enter or focus out) makes one undo step per field edit, not one per keystroke.
    connect(edit, &QLineEdit::editingFinished, this, [this, binding] { commit(binding); });
    return edit;
}

QLineEdit* ScenarioFields::value(const std::string& pointer, const QString& label, const QString& defaultText,
                                 QWidget* parent)
{
    auto* edit = new QLineEdit(parent);
    if (!defaultText.isEmpty())
        edit->setPlaceholderText(tr("default: %1").arg(defaultText));
    m_bindings.push_back({pointer, edit, Kind::Value, label});
    const Binding binding = m_bindings.back();
    connect(edit, &QLineEdit::editingFinished, this, [this, binding] { commit(binding); });
    return edit;
}

QComboBox* ScenarioFields::choice(const std::string& pointer, const QString& label, const QStringList& values,
                                  const QString& defaultText, QWidget* parent)
{
    auto* combo = new QComboBox(parent);
    if (!defaultText.isEmpty())
        combo->addItem(tr("(default: %1)").arg(defaultText), QString());
    for (const QString& v : values)
        combo->addItem(v, v);
    m_bindings.push_back({pointer, combo, Kind::Choice, label});
    const Binding binding = m_bindings.back();
    connect(combo, &QComboBox::activated, this, [this, binding] { commit(binding); });
    return combo;
}

void ScenarioFields::commit(const Binding& binding)
{
    const QString what = tr("Edit %1").arg(binding.label);
    const auto current = m_document->value(binding.pointer);
    std::optional<nlohmann::ordered_json> next;
    switch (binding.kind) {
    case Kind::Text:
    case Kind::TextOptional: {
        const QString t = static_cast<QLineEdit*>(binding.widget)->text();
        if (!t.isEmpty() || binding.kind == Kind::Text)
            next = toStdString(t);
        break;
    }
    case Kind::Value: {
        const QString t = static_cast<QLineEdit*>(binding.widget)->text();
        if (!t.trimmed().isEmpty())
            next = parseValue(t);
        break;
    }
    case Kind::Choice: {
        const QString v = static_cast<QComboBox*>(binding.widget)->currentData().toString();
        if (!v.isEmpty())
            next = toStdString(v);
        break;
    }
    }
    // Re-committing what is already there would push an empty undo step on every focus change.
    if (next == current)
        return;
    if (next)
        m_document->setValue(binding.pointer, *next, what);
    else if (current)
        m_document->removeValue(binding.pointer, what);
}

void ScenarioFields::refresh()
{
    for (const Binding& b : m_bindings) {
        const auto v = m_document->value(b.pointer);
        const QSignalBlocker blocker(b.widget);
        if (b.kind == Kind::Choice) {
            auto* combo = static_cast<QComboBox*>(b.widget);
            const QString text = v ? valueText(*v) : QString();
            int index = combo->findData(text);
            if (index < 0 && !text.isEmpty()) {
                // A value the form does not offer (a typo in the file): show it so Problems' message makes sense.
                combo->addItem(text, text);
                index = combo->count() - 1;
            }
            combo->setCurrentIndex(std::max(index, 0));
        } else {
            auto* edit = static_cast<QLineEdit*>(b.widget);
            const QString text = v ? valueText(*v) : QString();
            if (edit->text() != text)
                edit->setText(text);
        }
    }
}

} // namespace coh::ui
