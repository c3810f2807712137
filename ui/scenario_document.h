#pragma once
// The open scenario. Its JSON is the source of truth (saved back as edited, "source" notes and all); every edit
// is a QUndoCommand on the document's undo stack that replaces the value at one JSON pointer, then emits
// changed(pointer) so views refresh. Validation goes through core, exactly as `cohsim validate` does.

#include "core/base/input_error.h"
#include "core/scenario/scenario.h"

#include <nlohmann/json.hpp>

#include <QObject>
#include <QPointF>
#include <QString>
#include <QStringList>

#include <optional>
#include <string>
#include <vector>

class QUndoStack;

namespace coh::ui {

class ScenarioDocument : public QObject {
    Q_OBJECT
  public:
    explicit ScenarioDocument(QObject* parent = nullptr);
    ~ScenarioDocument() override;

    // --- files -----------------------------------------------------------------------------------------
    // Reads a scenario file. Malformed JSON fails with a message naming the file, line and column; a file that
    // parses but does not validate still opens (so the user can fix it), validate() names the problems.
    bool open(const QString& path, QString* error);
    // Writes the JSON (2-space indent) and marks the undo stack clean.
    bool saveAs(const QString& path, QString* error);
    // Replaces the whole document (new scenario, preset); clears undo. `path` may be empty (untitled).
    void reset(nlohmann::ordered_json root, const QString& path = {});

    const nlohmann::ordered_json& json() const { return m_root; }
    QString filePath() const { return m_path; }
    QString displayName() const; // file name, or the scenario's "name", or "Untitled"
    bool isModified() const;
    QUndoStack* undoStack() const { return m_undo; }

    // --- generic edits (one undo step each) --------------------------------------------------------------
    // Sets the value at a JSON pointer ("/serving/block_tokens"), creating missing parent objects.
    // Edits with the same non-zero mergeId and pointer, pushed one after another, merge into one undo step
    // (typing in a field, dragging a node).
    void setValue(const std::string& pointer, nlohmann::ordered_json value, const QString& text, int mergeId = 0);
    // Removes the value at a JSON pointer (no-op when absent).
    void removeValue(const std::string& pointer, const QString& text);
    // An editor's whole section: stores `section` at the pointer, or removes it when it is left empty (an empty
    // object says nothing); no step when nothing changes.
    void setSection(const std::string& pointer, nlohmann::ordered_json section, const QString& text);
    // The value at a pointer, or nullopt.
    std::optional<nlohmann::ordered_json> value(const std::string& pointer) const;

    // --- topology (ids are the JSON "id"s) -----------------------------------------------------------------
    int nodeCount() const;
    QStringList nodeIds() const;
    QStringList linkIds() const;
    std::optional<nlohmann::ordered_json> node(const QString& id) const;
    std::optional<nlohmann::ordered_json> link(const QString& id) const;
    std::string nodePointer(const QString& id) const; // "/topology/nodes/3", empty when absent
    std::string linkPointer(const QString& id) const;
    // Adds a node of a kind (cpu_socket, gpu, accelerator, cxl_memory, switch, storage) with sensible
    // datasheet-free defaults the user then edits; returns its new unique id ("gpu8").
    QString addNode(const QString& kind, QPointF position);
    // Links a and b (refused, returning an empty id, when a == b or they are already linked).
    QString addLink(const QString& a, const QString& b, const QString& kind = QStringLiteral("pcie"));
    // Removes nodes (with their links) and links, as one undo step.
    void removeItems(const QStringList& nodeIds, const QStringList& linkIds);
    // Moves a node; consecutive moves of the same node merge (one undo step per drag).
    void moveNode(const QString& id, QPointF position);
    // Renames a node and every link end that names it; false (and nothing changes) when the id is taken or empty.
    bool renameNode(const QString& id, const QString& newId);
    QPointF nodePosition(const QString& id) const;

    // --- validation ---------------------------------------------------------------------------------------
    struct Validation {
        std::optional<core::Scenario> scenario;   // set when valid
        QString error;                            // every problem, as core reports it (file, field, fix)
        std::vector<core::InputProblem> problems; // the same, one by one (field = JSON pointer)
    };
    // Cached until the next edit (the property editor, the Scenario dock and the window all ask after each one).
    const Validation& validate() const;

    // --- one field, as core's loader reads it (core/scenario/field_check.h) -------------------------------------
    // The JSON value a form field's text stands for ("42" -> 42, "450 GB/s" stays text); nullopt when blank.
    static std::optional<nlohmann::ordered_json> fieldValue(const QString& text);
    // Core's words for what is wrong with `value` itself at `pointer` (type, unit, range), in a form's language;
    // empty when the loader would read it. Forms refuse such a value instead of storing it.
    QString checkField(const std::string& pointer, const nlohmann::ordered_json& value) const;

    // The user asked to vary the field at `pointer` in a study ("Vary in a Study" on a form field; `choices`: the
    // names a choice offers). The Tuner listens; the document only passes the request on, as every form has it.
    void requestVary(const std::string& pointer, const QStringList& choices) { emit varyRequested(pointer, choices); }

  signals:
    void varyRequested(const std::string& pointer, const QStringList& choices);
    // `pointer` is the JSON pointer that changed; empty means "everything" (open, reset, undo of a compound).
    void changed(const QString& pointer);
    // File path or modified state changed (window title, Save action).
    void fileStateChanged();

  private:
    friend class SetJsonValueCommand;
    void applyValue(const std::string& pointer, const std::optional<nlohmann::ordered_json>& value);
    bool canHold(const nlohmann::ordered_json::json_pointer& target) const;
    // As applyValue, but a value that did not exist before is inserted into an array parent (undoing a removal
    // puts the element back at its index instead of overwriting its successor).
    void applyChange(const std::string& pointer, bool existedBefore,
                     const std::optional<nlohmann::ordered_json>& value);
    const nlohmann::ordered_json* array(const char* pointer) const;
    QString uniqueNodeId(const QString& prefix) const;
    QString uniqueLinkId(const QString& base) const;
    void renameReferences(const QString& id, const QString& newId);

    nlohmann::ordered_json m_root;
    QString m_path;
    QUndoStack* m_undo = nullptr;
    mutable std::optional<Validation> m_validation; // of m_root and m_path as they are; reset by every change
};

} // namespace coh::ui
