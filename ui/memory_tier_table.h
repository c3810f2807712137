#pragma once
// The memory tiers of one node (tier, capacity, bandwidth) as a table with Add/Remove. Capacity and bandwidth
// cells are FieldEdits, so a value core would refuse is refused in the cell; each stored edit is one undo step.

#include "core/base/input_error.h"

#include <QWidget>

#include <string>
#include <vector>

class QPushButton;
class QTableWidget;

namespace coh::ui {

class ScenarioDocument;

class MemoryTierTable : public QWidget {
    Q_OBJECT
  public:
    explicit MemoryTierTable(ScenarioDocument* document, QWidget* parent = nullptr);

    // The node's JSON pointer ("/topology/nodes/3"); empty shows nothing.
    void setNodePointer(const std::string& pointer);
    void refresh();
    // Marks the cells core's validation names.
    void showProblems(const std::vector<core::InputProblem>& problems);
    QTableWidget* table() const { return m_table; }

  private:
    void addTier();
    void removeTier();
    std::string tierPointer(int row) const;

    ScenarioDocument* m_document;
    std::string m_nodePointer;
    QTableWidget* m_table;
    QPushButton* m_add;
    QPushButton* m_remove;
    bool m_refreshing = false;
};

} // namespace coh::ui
