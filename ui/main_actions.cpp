#include "ui/main_actions.h"

#include "core/scenario/datasets_dir.h"
#include "ui/qt_text.h"

#include <QAction>
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
#include <QUndoStack>

namespace coh::ui {

namespace {
constexpr int kMaxRecent = 10;
QString recentKey()
{
    return QStringLiteral("recentFiles");
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
    saveAs->setShortcut(QKeySequence::SaveAs);
    exportRun = file->addAction(QMainWindow::tr("&Export Run…"));
    exportRun->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
    file->addSeparator();
    quit = file->addAction(QMainWindow::tr("&Quit"));
    quit->setShortcut(QKeySequence::Quit);
    quit->setMenuRole(QAction::QuitRole);

    edit = bar->addMenu(QMainWindow::tr("&Edit"));
    undo = undoStack->createUndoAction(window, QMainWindow::tr("&Undo"));
    undo->setShortcut(QKeySequence::Undo);
    redo = undoStack->createRedoAction(window, QMainWindow::tr("&Redo"));
    redo->setShortcut(QKeySequence::Redo);
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

    QMenu* runMenu = bar->addMenu(QMainWindow::tr("&Run"));
    run = runMenu->addAction(QMainWindow::tr("&Run"));
    run->setShortcut(QKeySequence(Qt::Key_F5));
    cancel = runMenu->addAction(QMainWindow::tr("&Cancel Run"));
    cancel->setShortcut(QKeySequence(Qt::Key_Escape));
    cancel->setEnabled(false);

    QMenu* help = bar->addMenu(QMainWindow::tr("&Help"));
    scenarioFormat = help->addAction(QMainWindow::tr("&Scenario Format"));
    scenarioFormat->setShortcut(QKeySequence::HelpContents);
    about = help->addAction(QMainWindow::tr("&About Coherence Studio"));
    about->setMenuRole(QAction::AboutRole);
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

void MainActions::fillRecent(const std::function<void(const QString&)>& open)
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
        recent->addAction(QMainWindow::tr("Clear List"), recent, [] { QSettings().remove(recentKey()); });
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
    QApplication::setPalette(dark ? makeDarkPalette() : QApplication::style()->standardPalette());
    // Qt 6.4 tells only child widgets of a new application palette, not windows, so a window (and everything in
    // it) would keep the old one: tell each window, as later Qt versions do.
    const auto windows = QApplication::topLevelWidgets();
    for (QWidget* window : windows) {
        QEvent changed(QEvent::ApplicationPaletteChange);
        QCoreApplication::sendEvent(window, &changed);
    }
}

QPalette MainActions::makeDarkPalette()
{
    QPalette p;
    const QColor window(45, 45, 48), base(30, 30, 32), text(220, 220, 220), highlight(42, 130, 218);
    p.setColor(QPalette::Window, window);
    p.setColor(QPalette::WindowText, text);
    p.setColor(QPalette::Base, base);
    p.setColor(QPalette::AlternateBase, window);
    p.setColor(QPalette::ToolTipBase, window);
    p.setColor(QPalette::ToolTipText, text);
    p.setColor(QPalette::Text, text);
    p.setColor(QPalette::Button, window);
    p.setColor(QPalette::ButtonText, text);
    p.setColor(QPalette::BrightText, Qt::red);
    p.setColor(QPalette::Link, highlight.lighter());
    p.setColor(QPalette::Highlight, highlight);
    p.setColor(QPalette::HighlightedText, Qt::white);
    p.setColor(QPalette::PlaceholderText, QColor(140, 140, 140));
    p.setColor(QPalette::Disabled, QPalette::Text, QColor(120, 120, 120));
    p.setColor(QPalette::Disabled, QPalette::WindowText, QColor(120, 120, 120));
    p.setColor(QPalette::Disabled, QPalette::ButtonText, QColor(120, 120, 120));
    return p;
}

} // namespace coh::ui
