#pragma once
// The one undo command of the scenario document: the value at a JSON pointer before and after (nullopt =
// absent). redo() and undo() just swap which one is applied; consecutive edits of the same pointer with the
// same non-zero mergeId merge, so typing in a field or dragging a node is one undo step.

#include <nlohmann/json.hpp>

#include <QUndoCommand>

#include <optional>
#include <string>

namespace coh::ui {

class ScenarioDocument;

class SetJsonValueCommand : public QUndoCommand {
  public:
    SetJsonValueCommand(ScenarioDocument* document, std::string pointer, std::optional<nlohmann::ordered_json> before,
                        std::optional<nlohmann::ordered_json> after, const QString& text, int mergeId = 0);

    void redo() override;
    void undo() override;
    int id() const override { return m_mergeId == 0 ? -1 : m_mergeId; }
    bool mergeWith(const QUndoCommand* other) override;

    // Ends merging into this command (a drag finished: the next drag is its own undo step).
    void seal() { m_sealed = true; }
    const std::string& pointer() const { return m_pointer; }

  private:
    ScenarioDocument* m_document;
    std::string m_pointer;
    std::optional<nlohmann::ordered_json> m_before;
    std::optional<nlohmann::ordered_json> m_after;
    int m_mergeId;
    bool m_sealed = false;
};

} // namespace coh::ui
