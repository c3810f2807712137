#include "ui/dock_layout.h"

#include <QDockWidget>
#include <QEvent>
#include <QMainWindow>
#include <QPointer>
#include <QTimer>

#include <algorithm>

namespace coh::ui {

namespace {

constexpr int kProblemLines = 5;

Qt::Orientation orientationIn(Qt::DockWidgetArea area)
{
    return area == Qt::LeftDockWidgetArea || area == Qt::RightDockWidgetArea ? Qt::Horizontal : Qt::Vertical;
}

} // namespace

DockLayout::DockLayout(QMainWindow* window, QDockWidget* scenario, QDockWidget* problems)
    : QObject(window)
    , m_window(window)
    , m_scenario(scenario)
    , m_problems(problems)
{
    for (QDockWidget* dock : {scenario, problems})
        dock->installEventFilter(this);
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
    ++m_generation; // a size remembered before now must not come back over the defaults
    m_last.clear();
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

bool DockLayout::eventFilter(QObject* watched, QEvent* event)
{
    auto* dock = static_cast<QDockWidget*>(watched);
    if (event->type() == QEvent::Resize && dock->isVisible() && !dock->isFloating()) {
        m_last[dock] = dock->size();
    } else if (event->type() == QEvent::Show && !dock->isFloating() && m_last.contains(dock)) {
        // The layout gives the dock its minimum once it is shown; put the remembered size back after that.
        const QSize last = m_last.value(dock);
        QPointer<QDockWidget> guard(dock);
        QTimer::singleShot(0, this, [this, guard, last, generation = m_generation] {
            if (!guard || !guard->isVisible() || guard->isFloating() || generation != m_generation)
                return;
            const Qt::Orientation orientation = orientationIn(m_window->dockWidgetArea(guard));
            m_window->resizeDocks({guard.data()}, {orientation == Qt::Horizontal ? last.width() : last.height()},
                                  orientation);
        });
    }
    return QObject::eventFilter(watched, event);
}

} // namespace coh::ui
