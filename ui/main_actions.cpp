#include "ui/main_actions.h"

#include "core/gpu/cuda_devices.h"
#include "core/scenario/datasets_dir.h"
#include "ui/qt_text.h"
#include "ui/theme.h"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QDir>
#include <QEvent>
#include <QFileInfo>
#include <QKeySequence>
#include <QMainWindow>
#include <QMenu>
#include <QMenuBar>
#include <QPalette>
#include <QSettings>
#include <QStyle>
#include <QToolTip>
#include <QUndoStack>

namespace coh::ui {

namespace {
constexpr int kMaxRecent = 10;
QString recentKey()
{
    return QStringLiteral("recentFiles");
}

// `key` first, then the platform's own bindings for `standard`: the platform's list can be empty (Save As and
// Quit have no binding in the generic X11 scheme, so Ctrl+Shift+S did nothing), the documented key never is.
QList<QKeySequence> keys(const QKeySequence& key, QKeySequence::StandardKey standard)
{
    QList<QKeySequence> list{key};
    const auto platform = QKeySequence::keyBindings(standard);
    for (const QKeySequence& k : platform)
        if (!list.contains(k))
            list << k;
    return list;
}

// A colour `min`:1 against `background`, halfway from the text towards it: disabled and placeholder text
// look greyed and still read (WCAG asks 4.5:1 of text; Qt's defaults give 1.6 to 4).
QColor greyedText(const QColor& text, const QColor& background)
{
    const QColor half =
        QColor::fromRgbF((text.redF() + background.redF()) / 2, (text.greenF() + background.greenF()) / 2,
                         (text.blueF() + background.blueF()) / 2);
    return readableOn(half, background, 4.5);
}

// The roles both palettes derive from their main colours, so the light and the dark one cannot drift apart:
// greyed text, placeholders, selection text, links.
void deriveRoles(QPalette& p)
{
    for (const QPalette::ColorGroup group : {QPalette::Active, QPalette::Inactive, QPalette::Disabled}) {
        p.setColor(group, QPalette::PlaceholderText,
                   greyedText(p.color(QPalette::Active, QPalette::Text), p.color(group, QPalette::Base)));
        // The selection carries white text: darken a light blue until it reads.
        p.setColor(group, QPalette::HighlightedText, Qt::white);
        p.setColor(group, QPalette::Highlight, readableOn(p.color(QPalette::Active, QPalette::Highlight), Qt::white));
        p.setColor(group, QPalette::Link,
                   readableOn(p.color(QPalette::Active, QPalette::Link), p.color(group, QPalette::Base)));
        p.setColor(group, QPalette::LinkVisited,
                   readableOn(p.color(QPalette::Active, QPalette::LinkVisited), p.color(group, QPalette::Base)));
        p.setColor(group, QPalette::ToolTipText,
                   readableOn(p.color(QPalette::Active, QPalette::ToolTipText), p.color(group, QPalette::ToolTipBase)));
    }
    const std::pair<QPalette::ColorRole, QPalette::ColorRole> textOnBackground[] = {
        {QPalette::WindowText, QPalette::Window},
        {QPalette::Text, QPalette::Base},
        {QPalette::ButtonText, QPalette::Button}};
    for (const auto& [text, background] : textOnBackground)
        p.setColor(QPalette::Disabled, text,
                   greyedText(p.color(QPalette::Active, text), p.color(QPalette::Disabled, background)));
}
} // namespace

void MainActions::build(QMainWindow* window, QUndoStack* undoStack, const QList<QAction*>& editActions)
{
    auto make = [window](const QString& text, const QKeySequence& shortcut = {}) {
        auto* action = new QAction(text, window);
        action->setShortcut(shortcut);
        return action;
    };
    QMenuBar* bar = window->menuBar();

    QMenu* file = bar->addMenu(QMainWindow::tr("&File"));
    newScenario = file->addAction(QMainWindow::tr("&New"));
    newScenario->setShortcut(QKeySequence::New);
    open = file->addAction(QMainWindow::tr("&Open…"));
    open->setShortcut(QKeySequence::Open);
    presets = file->addMenu(QMainWindow::tr("Open &Preset"));
    recent = file->addMenu(QMainWindow::tr("Open &Recent"));
    file->addSeparator();
    save = file->addAction(QMainWindow::tr("&Save"));
    save->setShortcut(QKeySequence::Save);
    saveAs = file->addAction(QMainWindow::tr("Save &As…"));
    saveAs->setShortcuts(keys(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_S), QKeySequence::SaveAs));
    exportRun = file->addAction(QMainWindow::tr("&Export Run…"));
    exportRun->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
    exportReport = file->addAction(QMainWindow::tr("Export &Report…"));
    exportReport->setObjectName(QStringLiteral("exportReport"));
    exportReport->setToolTip(QMainWindow::tr("The run shown as one HTML, PDF or Markdown report with its charts"));
    file->addSeparator();
    quit = file->addAction(QMainWindow::tr("&Quit"));
    quit->setShortcuts(keys(QKeySequence(Qt::CTRL | Qt::Key_Q), QKeySequence::Quit));
    quit->setMenuRole(QAction::QuitRole);

