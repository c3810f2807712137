#pragma once
// One row of buttons per cache (P0 Read / Write / Evict): each click appends that op to the lab. A button is
// enabled only when the protocol defines the op in the cache's state at the end of the run. The panel keeps the
// same size whatever the cache count.
#include <QWidget>

class QGridLayout;
class QLabel;
class QToolButton;

namespace coh::ui {

class LabModel;

class LabOpPanel : public QWidget {
    Q_OBJECT
  public:
    explicit LabOpPanel(LabModel* lab, QWidget* parent = nullptr);

    // The button for cache `cache` and op 0 Read, 1 Write, 2 Evict; nullptr when there is none.
    QToolButton* button(int cache, int op) const;

  private:
    void rebuild();
    void updateEnabled();

    LabModel* m_lab;
    QGridLayout* m_grid;
    QList<QToolButton*> m_buttons; // row-major: cache * 3 + op, for all kMaxCaches caches
    QList<QLabel*> m_rows;
    int m_caches = 0;
};

} // namespace coh::ui
