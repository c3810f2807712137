#pragma once
// The Scenario dock's Failures section (the top-level "failures"): a table of failures, one row an event (what
// fails: a node that runs a serving instance, or a link of the topology; the kind, "at" for one failure at a time or
// "mtbf" for failures at random; the time; the repair time, or never), Add and Remove, then the detection heartbeat and
// timeout and the recovery of the requests a failure takes. Each change is one undo step. Removing the last event
// removes the whole section (detection and recovery mean nothing without failures), and those rows stay disabled
// until an event is added (one the file gives anyway stays editable so it can be cleared).

#include "core/base/input_error.h"

#include <nlohmann/json.hpp>

#include <QStringList>
#include <QWidget>

#include <vector>

class QComboBox;
class QLabel;
class QPushButton;
class QTableWidget;

namespace coh::ui {

class FieldEdit;
class ScenarioDocument;
class ScenarioFields;

class FailuresForm : public QWidget {
    Q_OBJECT
  public:
    enum Column { Node, Kind, Time, Repair, ColumnCount }; // Node: what fails, a node or a link

    // `fields` binds the detection times and the recovery and marks them with validation's problems.
    FailuresForm(ScenarioDocument* document, ScenarioFields* fields, QWidget* parent = nullptr);

    QTableWidget* table() const { return m_table; }
    QLabel* emptyLabel() const { return m_empty; }
    QPushButton* addButton() const { return m_add; }
    QPushButton* removeButton() const { return m_remove; }
    FieldEdit* heartbeatEdit() const { return m_heartbeat; }
    FieldEdit* timeoutEdit() const { return m_timeout; }
    QComboBox* recoveryCombo() const { return m_recovery; }
    // The row's choosers of what fails (a node or a link), kind and repair (cell widgets; the repair one is editable).
    QComboBox* nodeCombo(int row) const;
    QComboBox* kindCombo(int row) const;
    QComboBox* repairCombo(int row) const;

    // The nodes a failure may name: those of the serving instances in effect (listed, or derived from node roles),
    // in their order; with a role ("decode"), only those of its instances.
    static QStringList instanceNodes(const nlohmann::ordered_json& scenario, const QString& role = {});
    // The ids of the topology's links, as core names them (a link without an id is "a-b").
    static QStringList linkIds(const nlohmann::ordered_json& scenario);

    // Reads the events back from the document (rebuilding the table only when they or the offered nodes changed)
    // and enables the rows that may be edited.
    void refresh();
    // Marks each cell with the problems at its value, and the table with the rest of the section's.
    void showProblems(const std::vector<core::InputProblem>& problems);

  private:
    void rebuild(const nlohmann::ordered_json& events, const QStringList& offered);
    void addEvent();
    void removeSelected();
    void commitTable(); // the table as the events, one undo step
    void commitLater(); // after the signal of the cell being edited has returned
    void updateButtons();

    ScenarioDocument* m_document;
    QLabel* m_empty = nullptr;
    QTableWidget* m_table = nullptr;
    QPushButton* m_add = nullptr;
    QPushButton* m_remove = nullptr;
    FieldEdit* m_heartbeat = nullptr;
    FieldEdit* m_timeout = nullptr;
    QComboBox* m_recovery = nullptr;
    nlohmann::ordered_json m_shownEvents; // what the table was built from
    QStringList m_shownChoices;           // the choices offered: "node:<id>" and "link:<id>"
    bool m_refreshing = false;
};

} // namespace coh::ui