    edit = bar->addMenu(QMainWindow::tr("&Edit"));
    undo = undoStack->createUndoAction(window, QMainWindow::tr("&Undo"));
    undo->setShortcuts(keys(QKeySequence(Qt::CTRL | Qt::Key_Z), QKeySequence::Undo));
    redo = undoStack->createRedoAction(window, QMainWindow::tr("&Redo"));
    redo->setShortcuts(keys(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Z), QKeySequence::Redo));
    edit->addAction(undo);
    edit->addAction(redo);
    if (!editActions.isEmpty()) {
        edit->addSeparator();
        edit->addActions(editActions);
    }

    view = bar->addMenu(QMainWindow::tr("&View"));
    darkPalette = make(QMainWindow::tr("&Dark Palette"));
    darkPalette->setCheckable(true);
    resetLayout = make(QMainWindow::tr("&Reset Layout"));
    // Dock toggles are added by the window once its docks exist; these follow them.

    runMenu = bar->addMenu(QMainWindow::tr("&Run"));
    run = runMenu->addAction(QMainWindow::tr("&Run"));
    run->setShortcut(QKeySequence(Qt::Key_F5));
    cancel = runMenu->addAction(QMainWindow::tr("&Cancel Run"));
    cancel->setShortcut(QKeySequence(Qt::Key_Escape));
    cancel->setEnabled(false);
    runMenu->addSeparator();
    executeOn = runMenu->addMenu(QMainWindow::tr("Execute &On"));
    auto* backends = new QActionGroup(executeOn);
    onSimulator = executeOn->addAction(QMainWindow::tr("&Simulator"));
    onSimulator->setToolTip(QMainWindow::tr("Messages are flows of the simulated network; compute is the roofline"));
    onRealCpu = executeOn->addAction(QMainWindow::tr("Real &CPU (this machine)"));
    onRealCpu->setToolTip(QMainWindow::tr("Every message is a real copy between worker threads' memories and every "
                                          "decode step runs real attention, timed (F1: The real backend)"));
    onRealCuda = executeOn->addAction(QMainWindow::tr("Real &GPU (CUDA, this machine)"));
    // Offered only where there is a GPU to run on; otherwise its tooltip says why not.
    const core::GpuInventory gpus = core::probeGpus();
    onRealCuda->setEnabled(!gpus.devices.empty());
    onRealCuda->setToolTip(
        gpus.devices.empty()
            ? QMainWindow::tr("No GPU here: %1").arg(QString::fromStdString(gpus.reason))
            : QMainWindow::tr("Every message is a real copy between partitions of %1 and every decode step runs the "
                              "CUDA attention, timed with CUDA events (F1: The real backend)")
                  .arg(QString::fromStdString(gpus.devices.front().name)));
    onSimVsReal = executeOn->addAction(QMainWindow::tr("Simulator &Against Real CPU"));
    onSimVsReal->setToolTip(
        QMainWindow::tr("Calibrate this machine, run on the real CPU, then simulate on the calibrated "
                        "profile; both runs are stored and open side by side in Compare"));
    onSimVsRealGpu = executeOn->addAction(QMainWindow::tr("Simulator Against &Real GPU"));
    onSimVsRealGpu->setEnabled(!gpus.devices.empty());
    onSimVsRealGpu->setToolTip(gpus.devices.empty()
                                   ? onRealCuda->toolTip()
                                   : QMainWindow::tr("Calibrate this machine's GPU, run on it, then simulate on the "
                                                     "calibrated profile; both runs open side by side in Compare"));
    for (QAction* a : {onSimulator, onRealCpu, onRealCuda, onSimVsReal, onSimVsRealGpu}) {
        a->setCheckable(true);
        backends->addAction(a);
    }
    onSimulator->setChecked(true);
    executeOn->addSeparator();
    realMemory = executeOn->addAction(QMainWindow::tr("Node &Memory for Real Runs..."));
    realMemory->setToolTip(QMainWindow::tr("Each node's copy memory on a real backend, and the size its decode K/V "
                                           "pool starts at, in MiB (cohsim --arena-mib); a pool grows as its blocks "
                                           "run out, as far as its memory (this machine's, or a GPU's) leaves room "
                                           "for"));
    realPoolLimit = executeOn->addAction(QMainWindow::tr("K/V &Pool Limit for Real Runs..."));
    realPoolLimit->setToolTip(
        QMainWindow::tr("The most a decode node's K/V pool grows to on a real backend, in MiB "
                        "(cohsim --pool-mib); by default as far as its memory (this machine's, or a "
                        "GPU's) leaves "
                        "room for"));
    simVsRealPairs = executeOn->addAction(QMainWindow::tr("Pairs for Simulator &Against Real..."));
    simVsRealPairs->setToolTip(
        QMainWindow::tr("How many times Simulator Against Real calibrates, runs for real and simulates on that "
                        "profile (cohsim compare-real --repeat); with several, the simulator's error is the median of "
                        "the pairs'; with a profile file chosen, that many real runs against one simulated run"));
    calibrateProfile = executeOn->addAction(QMainWindow::tr("Calibrate This Machine to a Profile File..."));
    calibrateProfile->setToolTip(
        QMainWindow::tr("Measure this machine's copies and attention for the scenario's decode steps (the GPU's when "
                        "a GPU backend is picked) and keep them in a profile file, which Simulator Against Real can "
                        "then run on instead of calibrating before every run (cohsim calibrate SCENARIO -o FILE)"));
    simVsRealProfile = executeOn->addAction(QMainWindow::tr("Profile for Simulator Against Real..."));
    simVsRealProfile->setToolTip(
        QMainWindow::tr("A hardware profile file the simulator runs on, in place of calibrating "
                        "this machine just before (cohsim compare-real --profile): one Calibrate This Machine "
                        "(or `cohsim calibrate -o FILE`) wrote, or History's Profile of Its Costs "
                        "(`cohsim calibrate --from-run ID`) of a stored real run"));
    forgetSimVsRealProfile = executeOn->addAction(QMainWindow::tr("Calibrate Just Before Simulator Against Real"));
    forgetSimVsRealProfile->setToolTip(QMainWindow::tr("Forget the profile file chosen: each sim-against-real run "
                                                       "calibrates this machine just before it (the default)"));
    forgetSimVsRealProfile->setEnabled(false);
    realRoutes = executeOn->addAction(QMainWindow::tr("Simulator Against Real Routes as the Real R&un"));
    realRoutes->setCheckable(true);
    realRoutes->setToolTip(QMainWindow::tr("The simulator sends each request to the instances the real run sent it "
                                           "to, so the two differ in costs and not in the routes a load-aware router "
                                           "took on the times it saw (cohsim compare-real --real-routes)"));
    sumSeals = executeOn->addAction(QMainWindow::tr("Sum Block Seals on Every &Read"));
    sumSeals->setCheckable(true);
    sumSeals->setChecked(true);
    sumSeals->setToolTip(QMainWindow::tr("A real run sums each block a decode step read against its seal, catching "
                                         "rows changed in memory; the sums read every block again, which speeds up "
                                         "the attention times measured (cohsim --no-seal-sums turns it off; "
                                         "sim-against-real never sums)"));
    executeOn->setToolTipsVisible(true);

    help = bar->addMenu(QMainWindow::tr("&Help"));
    scenarioFormat = help->addAction(QMainWindow::tr("&Scenario Format"));
    scenarioFormat->setShortcut(QKeySequence::HelpContents);
    // fillGuides() adds one entry per guide here, before About.
    help->addSeparator();
    about = help->addAction(QMainWindow::tr("&About Coherence Studio"));
    about->setMenuRole(QAction::AboutRole);
}

