#include "ui/field_edit.h"

#include "ui/field_problems.h"
#include "ui/scenario_document.h"
#include "ui/vary_action.h"

#include <QContextMenuEvent>
#include <QFocusEvent>
#include <QKeyEvent>
#include <QMenu>
#include <QUndoStack>

#include <memory>

namespace coh::ui {

using nlohmann::ordered_json;

namespace {

QString textOf(const std::optional<ordered_json>& value)
{
    if (!value || value->is_null())
        return {};
    if (value->is_string())
        return toQString(value->get<std::string>());
    if (value->is_number_integer())
        return QString::number(value->get<long long>());
    if (value->is_number_unsigned())
        return QString::number(value->get<unsigned long long>());
    if (value->is_number())
        return QString::number(value->get<double>(), 'g', 15);
    return toQString(value->dump());
}

} // namespace

FieldEdit::FieldEdit(ScenarioDocument* document, Kind kind, const QString& what, QWidget* parent)
    : QLineEdit(parent)
    , m_document(document)
    , m_kind(kind)
    , m_what(what)
{
    // Enter, or leaving the field after typing: one undo step per edit, not one per keystroke.
    connect(this, &QLineEdit::editingFinished, this, &FieldEdit::commit);
}

void FieldEdit::setPointer(const std::string& pointer)
{
    if (pointer == m_pointer)
        return;
    m_pointer = pointer;
    m_refusal.clear();
    m_problems.clear();
    setModified(false);
    refresh();
    updateMark();
}

QString FieldEdit::storedText() const
{
    return m_pointer.empty() ? QString() : textOf(m_document->value(m_pointer));
}

void FieldEdit::refresh()
{
    if (isRefused() || (hasFocus() && isModified()))
        return;
    const QString text = storedText();
    if (this->text() != text)
        showStored(text);
}

void FieldEdit::showStored(const QString& text)
{
    setText(text);
    // setText leaves the cursor at the end, scrolled to the tail of a long value ("...under a second."): a field
    // nobody is typing in reads from its start.
    if (!hasFocus())
        setCursorPosition(0);
}

bool FieldEdit::commit()
{
    if (m_pointer.empty())
        return true;
    std::optional<ordered_json> value;
    switch (m_kind) {
    case Kind::Value:
        value = ScenarioDocument::fieldValue(text());
        break;
    case Kind::Text:
        value = ordered_json(toStdString(text()));
        break;
    case Kind::OptionalText:
        if (!text().isEmpty())
            value = ordered_json(toStdString(text()));
        break;
    }
    const std::optional<ordered_json> current = m_document->value(m_pointer);
    m_refusal = value ? m_document->checkField(m_pointer, *value) : QString();
    setModified(false);
    if (isRefused() || value == current) {
        updateMark();
        return !isRefused();
    }
    if (value) {
        m_document->setValue(m_pointer, *value, tr("Edit %1").arg(m_what));
    } else {
        QUndoStack* undo = m_document->undoStack();
        // One step: undo brings the value back, not an empty parent.
        undo->beginMacro(tr("Clear %1").arg(m_what));
        m_document->removeValue(m_pointer, tr("Clear %1").arg(m_what));
        const std::string parent = m_pointer.substr(0, m_pointer.rfind('/'));
        if (m_removesEmptyParent && m_document->value(parent) == ordered_json::object())
            m_document->removeValue(parent, tr("Clear %1").arg(m_what));
        undo->endMacro();
    }
    updateMark();
    return true;
}

void FieldEdit::revert()
{
    m_refusal.clear();
    setModified(false);
    showStored(storedText());
    updateMark();
}

void FieldEdit::showProblems(const QStringList& problems)
{
    m_problems = problems;
    updateMark();
}

void FieldEdit::updateMark()
{
    markField(this, isRefused() ? QStringList{m_refusal} : m_problems);
}

void FieldEdit::focusOutEvent(QFocusEvent* event)
{
    QLineEdit::focusOutEvent(event); // commits (editingFinished)
    // Left for another field, the text reads from its start again; a context menu is still editing it.
    if (event->reason() != Qt::PopupFocusReason)
        setCursorPosition(0);
}

void FieldEdit::contextMenuEvent(QContextMenuEvent* event)
{
    const std::unique_ptr<QMenu> menu(createStandardContextMenu());
    if (!m_pointer.empty())
        addVaryAction(menu.get(), m_document, m_pointer, {});
    menu->exec(event->globalPos());
}

void FieldEdit::keyPressEvent(QKeyEvent* event)
{
    if (event->key() == Qt::Key_Escape && (isRefused() || text() != storedText())) {
        revert();
        event->accept();
        return;
    }
    QLineEdit::keyPressEvent(event);
}

} // namespace coh::ui
