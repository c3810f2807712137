#include "ui/main_window.h"

#include "core/real/backend.h"
#include "core/scenario/datasets_dir.h"
#include "core/store/run_store.h"
#include "ui/charts_panel.h"
#include "ui/dock_layout.h"
#include "ui/document_files.h"
#include "ui/help_window.h"
#include "ui/lab_widget.h"
#include "ui/main_toolbar.h"
#include "ui/profile_job.h"
#include "ui/qt_text.h"
#include "ui/replay_model.h"
#include "ui/replay_widget.h"
#include "ui/report_export.h"
#include "ui/run_compare_dialog.h"
#include "ui/run_controller.h"
#include "ui/run_history_model.h"
#include "ui/run_history_widget.h"
#include "ui/scenario_document.h"
#include "ui/scenario_panel.h"
#include "ui/start_page.h"
#include "ui/tab_pages.h"
#include "ui/topology_editor.h"
#include "ui/topology_scene.h"
#include "ui/tuner_panel.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDir>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QListWidget>
#include <QMenu>
#include <QMessageBox>
#include <QProgressBar>
#include <QScrollArea>
#include <QSettings>
#include <QStatusBar>
#include <QTabWidget>
#include <QTimer>
#include <QUndoStack>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>

namespace coh::ui {

MainWindow::MainWindow(const QString& databasePath, QWidget* parent)
    : QMainWindow(parent)
{
    m_document = new ScenarioDocument(this);
    m_runner = new RunController(this);
    m_files = new DocumentFiles(m_document, this);
    QString dbError;
    m_databasePath = databasePath.isEmpty() ? RunController::defaultDatabasePath(&dbError) : databasePath;

    buildTabs();
    m_actions.build(this, m_document->undoStack(), m_topology->editActions());
    buildDocks();
    m_toolBar = buildMainToolBar(this, m_actions, m_topology->canvasActions());
    connectActions();
    connectRunner();
    // A new or opened scenario (a whole-document change) starts without the last run's failure in Problems.
    connect(m_document, &ScenarioDocument::changed, this, [this](const QString& pointer) {
        if (pointer.isEmpty())
            m_runError.clear();
    });

    m_status = new QLabel(this);
    // However long a message, the label takes the status bar's width and no more (its tooltip holds the rest).
    m_status->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    m_progress = new QProgressBar(this);
    m_progress->setRange(0, 1000);
    m_progress->setMaximumWidth(200);
    m_progress->hide();
    statusBar()->addWidget(m_status, 1);
    statusBar()->addPermanentWidget(m_progress);

    connect(m_files, &DocumentFiles::status, this, &MainWindow::setStatus);
    m_history->setDatabasePath(m_databasePath);
    m_tuner->setDatabasePath(m_databasePath);
    if (!dbError.isEmpty())
        setStatus(dbError);

    m_validateTimer = new QTimer(this);
    m_validateTimer->setSingleShot(true);
    m_validateTimer->setInterval(250); // typing and drags settle before core re-validates
    connect(m_validateTimer, &QTimer::timeout, this, &MainWindow::validateNow);
    connect(m_document, &ScenarioDocument::changed, m_validateTimer, qOverload<>(&QTimer::start));
    connect(m_document, &ScenarioDocument::fileStateChanged, this, &MainWindow::updateTitle);

    resize(1400, 900);
    m_defaultState = saveState();
    QSettings settings;
    restoreGeometry(settings.value(QStringLiteral("mainWindow/geometry")).toByteArray());
    if (!restoreState(settings.value(QStringLiteral("mainWindow/state")).toByteArray())) {
        // First start: the default dock sizes, once the window has its size.
        QTimer::singleShot(0, m_dockLayout, &DockLayout::applyDefaults);
    }
    m_runner->setRealMemoryMiB(
        std::clamp(settings.value(QStringLiteral("run/realMemoryMiB"), m_runner->realMemoryMiB()).toInt(), 1, 4096));
    m_runner->setRealPoolLimitMiB(
        std::clamp(settings.value(QStringLiteral("run/poolLimitMiB"), 0).toInt(), 0, kMaxPoolLimitMiB));
    m_runner->setSimVsRealPairs(settings.value(QStringLiteral("run/simVsRealPairs"), 1).toInt());
    setSimVsRealProfile(settings.value(QStringLiteral("run/simVsRealProfile")).toString());
    m_actions.realRoutes->setChecked(settings.value(QStringLiteral("run/simVsRealRoutes"), false).toBool());
    m_runner->setSimVsRealRoutes(m_actions.realRoutes->isChecked());
    m_actions.sumSeals->setChecked(settings.value(QStringLiteral("run/sumSeals"), m_runner->sumSeals()).toBool());
    m_runner->setSumSeals(m_actions.sumSeals->isChecked());
    const bool dark = settings.value(QStringLiteral("darkPalette"), false).toBool();
    m_actions.darkPalette->setChecked(dark);
    MainActions::applyPalette(dark);
    updateTitle();
    validateNow();
}

MainWindow::~MainWindow() = default;

void MainWindow::buildTabs()
{
    m_tabs = new TabPages(this);
    m_tabs->setObjectName(QStringLiteral("mainTabs"));
    m_tabs->setDocumentMode(true);
    m_start = new StartPage(m_tabs);
    m_tabs->addTab(m_start, tr("Start"));
    m_topology = new TopologyEditor(m_document, m_tabs);
    m_tabs->addTab(m_topology, tr("Topology"));
    m_replay = new ReplayWidget(m_tabs);
    m_tabs->addTab(m_replay, tr("Replay"));
    m_charts = new ChartsPanel(m_tabs);
    m_tabs->addTab(m_charts, tr("Charts"));
    connect(m_replay, &ReplayWidget::timeChanged, m_charts, &ChartsPanel::setCursorTime);
    // A click on a time chart moves the replay there (and the cursor follows through timeChanged).
    connect(m_charts, &ChartsPanel::timeClicked, m_replay, &ReplayWidget::setTime);
    m_lab = new LabWidget(m_tabs);
    m_tabs->addTab(m_lab, tr("Lab"));
    m_history = new RunHistoryWidget(m_tabs);
    m_tabs->addTab(m_history, tr("History"));
    connect(m_history, &RunHistoryWidget::openRun, this, &MainWindow::openRun);
    connect(m_history, &RunHistoryWidget::useProfileForSimVsReal, this, &MainWindow::setSimVsRealProfile);
    m_history->setCalibrationBlocker([this] { return calibrationBlocker(); });
    m_tuner = new TunerPanel(m_tabs);
    m_tabs->addTab(m_tuner, tr("Tuner"));
    m_tuner->setDocument(m_document);
    connect(m_tuner, &TunerPanel::showRequested, this, [this] { m_tabs->setCurrentWidget(m_tuner); });
    connect(m_tuner, &TunerPanel::openRunRequested, this, &MainWindow::openRun);
    connect(m_tuner, &TunerPanel::applyBestRequested, this, [this] {
        const auto assignments = m_tuner->bestAssignments();
        if (assignments.empty())
            return;
        // One undo step for the whole point.
        m_document->undoStack()->beginMacro(tr("Apply the study's best point"));
        for (const auto& [pointer, value] : assignments)
            m_document->setValue(pointer, nlohmann::ordered_json::parse(value.dump()), tr("Apply the best point"));
        m_document->undoStack()->endMacro();
        setStatus(tr("Applied the study's best point: %1 fields").arg(assignments.size()));
    });
    connect(m_history, &RunHistoryWidget::exported, this,
            [this](qint64 id, const QString& path) { setStatus(tr("Exported run #%1 to %2").arg(id).arg(path)); });
    connect(m_start, &StartPage::openRequested, this, [this](const QString& path) {
        if (openScenario(path))
            m_tabs->setCurrentWidget(m_topology);
    });
    connect(m_start, &StartPage::runRequested, this, &MainWindow::runScenario);
    connect(m_start, &StartPage::lessonRequested, this, [this](const QString& id) {
        m_tabs->setCurrentWidget(m_lab);
        m_lab->openLesson(id);
    });
    // An open or a save has just added to the recent files (updateTitle() shows the scenario's name there).
    connect(m_files, &DocumentFiles::status, this, &MainWindow::refreshRecent);
    // Each tab is made to fit the room a 1024×700 window leaves it; should one need more, that tab scrolls
    // (TabPages) instead of forcing the window wider than the screen or squeezing the docks.
    auto* scroll = new QScrollArea(this);
    scroll->setObjectName(QStringLiteral("tabsScroll"));
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setWidgetResizable(true);
    scroll->setWidget(m_tabs);
    setCentralWidget(scroll);
}

void MainWindow::buildDocks()
{
    m_panel = new ScenarioPanel(m_document, this);
    m_scenarioDock = new QDockWidget(tr("Scenario"), this);
    m_scenarioDock->setObjectName(QStringLiteral("ScenarioDock"));
    // The panel scrolls its own form (it can then scroll a field into view) and keeps its minimum width.
    m_scenarioDock->setWidget(m_panel);
    addDockWidget(Qt::LeftDockWidgetArea, m_scenarioDock);
    connect(m_panel, &ScenarioPanel::openInLab, this, [this](const QString& protocol) {
        m_tabs->setCurrentWidget(m_lab);
        m_lab->openProtocol(protocol);
    });

    m_problems = new QListWidget(this);
    m_problems->setWordWrap(true);
    m_problems->setTextElideMode(Qt::ElideNone);
    m_problems->setMinimumHeight(m_problems->fontMetrics().lineSpacing() * 2 + 8); // never a sliver
    m_problemsDock = new QDockWidget(tr("Problems"), this);
    m_problemsDock->setObjectName(QStringLiteral("ProblemsDock"));
    m_problemsDock->setWidget(m_problems);
    connect(m_problems, &QListWidget::itemActivated, this,
            [this](QListWidgetItem* item) { showProblem(item->data(Qt::UserRole).toString()); });
    addDockWidget(Qt::BottomDockWidgetArea, m_problemsDock);

    m_actions.view->addAction(m_scenarioDock->toggleViewAction());
    m_actions.view->addAction(m_problemsDock->toggleViewAction());
    m_actions.view->addSeparator();
    m_actions.view->addAction(m_actions.darkPalette);
    m_actions.view->addAction(m_actions.resetLayout);
    m_dockLayout = new DockLayout(this, m_scenarioDock, m_problemsDock);
}

void MainWindow::connectActions()
{
    const MainActions& a = m_actions;
    connect(a.newScenario, &QAction::triggered, m_files, &DocumentFiles::newScenario);
    connect(a.open, &QAction::triggered, this, [this] {
        const QString dir = m_document->filePath().isEmpty()
                                ? toQString(core::datasetsDir()) + QStringLiteral("/scenarios")
                                : QFileInfo(m_document->filePath()).absolutePath();
        const QString path = QFileDialog::getOpenFileName(this, tr("Open scenario"), dir, tr("Scenarios (*.json)"));
        if (!path.isEmpty())
            openScenario(path);
    });
    connect(a.save, &QAction::triggered, m_files, &DocumentFiles::save);
    connect(a.saveAs, &QAction::triggered, m_files, &DocumentFiles::saveAs);
    connect(a.exportRun, &QAction::triggered, this, &MainWindow::exportCurrentRun);
    connect(a.exportReport, &QAction::triggered, this, [this] {
        if (m_currentRunId <= 0)
            return;
        const qint64 id = m_currentRunId;
        exportReportWithDialog(this, m_databasePath, id, [this, id](const QString& path) {
            setStatus(tr("Wrote the report of run #%1 to %2").arg(id).arg(path));
        });
    });
    connect(a.quit, &QAction::triggered, this, &QWidget::close);
    connect(a.darkPalette, &QAction::toggled, this, [this](bool dark) {
        MainActions::applyPalette(dark);
        QSettings().setValue(QStringLiteral("darkPalette"), dark);
    });
    connect(a.resetLayout, &QAction::triggered, this, &MainWindow::resetLayout);
    connect(a.run, &QAction::triggered, this, &MainWindow::runScenario);
    connect(a.onSimulator, &QAction::toggled, this, &MainWindow::updateRunEnabled);
    connect(a.onRealCpu, &QAction::toggled, this, &MainWindow::updateRunEnabled);
    connect(a.onRealCuda, &QAction::toggled, this, &MainWindow::updateRunEnabled);
    connect(a.onSimVsRealGpu, &QAction::toggled, this, &MainWindow::updateRunEnabled);
    connect(a.onSimVsReal, &QAction::toggled, this, &MainWindow::updateRunEnabled);
    connect(a.cancel, &QAction::triggered, this, &MainWindow::cancelRun);
    connect(a.realMemory, &QAction::triggered, this, &MainWindow::chooseRealMemory);
    connect(a.realPoolLimit, &QAction::triggered, this, &MainWindow::chooseRealPoolLimit);
    connect(a.simVsRealPairs, &QAction::triggered, this, &MainWindow::chooseSimVsRealPairs);
    connect(a.simVsRealProfile, &QAction::triggered, this, [this] {
        const QString path =
            QFileDialog::getOpenFileName(this, tr("Profile for Simulator Against Real"), m_runner->simVsRealProfile(),
                                         tr("Hardware profiles (*.json);;All files (*)"));
        if (!path.isEmpty())
            setSimVsRealProfile(path);
    });
    connect(a.forgetSimVsRealProfile, &QAction::triggered, this, [this] { setSimVsRealProfile({}); });
    connect(a.calibrateProfile, &QAction::triggered, this, &MainWindow::calibrateForSimVsReal);
    connect(a.realRoutes, &QAction::toggled, this, [this](bool replay) {
        m_runner->setSimVsRealRoutes(replay);
        QSettings().setValue(QStringLiteral("run/simVsRealRoutes"), replay);
    });
    connect(a.sumSeals, &QAction::toggled, this, [this](bool sum) {
        m_runner->setSumSeals(sum);
        QSettings().setValue(QStringLiteral("run/sumSeals"), sum);
    });
    connect(a.scenarioFormat, &QAction::triggered, this, [this] { showHelp(QStringLiteral("scenario-format.md")); });
    m_actions.fillGuides(HelpWindow::guides(), [this](const QString& file) { showHelp(file); });
    connect(a.about, &QAction::triggered, this, [this] {
        QMessageBox::about(this, tr("About Coherence Studio"),
                           tr("<b>Coherence Studio %1</b><p>Simulates KV-cache coherence for disaggregated LLM "
                              "serving: prefill and decode on different GPUs, every KV movement a coherence "
                              "action.</p><p>Runs are stored in %2, shared with <tt>cohsim</tt>.</p>")
                               .arg(QStringLiteral(COH_VERSION), m_databasePath.toHtmlEscaped()));
    });
    m_actions.fillPresets([this](const QString& path) { openScenario(path); });
    refreshRecent();
}

void MainWindow::refreshRecent()
{
    // The menu and the Start page list the same files, refreshed together whenever a file is opened or saved
    // (a disabled menu never hears aboutToShow, so filling it there left it disabled all the first launch).
    m_actions.fillRecent([this](const QString& path) { openScenario(path); }, [this] { refreshRecent(); });
    m_start->refreshRecent();
}

void MainWindow::resetLayout()
{
    restoreState(m_defaultState);
    m_dockLayout->applyDefaults();
}

void MainWindow::showHelp(const QString& file)
{
    if (!m_help)
        m_help = new HelpWindow(this);
    m_help->showGuide(file);
}

void MainWindow::connectRunner()
{
    connect(m_runner, &RunController::started, this, [this](qint64 id) {
        setStatus(tr("Running run #%1…").arg(id));
        m_history->refresh(); // the Running row shows at once
    });
    connect(m_runner, &RunController::progress, this, [this](double fraction, const QString& text) {
        m_progress->setValue(int(fraction * 1000));
        setStatus(tr("Running %1% — %2").arg(int(fraction * 100)).arg(text));
    });
    connect(m_runner, &RunController::finished, this, [this](qint64 id, std::shared_ptr<const core::RunResult> result) {
        updateRunEnabled();
        m_history->refresh();
        // The run opens in Replay, as F5's tooltip and the guides promise, under the name it is stored with.
        showRun(id, std::move(result), m_runScenario, m_runner->runName(), m_runner->scenarioPath());
        m_tabs->setCurrentWidget(m_replay);
        setStatus(tr("Run #%1 stored in %2").arg(id).arg(m_databasePath));
        emit runShown(id);
    });
    // Sim against real: the real run is in Replay; both open side by side in Compare, the error in the status bar.
    connect(m_runner, &RunController::comparedWithReal, this,
            [this](qint64 realId, qint64 simulatedId, const QString& comparison, const QList<qint64>& pairedIds) {
                QStringList ids;
                for (qint64 id : pairedIds)
                    ids << QStringLiteral("#%1").arg(id);
                setStatus(tr("Runs %1 stored: %2").arg(ids.join(QStringLiteral(", ")), comparison));
                // Every pair: Compare then shows the median of their errors, as compare-real --repeat prints it. Up
                // to 15 pairs of runs with their event records: read off the GUI thread, as History does.
                QtConcurrent::run(&RunCompareDialog::loadRuns, m_databasePath, pairedIds)
                    .then(this, [this, realId, simulatedId](RunCompareDialog::Loaded loaded) {
                        auto* dialog = new RunCompareDialog(std::move(loaded), this);
                        dialog->setDatabasePath(m_databasePath);
                        dialog->setAttribute(Qt::WA_DeleteOnClose);
                        // The simulated runs model the real ones (as stored): the dialog shows the simulator's error.
                        dialog->show();
                        emit comparedWithReal(realId, simulatedId);
                    });
            });
    connect(m_runner, &RunController::failed, this, [this](const QString& error) {
        m_runError = error;
        updateRunEnabled();
        m_history->refresh();
        validateNow(); // puts the run's error at the top of Problems
        m_problemsDock->show();
        setStatus(tr("Run failed: %1").arg(error.section(QLatin1Char('\n'), 0, 0)));
    });
    connect(m_runner, &RunController::cancelled, this, [this] {
        updateRunEnabled();
        m_history->refresh();
        setStatus(tr("Run cancelled (recorded as cancelled in the history)"));
    });
}

void MainWindow::validateNow()
{
    m_validateTimer->stop();
    const ScenarioDocument::Validation v = m_document->validate();
    m_validationError = v.scenario ? QString() : v.error;
    m_problems->clear();
    if (!m_runError.isEmpty())
        m_problems->addItem(tr("Last run failed: %1").arg(m_runError));
    const QStringList lines = m_validationError.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    if (lines.size() == static_cast<qsizetype>(v.problems.size())) {
        // One line per problem: each remembers its field, so activating it shows that field (showProblem).
        for (std::size_t i = 0; i < v.problems.size(); ++i) {
            auto* item = new QListWidgetItem(lines[static_cast<qsizetype>(i)], m_problems);
            item->setData(Qt::UserRole, toQString(v.problems[i].field));
            item->setToolTip(tr("Double-click to show %1").arg(toQString(v.problems[i].field)));
        }
    } else {
        for (const QString& line : lines)
            m_problems->addItem(line);
    }
    if (m_problems->count() == 0)
        m_problems->addItem(tr("No problems: the scenario validates."));
    m_problemsDock->setWindowTitle(lines.isEmpty() ? tr("Problems") : tr("Problems (%1)").arg(lines.size()));
    updateRunEnabled();
    if (!m_runner->isRunning())
        setStatus(m_validationError.isEmpty() ? tr("Validated") : tr("%n problem(s)", nullptr, int(lines.size())));
}

void MainWindow::showProblem(const QString& pointer)
{
    // A node or link problem selects it on the canvas (its properties open beside it); anything else is a
    // scenario field, in the Scenario dock.
    if (m_topology->selectProblem(pointer)) {
        m_tabs->setCurrentWidget(m_topology);
        return;
    }
    if (!pointer.isEmpty()) {
        m_scenarioDock->show();
        m_scenarioDock->raise();
        m_panel->showField(pointer);
    }
}

void MainWindow::updateRunEnabled()
{
    const bool running = m_runner->isRunning();
    const bool canRun = !running && m_validationError.isEmpty();
    const QString why =
        running ? tr("A run is in progress")
        : m_validationError.isEmpty()
            ? tipWithShortcut(
                  m_actions.simVsReal()
                      ? tr("Run the scenario on this machine's %1, then simulate it on the machine's calibrated "
                           "profile; store both and compare them")
                            .arg(m_actions.backend() == QLatin1String("real-cuda") ? tr("GPU") : tr("CPU"))
                  : m_actions.onRealCpu->isChecked()  ? tr("Run the scenario on this machine's CPU (real copies and "
                                                            "attention, measured) and store the run")
                  : m_actions.onRealCuda->isChecked() ? tr("Run the scenario on this machine's GPU (real copies and "
                                                           "attention, measured) and store the run")
                                                      : tr("Simulate the scenario and store the run"),
                  m_actions.run)
            : tr("Fix the scenario first (see Problems):\n%1").arg(m_validationError);
    m_actions.run->setEnabled(canRun);
    m_actions.run->setToolTip(why);
    m_start->setRunState(canRun, why);
    // The backend chosen shows where Run is pressed, not only in its menu and tooltip.
    const bool cuda = m_actions.backend() == QLatin1String("real-cuda");
    const QString device = cuda ? tr("GPU") : tr("CPU");
    if (m_actions.simVsReal()) {
        m_actions.run->setText(tr("&Run: Simulator Against Real %1").arg(device));
        m_start->setRunWords(
            tr("Run it against the real %1 (F5)").arg(device),
            m_runner->simVsRealProfile().isEmpty()
                ? tr("run it on this machine's %1 and simulate it on the machine's calibrated profile").arg(device)
                : tr("run it on this machine's %1 and simulate it on the profile in %2")
                      .arg(device, QFileInfo(m_runner->simVsRealProfile()).fileName()));
    } else if (m_actions.onRealCpu->isChecked() || m_actions.onRealCuda->isChecked()) {
        m_actions.run->setText(tr("&Run on Real %1").arg(device));
        m_start->setRunWords(tr("Run it on the real %1 (F5)").arg(device),
                             tr("run it on this machine's %1, every copy and decode step measured").arg(device));
    } else {
        m_actions.run->setText(tr("&Run"));
        m_start->setRunWords(tr("Run it (F5)"), tr("simulate it"));
    }
    m_actions.cancel->setEnabled(running);
    m_actions.exportRun->setEnabled(m_currentRunId > 0);
    m_actions.exportReport->setEnabled(m_currentRunId > 0);
    m_progress->setVisible(running);
}

void MainWindow::runScenario()
{
    // A field still being typed in commits on focus loss: run what the form shows, not what it showed before.
    if (QWidget* focus = QApplication::focusWidget(); focus && m_panel->isAncestorOf(focus))
        focus->clearFocus();
    validateNow();
    if (!m_validationError.isEmpty() || m_runner->isRunning())
        return;
    if (profileBeingMade()) { // a run beside a calibration would slow it, and be slowed
        setStatus(tr("A profile of this machine is being measured: run once it has ended."));
        return;
    }
    m_runError.clear();
    m_runScenario = m_document->json();
    m_progress->setValue(0);
    const bool started =
        m_actions.simVsReal()
            ? m_runner->startSimVsReal(m_runScenario, m_document->filePath(), m_databasePath, m_actions.backend())
            : m_runner->start(m_runScenario, m_document->filePath(), m_databasePath, m_actions.backend());
    if (started) {
        setStatus(tr("Starting run…"));
        updateRunEnabled();
    }
}

void MainWindow::cancelRun()
{
    if (m_runner->isRunning()) {
        m_runner->cancel();
        setStatus(tr("Cancelling…"));
    }
}

namespace {

// A stored run read on a worker thread, for openRun(), with its replay model built there too: one job, and the
// GUI thread only swaps the model in.
struct LoadedRun {
    std::shared_ptr<const ReplayModel> model;
    QString name;
    QString error;
};

LoadedRun loadStoredRun(const QString& databasePath, qint64 runId)
{
    LoadedRun loaded;
    try {
        core::RunStore store(toStdString(databasePath)); // its own connection, on this thread
        const auto info = store.runInfo(runId);
        if (!info) {
            loaded.error = MainWindow::tr("There is no run #%1 in %2.").arg(runId).arg(databasePath);
        } else if (info->status != core::RunStatus::Completed) {
            loaded.error =
                MainWindow::tr("Run #%1 is %2%3: only completed runs have results to replay.")
                    .arg(runId)
                    .arg(toQString(core::toString(info->status)))
                    .arg(info->error.empty() ? QString() : QStringLiteral(" (%1)").arg(toQString(info->error)));
        } else {
            auto run = std::make_shared<const core::RunResult>(store.loadRun(runId));
            const auto scenario = nlohmann::ordered_json::parse(store.scenarioJson(runId).value_or("{}"));
            loaded.model = std::make_shared<const ReplayModel>(std::move(run), scenario);
            loaded.name = toQString(info->name);
        }
    } catch (const std::exception& e) {
        loaded.error = toQString(e.what());
    }
    return loaded;
}

} // namespace

void MainWindow::openRun(qint64 runId)
{
    // A run with its full event record can take a moment to read: off the GUI thread, and only the latest
    // request is shown when several overlap.
    const quint64 generation = ++m_openGeneration;
    setStatus(tr("Loading run #%1…").arg(runId));
    QtConcurrent::run(loadStoredRun, m_databasePath, runId).then(this, [this, runId, generation](LoadedRun loaded) {
        if (generation != m_openGeneration)
            return;
        if (!loaded.model) {
            setStatus(tr("Cannot open run #%1").arg(runId));
            QMessageBox::warning(this, tr("Cannot open run %1").arg(runId), loaded.error);
            return;
        }
        m_currentRunId = runId;
        m_replay->setRun(loaded.model, {runId, loaded.name, {}});
        m_charts->setRun(loaded.model->runPtr());
        updateRunEnabled();
        m_tabs->setCurrentWidget(m_replay);
        setStatus(tr("Showing run #%1").arg(runId));
        emit runShown(runId);
    });
}

void MainWindow::showRun(qint64 runId, std::shared_ptr<const core::RunResult> run,
                         const nlohmann::ordered_json& scenario, const QString& runName, const QString& scenarioFile)
{
    m_currentRunId = runId;
    m_replay->loadRun(run, scenario, {runId, runName, scenarioFile});
    m_charts->setRun(run);
    updateRunEnabled();
}

QString MainWindow::statusText() const
{
    return m_status->text();
}

void MainWindow::setStatus(const QString& text)
{
    m_status->setText(text);
    // A long message (sim against real's errors) is cut at the window's edge: its tooltip holds all of it.
    m_status->setToolTip(text);
}

void MainWindow::updateTitle()
{
    setWindowTitle(tr("%1[*] — Coherence Studio").arg(m_document->displayName()));
    m_start->setCurrentScenario(m_document->displayName());
    setWindowModified(m_document->isModified());
    m_actions.save->setEnabled(m_document->isModified() || m_document->filePath().isEmpty());
}

bool MainWindow::openScenario(const QString& path)
{
    if (!m_files->maybeSave())
        return false;
    QString error;
    if (!m_files->open(path, &error)) {
        setStatus(tr("Cannot open %1").arg(path));
        m_problems->clear();
        m_problems->addItem(error);
        m_problemsDock->show();
        return false;
    }
    updateTitle();
    validateNow();
    return true;
}

void MainWindow::exportCurrentRun()
{
    if (m_currentRunId <= 0)
        return;
    const qint64 id = m_currentRunId;
    RunHistoryWidget::exportWithDialog(
        this, m_databasePath, id, RunHistoryWidget::ExportFormat::RequestsCsv,
        [this, id](const QString& path) { setStatus(tr("Exported run #%1 to %2").arg(id).arg(path)); });
}

void MainWindow::closeEvent(QCloseEvent* event)
{
    if (!m_files->maybeSave()) {
        event->ignore();
        return;
    }
    if (m_runner->isRunning())
        m_runner->cancel(); // the controller's destructor waits for the worker, which stores it as cancelled
    QSettings settings;
    settings.setValue(QStringLiteral("mainWindow/geometry"), saveGeometry());
    settings.setValue(QStringLiteral("mainWindow/state"), saveState());
    event->accept();
}

} // namespace coh::ui
