#include "ui/main_toolbar.h"

#include "ui/main_actions.h"
#include "ui/tinted_icon.h"

#include <QAction>
#include <QMainWindow>
#include <QToolBar>
#include <QToolButton>

namespace coh::ui {

namespace {

// Undo/Redo change their text ("Undo Move node"): keep the tooltip saying what and which key.
void followText(QAction* action)
{
    const auto update = [action] {
        const QString tip = tipWithShortcut(action->text().remove(QLatin1Char('&')), action);
        if (action->toolTip() != tip) // setToolTip emits changed() again
            action->setToolTip(tip);
    };
    QObject::connect(action, &QAction::changed, action, update);
    update();
}

} // namespace

QString tipWithShortcut(const QString& tip, const QAction* action)
{
    if (action->shortcut().isEmpty())
        return tip;
    return QStringLiteral("%1 (%2)").arg(tip, action->shortcut().toString(QKeySequence::NativeText));
}

QToolBar* buildMainToolBar(QMainWindow* window, const MainActions& a, const TopologyView::CanvasActions& canvas)
{
    auto* bar = new QToolBar(QMainWindow::tr("Main toolbar"), window);
    bar->setObjectName(QStringLiteral("mainToolBar"));
    bar->setMovable(false);
    bar->setToolButtonStyle(Qt::ToolButtonIconOnly);
    bar->setIconSize(QSize(20, 20));
    const auto add = [bar](QAction* action, const QString& icon, const QString& tip) {
        if (!action)
            return;
        action->setIcon(tintedIcon(QStringLiteral(":/icons/%1.svg").arg(icon)));
        if (!tip.isEmpty())
            action->setToolTip(tipWithShortcut(tip, action));
        bar->addAction(action);
    };
    add(a.open, QStringLiteral("open"), QMainWindow::tr("Open a scenario"));
    add(a.save, QStringLiteral("save"), QMainWindow::tr("Save the scenario"));
    bar->addSeparator();
    add(a.undo, QStringLiteral("undo"), {});
    add(a.redo, QStringLiteral("redo"), {});
    followText(a.undo);
    followText(a.redo);
    bar->addSeparator();
    add(a.run, QStringLiteral("run"), {}); // its tooltip says why it is disabled: the window keeps it
    add(a.cancel, QStringLiteral("cancel"), QMainWindow::tr("Cancel the run"));
    // Run is the one action a newcomer looks for: its name beside the icon.
    if (auto* run = qobject_cast<QToolButton*>(bar->widgetForAction(a.run)))
        run->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    bar->addSeparator();
    // The link mode's own tooltip already explains it and names L.
    add(canvas.linkMode, QStringLiteral("link_mode"), {});
    add(canvas.fit, QStringLiteral("fit"), QMainWindow::tr("Fit the topology to the view"));
    add(canvas.zoomIn, QStringLiteral("zoom_in"), QMainWindow::tr("Zoom in"));
    add(canvas.zoomOut, QStringLiteral("zoom_out"), QMainWindow::tr("Zoom out"));
    bar->addSeparator();
    add(a.scenarioFormat, QStringLiteral("help"), QMainWindow::tr("Help: the scenario format and the guides"));
    window->addToolBar(Qt::TopToolBarArea, bar);
    return bar;
}

} // namespace coh::ui
