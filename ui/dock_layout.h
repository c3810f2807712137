#pragma once
// The main window's two docks and their sizes: the default layout (first start, View → Reset Layout) and
// each dock's last size kept across hide and show, which Qt forgets (a re-shown dock comes back at its
// minimum, so the Scenario form came back cut off).

#include <QHash>
#include <QObject>
#include <QSize>

class QDockWidget;
class QMainWindow;

namespace coh::ui {

class DockLayout : public QObject {
    Q_OBJECT
  public:
    DockLayout(QMainWindow* window, QDockWidget* scenario, QDockWidget* problems);

    // Scenario beside the tabs, 30 % of the window's width within [280, 380] px (at 1024 px the tabs keep
    // about 700); Problems under them, five lines of text. Larger windows give the rest to the tabs.
    static int defaultScenarioWidth(int windowWidth);
    int defaultProblemsHeight() const;
    // Both docks shown, docked where they belong, at their default sizes for the window's current size.
    void applyDefaults();

  protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

  private:
    QMainWindow* m_window;
    QDockWidget* m_scenario;
    QDockWidget* m_problems;
    QHash<QDockWidget*, QSize> m_last; // size while last shown, docked
    quint64 m_generation = 0;          // applyDefaults() calls: a restore queued before one is dropped
};

} // namespace coh::ui
