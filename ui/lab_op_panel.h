#pragma once
// One row of buttons per cache (P0 Read / Write / Evict): each click appends that op to the lab. A button is
// enabled only when the protocol defines the op in the cache's state at the end of the run.
#include <QWidget>

class QGridLayout;
class QPushButton;

namespace coh::ui {

class LabModel;

class LabOpPanel : public QWidget {
    Q_OBJECT
  public:
    explicit LabOpPanel(LabModel* lab, QWidget* parent = nullptr);

    // The button for cache `cache` and op 0 Read, 1 Write, 2 Evict; nullptr when there is none.
    QPushButton* button(int cache, int op) const;

  private:
    void rebuild();
    void updateEnabled();

    LabModel* m_lab;
    QGridLayout* m_grid;
    QList<QPushButton*> m_buttons; // row-major: cache * 3 + op
    int m_caches = 0;
};

} // namespace coh::ui