void MainActions::fillGuides(const QList<std::pair<QString, QString>>& guides,
                             const std::function<void(const QString&)>& open)
{
    QAction* before = help->actions().at(help->actions().indexOf(about) - 1); // the separator above About
    for (const auto& [file, title] : guides) {
        if (file == QLatin1String("scenario-format.md"))
            continue; // already there, as Scenario Format (F1)
        auto* action = new QAction(title, help);
        QObject::connect(action, &QAction::triggered, help, [open, file] { open(file); });
        help->insertAction(before, action);
    }
}

void MainActions::fillPresets(const std::function<void(const QString&)>& open)
{
    presets->clear();
    const QDir dir(toQString(core::datasetsDir()) + QStringLiteral("/presets"));
    const QFileInfoList files = dir.entryInfoList({QStringLiteral("*.json")}, QDir::Files, QDir::Name);
    for (const QFileInfo& file : files) {
        const QString path = file.absoluteFilePath();
        presets->addAction(file.completeBaseName(), presets, [open, path] { open(path); });
    }
    presets->setEnabled(!files.isEmpty());
}

void MainActions::fillRecent(const std::function<void(const QString&)>& open, const std::function<void()>& cleared)
{
    recent->clear();
    const QStringList files = QSettings().value(recentKey()).toStringList();
    for (const QString& path : files) {
        QAction* action = recent->addAction(QFileInfo(path).fileName(), recent, [open, path] { open(path); });
        action->setToolTip(path);
        action->setEnabled(QFileInfo::exists(path));
    }
    if (!files.isEmpty()) {
        recent->addSeparator();
        recent->addAction(QMainWindow::tr("Clear List"), recent, [cleared] {
            QSettings().remove(recentKey());
            cleared();
        });
    }
    recent->setEnabled(!files.isEmpty());
}

