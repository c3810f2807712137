#include "ui/dock_layout.h"

#include <QDockWidget>
#include <QMainWindow>

#include <algorithm>

namespace coh::ui {

namespace {
constexpr int kProblemLines = 5;
}

DockLayout::DockLayout(QMainWindow* window, QDockWidget* scenario, QDockWidget* problems)
    : QObject(window)
    , m_window(window)
    , m_scenario(scenario)
    , m_problems(problems)
{
}

int DockLayout::defaultScenarioWidth(int windowWidth)
{
    return std::clamp(windowWidth * 3 / 10, 280, 380);
}

int DockLayout::defaultProblemsHeight() const
{
    // The dock's title bar plus the list's frame around five lines.
    const int lines = m_problems->fontMetrics().lineSpacing() * kProblemLines;
    const int title = m_problems->fontMetrics().height() + 8;
    return lines + title + 8;
}

void DockLayout::applyDefaults()
{
    for (QDockWidget* dock : {m_scenario, m_problems}) {
        dock->setFloating(false);
        dock->show();
    }
    if (m_window->dockWidgetArea(m_scenario) != Qt::LeftDockWidgetArea)
        m_window->addDockWidget(Qt::LeftDockWidgetArea, m_scenario);
    if (m_window->dockWidgetArea(m_problems) != Qt::BottomDockWidgetArea)
        m_window->addDockWidget(Qt::BottomDockWidgetArea, m_problems);
    m_window->resizeDocks({m_scenario}, {defaultScenarioWidth(m_window->width())}, Qt::Horizontal);
    m_window->resizeDocks({m_problems}, {defaultProblemsHeight()}, Qt::Vertical);
}

} // namespace coh::ui
