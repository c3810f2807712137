#include "ui/set_json_value_command.h"

#include "ui/scenario_document.h"

namespace coh::ui {

SetJsonValueCommand::SetJsonValueCommand(ScenarioDocument* document, std::string pointer,
                                         std::optional<nlohmann::ordered_json> before,
                                         std::optional<nlohmann::ordered_json> after, const QString& text, int mergeId)
    : QUndoCommand(text)
    , m_document(document)
    , m_pointer(std::move(pointer))
    , m_before(std::move(before))
    , m_after(std::move(after))
    , m_mergeId(mergeId)
{
}

void SetJsonValueCommand::redo()
{
    m_document->applyChange(m_pointer, m_before.has_value(), m_after);
}

void SetJsonValueCommand::undo()
{
    m_document->applyChange(m_pointer, m_after.has_value(), m_before);
}

bool SetJsonValueCommand::mergeWith(const QUndoCommand* other)
{
    const auto* next = dynamic_cast<const SetJsonValueCommand*>(other);
    if (m_sealed || !next || next->m_pointer != m_pointer || next->m_mergeId != m_mergeId)
        return false;
    m_after = next->m_after;
    m_sealed = next->m_sealed;
    // Typing a value back to what it was leaves nothing to undo.
    if (m_after == m_before)
        setObsolete(true);
    return true;
}

} // namespace coh::ui