QStringList MainActions::recentFiles()
{
    return QSettings().value(recentKey()).toStringList();
}

void MainActions::addRecent(const QString& path)
{
    QSettings settings;
    QStringList files = settings.value(recentKey()).toStringList();
    const QString absolute = QFileInfo(path).absoluteFilePath();
    files.removeAll(absolute);
    files.prepend(absolute);
    while (files.size() > kMaxRecent)
        files.removeLast();
    settings.setValue(recentKey(), files);
}

void MainActions::applyPalette(bool dark)
{
    const QPalette palette = dark ? makeDarkPalette() : makeLightPalette();
    QApplication::setPalette(palette);
    QToolTip::setPalette(palette); // tooltips keep the palette they started with otherwise
    // Qt 6.4 tells only child widgets of a new application palette, not windows, so a window (and everything in
    // it) would keep the old one: tell each window, as later Qt versions do.
    const auto windows = QApplication::topLevelWidgets();
    for (QWidget* window : windows) {
        QEvent changed(QEvent::ApplicationPaletteChange);
        QCoreApplication::sendEvent(window, &changed);
    }
    ThemeWatcher::instance()->paletteApplied(); // views that derive colours restyle, now that widgets have it
}

QPalette MainActions::makeLightPalette()
{
    QPalette p = QApplication::style()->standardPalette();
    deriveRoles(p);
    return p;
}

QPalette MainActions::makeDarkPalette()
{
    QPalette p;
    const QColor window(45, 45, 48), base(30, 30, 32), button(53, 53, 57), text(220, 220, 220);
    p.setColor(QPalette::Window, window);
    p.setColor(QPalette::WindowText, text);
    p.setColor(QPalette::Base, base);
    p.setColor(QPalette::AlternateBase, QColor(38, 38, 41));
    p.setColor(QPalette::ToolTipBase, QColor(62, 62, 66));
    p.setColor(QPalette::ToolTipText, QColor(235, 235, 235));
    p.setColor(QPalette::Text, text);
    p.setColor(QPalette::Button, button);
    p.setColor(QPalette::ButtonText, text);
    p.setColor(QPalette::BrightText, Qt::white);
    // Bevels and frames (Fusion draws them from these): lighter above the button, darker below.
    p.setColor(QPalette::Light, QColor(80, 80, 85));
    p.setColor(QPalette::Midlight, QColor(66, 66, 70));
    p.setColor(QPalette::Mid, QColor(40, 40, 43));
    p.setColor(QPalette::Dark, QColor(25, 25, 27));
    p.setColor(QPalette::Shadow, QColor(10, 10, 10));
    p.setColor(QPalette::Highlight, QColor(42, 130, 218));
    p.setColor(QPalette::Link, QColor(110, 175, 245));
    p.setColor(QPalette::LinkVisited, QColor(180, 150, 240));
    p.setColor(QPalette::Disabled, QPalette::Base, window);
    p.setColor(QPalette::Disabled, QPalette::Button, window);
    deriveRoles(p);
    return p;
}

QString MainActions::backend() const
{
    if ((onRealCuda && onRealCuda->isChecked()) || (onSimVsRealGpu && onSimVsRealGpu->isChecked()))
        return QStringLiteral("real-cuda");
    return (onRealCpu && onRealCpu->isChecked()) || simVsReal() ? QStringLiteral("real-cpu")
                                                                : QStringLiteral("simulated");
}

bool MainActions::simVsReal() const
{
    return (onSimVsReal && onSimVsReal->isChecked()) || (onSimVsRealGpu && onSimVsRealGpu->isChecked());
}

} // namespace coh::ui
