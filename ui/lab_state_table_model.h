#pragma once
// The lab's state table: one row per cache (P0..Pn-1) and one for the directory, showing the current step.
// Cells that differ from the previous step are highlighted and bold, so the step's effect is visible at a glance.
#include <QAbstractTableModel>

namespace coh::ui {

class LabModel;

class LabStateTableModel : public QAbstractTableModel {
    Q_OBJECT
  public:
    enum Column { StateColumn, DataColumn, SharersColumn, OwnerColumn, MemoryColumn, ColumnCount };
    // True for a cell that changed since the previous step (the same test the highlight uses).
    static constexpr int ChangedRole = Qt::UserRole + 1;

    explicit LabStateTableModel(LabModel* lab, QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    bool isDirectoryRow(int row) const;

  private:
    void reload();
    // Text of a cell at the current (`previous` false) or previous step; empty where the row has no such field.
    QString cellText(int row, int column, bool previous) const;
    QString stateMeaning(int row) const;

    LabModel* m_lab;
    int m_rows = 0;
};

} // namespace coh::ui
