#pragma once
// The memory tiers of one node (tier, capacity, bandwidth) as an editable table with Add/Remove; each cell edit
// is one undo step on the document.

#include <QStringList>
#include <QWidget>

#include <string>

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
    // Marks cells whose pointer has a problem in core's validation text.
    void showProblems(const QStringList& problemLines);
    QTableWidget* table() const { return m_table; }

  private:
    void commitCell(int row, int column);
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
