#pragma once
// The main window's toolbar: open, save, undo/redo, run, cancel and the topology editor's link mode, fit and
// zoom, each with a palette-tinted icon and a tooltip naming its shortcut. The actions are the menus' own
// (the editor's from TopologyEditor::canvasActions()), so state and shortcuts live in one place.

#include "ui/topology_view.h"

#include <QString>

class QAction;
class QMainWindow;
class QToolBar;

namespace coh::ui {

struct MainActions;

QToolBar* buildMainToolBar(QMainWindow* window, const MainActions& actions, const TopologyView::CanvasActions& canvas);

// "tip (Ctrl+O)": what the action does and its first shortcut, if it has one.
QString tipWithShortcut(const QString& tip, const QAction* action);

} // namespace coh::ui
