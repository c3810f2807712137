#pragma once
// The main window's actions and menus (File, Edit, View, Run, Help) with their standard shortcuts. Built once;
// the window connects the triggers and fills the dynamic submenus (presets, recent files).

#include <QList>
#include <QObject>
#include <QPalette>
#include <QString>
#include <QStringList>

#include <functional>
#include <utility>

class QAction;
class QMainWindow;
class QMenu;
class QUndoStack;

namespace coh::ui {

struct MainActions {
    QAction* newScenario = nullptr;
    QAction* open = nullptr;
    QMenu* presets = nullptr;
    QMenu* recent = nullptr;
    QAction* save = nullptr;
    QAction* saveAs = nullptr;
    QAction* exportRun = nullptr;
    QAction* exportReport = nullptr;
    QAction* quit = nullptr;
    QAction* undo = nullptr;
    QAction* redo = nullptr;
    QMenu* edit = nullptr;
    QMenu* view = nullptr;
    QMenu* runMenu = nullptr;
    QMenu* executeOn = nullptr; // Run > Execute On: the backend and the real runs' settings
    QAction* darkPalette = nullptr;
    QAction* resetLayout = nullptr;
    QAction* run = nullptr;
    QAction* cancel = nullptr;
    // Run > Execute On: the simulator, or real copies and attention on this machine's CPU (docs/real-backend.md).
    QAction* onSimulator = nullptr;
    QAction* onRealCpu = nullptr;
    QAction* onRealCuda = nullptr;       // enabled only where probeGpus() finds a GPU
    QAction* onSimVsRealGpu = nullptr;   // likewise
    QAction* onSimVsReal = nullptr;      // real-cpu, then the simulator on the calibrated profile, compared
    QAction* realMemory = nullptr;       // each node's memory on a real backend, in MiB (cohsim --arena-mib)
    QAction* realPoolLimit = nullptr;    // the most a decode K/V pool grows to on a real backend (cohsim --pool-mib)
    QAction* simVsRealPairs = nullptr;   // pairs a sim-against-real run makes (cohsim compare-real --repeat)
    QAction* simVsRealProfile = nullptr; // a profile file the simulator runs on (compare-real --profile)
    QAction* forgetSimVsRealProfile = nullptr; // back to calibrating just before
    QAction* calibrateProfile =
        nullptr;                   // this machine calibrated for the scenario, as a profile file (cohsim calibrate)
    QAction* sumSeals = nullptr;   // checkable: real runs sum each block read against its seal (--no-seal-sums)
    QAction* realRoutes = nullptr; // checkable: sim-against-real routes as the real run did (--real-routes)
    QMenu* help = nullptr;
    QAction* about = nullptr;
    QAction* scenarioFormat = nullptr; // F1: the scenario format guide

    // Creates every action and the menu bar of `window`; undo/redo come from the document's stack, the topology
    // editor's own actions follow them in the Edit menu.
    void build(QMainWindow* window, QUndoStack* undoStack, const QList<QAction*>& editActions);
    // The backend the checked Execute On action names, as core::backendNames() spells it.
    QString backend() const;
    bool simVsReal() const; // Execute On > Simulator Against Real CPU (or GPU)

    // Open Preset: one entry per datasets/presets/*.json. Open Recent: the QSettings list, newest first.
    void fillPresets(const std::function<void(const QString&)>& open);
    // `cleared` runs after Clear List, so the window can refresh whatever else lists them.
    void fillRecent(const std::function<void(const QString&)>& open, const std::function<void()>& cleared);
    // One Help entry per guide (file, title), above About; Scenario Format already has its own.
    void fillGuides(const QList<std::pair<QString, QString>>& guides, const std::function<void(const QString&)>& open);
    static void addRecent(const QString& path);
    static QStringList recentFiles(); // newest first
    // Fusion with a dark palette, or the style's standard light one; both with greyed text, placeholders, links
    // and tooltips that keep 4.5:1. Every window hears of the change (Qt 6.4 only tells child widgets).
    static void applyPalette(bool dark);
    static QPalette makeLightPalette();
    static QPalette makeDarkPalette();
};

} // namespace coh::ui
