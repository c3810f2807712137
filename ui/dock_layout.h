#pragma once
// The main window's default dock layout (first start, View → Reset Layout): the Scenario dock beside the tabs,
// Problems under them, at sizes that leave each tab the room it is made for.

#include <QObject>

class QDockWidget;
class QMainWindow;

namespace coh::ui {

class DockLayout : public QObject {
    Q_OBJECT
  public:
    DockLayout(QMainWindow* window, QDockWidget* scenario, QDockWidget* problems);

    // Scenario: 30 % of the window's width within [280, 380] px (at 1024 px the tabs keep about 700);
    // Problems: five lines of text. Larger windows give the rest to the tabs.
    static int defaultScenarioWidth(int windowWidth);
    int defaultProblemsHeight() const;
    // Both docks shown, docked where they belong, at their default sizes for the window's current size.
    void applyDefaults();

  private:
    QMainWindow* m_window;
    QDockWidget* m_scenario;
    QDockWidget* m_problems;
};

} // namespace coh::ui
