#pragma once
// The Serving section's replication rows (serving.replication): the factor, the placement and, for the fixed
// placement, the replica nodes as a checkable list of the topology's nodes that can hold KV (core's rule,
// replica_nodes.h). The factor is a plain field (clearing it drops the section when nothing else is left); the
// placement and the nodes edit the section together: a placement other than fixed drops the nodes (core refuses
// them there), and a section left empty is removed. Each change is one undo step.

#include "core/base/input_error.h"

#include <QObject>
#include <QString>
#include <QStringList>

#include <nlohmann/json.hpp>

#include <vector>

class QComboBox;
class QFormLayout;
class QListWidget;
class QListWidgetItem;
class QWidget;

namespace coh::ui {

class FieldEdit;
class ScenarioDocument;
class ScenarioFields;

class ReplicationForm : public QObject {
    Q_OBJECT
  public:
    // Adds the rows to `form`; `fields` binds the factor and marks the placement with validation's problems.
    ReplicationForm(ScenarioDocument* document, ScenarioFields* fields, QFormLayout* form, QWidget* page);

    FieldEdit* factorEdit() const { return m_factor; }
    QComboBox* placementCombo() const { return m_placement; }
    QListWidget* nodeList() const { return m_nodes; }

    // Reads the placement and the nodes back from the document (signals blocked); the list follows the topology.
    void refresh();
    // Marks the node list with the problems at the nodes or any one of them.
    void showProblems(const std::vector<core::InputProblem>& problems);

  private:
    void setPlacement();
    void setNodes(QListWidgetItem* changed);

    ScenarioDocument* m_document;
    FieldEdit* m_factor;
    QComboBox* m_placement;
    QListWidget* m_nodes;
    bool m_inItemChange = false; // setNodes is storing: the list must not lose the item being changed
};

} // namespace coh::ui
