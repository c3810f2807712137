#pragma once
// The protocol's cache and directory transition tables (state x event, cells from core's transitionCell), one tab
// each, with the transition the current lab step took highlighted: its row lightly, its cell strongly.
#include <QTabWidget>

class QTableWidget;

namespace coh::core::coherence {
struct Protocol;
struct ControllerTable;
} // namespace coh::core::coherence

namespace coh::ui {

class LabModel;

class LabTransitionTable : public QTabWidget {
    Q_OBJECT
  public:
    explicit LabTransitionTable(LabModel* lab, QWidget* parent = nullptr);

    QTableWidget* cacheTable() const { return m_cache; }
    QTableWidget* directoryTable() const { return m_directory; }
    // The highlighted (row, column) in the table of the current step's actor; (-1, -1) when none.
    QPair<int, int> highlighted() const { return m_highlight; }
    // Cell tooltips carry each transition's explanation, which for a bug hunt's planted bug names it: hidden until
    // the hunt is answered.
    void setExplanationsHidden(bool hidden);

  private:
    void reload();
    void fill(QTableWidget* widget, const core::coherence::ControllerTable& table);
    void highlight();

    LabModel* m_lab;
    QTableWidget* m_cache;
    QTableWidget* m_directory;
    QString m_protocol; // the protocol the tables were filled from
    QPair<int, int> m_highlight{-1, -1};
    bool m_explanationsHidden = false;
};

} // namespace coh::ui
