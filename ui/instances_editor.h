#pragma once
// serving.instances in the Scenario dock. Unchecked, instances are derived from the nodes' roles (the array is
// absent); checked, a table lists each instance: id, role, its nodes (several form a tensor-parallel group) and
// optional batch limits. Turning it on starts from the instances in effect, so nothing changes until the user
// edits. Every edit rewrites the array as one undo step; core's validation names what is wrong in Problems.

#include "core/base/input_error.h"

#include <nlohmann/json.hpp>

#include <QWidget>

#include <vector>

class QCheckBox;
class QPushButton;
class QTableWidget;

namespace coh::ui {

class ScenarioDocument;

class InstancesEditor : public QWidget {
    Q_OBJECT
  public:
    enum Column { Id, Role, Nodes, MaxBatchSize, MaxBatchTokens, ColumnCount };

    explicit InstancesEditor(ScenarioDocument* document, QWidget* parent = nullptr);

    void refresh();
    // Marks the cells core's validation names (red text, the problem as tooltip).
    void showProblems(const std::vector<core::InputProblem>& problems);
    QCheckBox* explicitCheck() const { return m_explicit; }
    QTableWidget* table() const { return m_table; }
    QPushButton* addButton() const { return m_add; }
    QPushButton* removeButton() const { return m_remove; }

    // The instances core derives from the topology's node roles, in its order and with its names.
    static nlohmann::ordered_json derivedInstances(const nlohmann::ordered_json& scenario);

  private:
    void setExplicit(bool on);
    void addInstance();
    void removeSelected();
    void commitTable(); // the table as the array, one undo step
    void updateButtons();

    ScenarioDocument* m_document;
    QCheckBox* m_explicit = nullptr;
    QTableWidget* m_table = nullptr;
    QPushButton* m_add = nullptr;
    QPushButton* m_remove = nullptr;
    bool m_refreshing = false;
};

} // namespace coh::ui
