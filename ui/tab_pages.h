#pragma once
// The main window's tabs: a QTabWidget whose minimum size is the current page's, not the largest page's.
// The window's tabs sit in a scroll area, so a tab that needs more room than the window gives it scrolls on
// its own, and the others keep fitting (a plain QTabWidget would make every tab as large as the largest).

#include <QTabWidget>

namespace coh::ui {

class TabPages : public QTabWidget {
    Q_OBJECT
  public:
    explicit TabPages(QWidget* parent = nullptr);

    QSize minimumSizeHint() const override;
};

} // namespace coh::ui
