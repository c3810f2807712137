#include "ui/screenshot_tour.h"

#include "core/coherence/protocol_registry.h"
#include "core/scenario/datasets_dir.h"
#include "core/scenario/request_limit.h"
#include "ui/charts_panel.h"
#include "ui/help_window.h"
#include "ui/lab_model.h"
#include "ui/lab_widget.h"
#include "ui/main_actions.h"
#include "ui/main_window.h"
#include "ui/parallel_coordinates.h"
#include "ui/qt_text.h"
#include "ui/replay_inspector.h"
#include "ui/replay_widget.h"
#include "ui/run_compare_dialog.h"
#include "ui/run_controller.h"
#include "ui/run_costs_profile.h"
#include "ui/run_history_widget.h"
#include "ui/scenario_document.h"
#include "ui/screenshot_scenes.h"
#include "ui/study_builder_dialog.h"
#include "ui/time_chart_view.h"
#include "ui/topology_editor.h"
#include "ui/topology_scene.h"
#include "ui/tuner_panel.h"

#include <QAction>
#include <QApplication>
#include <QDir>
#include <QEventLoop>
#include <QLabel>
#include <QMessageBox>
#include <QScrollArea>
#include <QScrollBar>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTextBrowser>
#include <QTimer>

#include <algorithm>

namespace coh::ui {

namespace {

// The bug hunt shown in progress, and a Lab run that leaves two messages in flight after its last step: P2's
// GetM, which must wait (the directory is busy with P1's read), and the Fwd-GetS to P0, which may arrive next.
const QString kBugHunt = QStringLiteral("bughunt-missing-inv");
const QString kDeliveryProtocol = QStringLiteral("msi-directory");
const QString kDeliveryOps = QStringLiteral("P0:W,D:*,P1:R,P2:W,D:0");
constexpr int kDeliveryCaches = 3;

QString firstGpu(const nlohmann::ordered_json& scenario)
{
    const auto nodes = scenario.value("/topology/nodes"_json_pointer, nlohmann::ordered_json::array());
    for (const auto& node : nodes)
        if (node.value("kind", std::string()) == "gpu")
            return QString::fromStdString(node.value("id", std::string()));
    return {};
}

// Lets layouts, charts and the replay settle and paint before a grab (under X11 a resize is asynchronous).
void settle(int ms)
{
    QEventLoop loop;
    QTimer::singleShot(ms, &loop, &QEventLoop::quit);
    loop.exec();
}

} // namespace

ScreenshotTour::ScreenshotTour(MainWindow* window, const QString& outputDir, QObject* parent)
    : QObject(parent)
    , m_window(window)
    , m_dir(outputDir)
{
}

QList<QSize> ScreenshotTour::sizes()
{
    return {QSize(1024, 700), QSize(1600, 1000)};
}

QString ScreenshotTour::fileName(const QString& view, bool dark, const QSize& size)
{
    return QStringLiteral("%1-%2-%3x%4.png")
        .arg(view.toLower(), dark ? QStringLiteral("dark") : QStringLiteral("light"))
        .arg(size.width())
        .arg(size.height());
}

QList<ScreenshotTour::Extra> ScreenshotTour::extras()
{
    // At 1024×700 the inspector's details, the CDFs, the hunt's questions and the help window's text get too
    // little room to show what the picture is for: those are taken large only.
    return {{QStringLiteral("replay-message"), false}, {QStringLiteral("compare"), true},
            {QStringLiteral("compare-cdf"), false},    {QStringLiteral("help"), false},
            {QStringLiteral("lab-bughunt"), false},    {QStringLiteral("lab-delivery"), true},
            {QStringLiteral("tuner-parallel"), true},  {QStringLiteral("study-builder"), false},
            {QStringLiteral("compare-real"), true},    {QStringLiteral("history-real"), true},
            {QStringLiteral("execute-on"), false},     {QStringLiteral("costs-profile"), false}};
}

int ScreenshotTour::expectedCount() const
{
    int perPalette = int(m_window->tabs()->count() * sizes().size());
    for (const Extra& extra : extras())
        perPalette += extra.small ? int(sizes().size()) : 1;
    // A run with node failures adds its availability chart at every size.
    const auto* charts = m_window->findChild<ChartsPanel*>();
    if (charts && !charts->availabilityChart()->isHidden())
        perPalette += int(sizes().size());
    return perPalette * 2;
}

void ScreenshotTour::start()
{
    if (!QDir().mkpath(m_dir)) {
        emit finished(false, tr("cannot create the folder %1").arg(m_dir));
        return;
    }
    RunController* runner = m_window->runController();
    connect(runner, &RunController::finished, this, [this](qint64 id) {
        m_runId = id;
        // The window shows the run from the same signal; let it finish laying out first.
        QMetaObject::invokeMethod(this, &ScreenshotTour::afterRun, Qt::QueuedConnection);
    });
    connect(runner, &RunController::failed, this, [this](const QString& error) {
        m_failed = true;
        emit finished(false, error);
    });
    m_window->runScenario();
    // A run that failed at once has said so through failed(); one that never started says nothing.
    if (!runner->isRunning() && !m_failed)
        emit finished(false, tr("the scenario did not start: %1").arg(m_window->statusText()));
}

// The scenario again under comparedDecodeProtocol(), stored beside the first run for Compare. A controller of its
// own, so the window keeps showing the scenario's own run; the same cost as that run (the same workload).
bool ScreenshotTour::runCompared()
{
    nlohmann::ordered_json scenario = m_window->document()->json();
    const QString protocol = comparedDecodeProtocol(scenario);
    scenario["coherence"]["decode"] = protocol.toStdString();
    RunController runner;
    QEventLoop loop;
    connect(&runner, &RunController::finished, &loop, [this, &loop](qint64 id) {
        m_comparedRunId = id;
        loop.quit();
    });
    connect(&runner, &RunController::failed, &loop, [this, &loop](const QString& error) {
        m_comparedError = error;
        loop.quit();
    });
    if (runner.start(scenario, m_window->document()->filePath(), m_window->runController()->databasePath()))
        loop.exec();
    if (m_comparedRunId == 0 && m_comparedError.isEmpty())
        m_comparedError = tr("it did not start");
    if (m_comparedRunId == 0)
        m_comparedError = tr("the %1 run for Compare failed: %2").arg(protocol, m_comparedError);
    return m_comparedRunId != 0;
}

// The Tuner's pictures need a study's points: the scenario's decode protocols, block sizes and routers (20 runs of
// the default scenario: about a second here).
bool ScreenshotTour::runStudy()
{
    TunerPanel* tuner = m_window->tunerPanel();
    const QString study = toQString(core::datasetsDir()) + QStringLiteral("/studies/decode-protocols.json");
    if (!tuner->openStudy(study)) {
        m_studyError = tr("the study %1 did not open: %2").arg(study, tuner->statusLabel()->text());
        return false;
    }
    bool completed = false;
    QEventLoop loop;
    connect(tuner, &TunerPanel::finished, &loop, [&completed, &loop](bool ok) {
        completed = ok;
        loop.quit();
    });
    tuner->run();
    if (tuner->isRunning())
        loop.exec();
    if (!completed)
        m_studyError = tr("the Tuner's study did not complete: %1").arg(tuner->statusLabel()->text());
    return completed;
}

// Simulator Against Real CPU on the scenario's first requests: calibrates, runs real-cpu, then the simulator on the
// profile, both stored, kSimVsRealPairs times (about ten seconds each here). A controller of its own, as runCompared's.
bool ScreenshotTour::runSimVsReal()
{
    nlohmann::ordered_json scenario = m_window->document()->json();
    core::limitScenarioRequests(scenario, kSimVsRealRequests);
    RunController runner;
    QEventLoop loop;
    runner.setSimVsRealPairs(kSimVsRealPairs);
    connect(&runner, &RunController::comparedWithReal, &loop,
            [this, &loop](qint64 real, qint64 model, const QString&, const QList<qint64>& paired) {
                m_realRunId = real;
                m_modelRunId = model;
                m_pairedRunIds = paired;
                loop.quit();
            });
    connect(&runner, &RunController::failed, &loop, [this, &loop](const QString& error) {
        m_simVsRealError = error;
        loop.quit();
    });
    connect(&runner, &RunController::cancelled, &loop, [this, &loop] {
        m_simVsRealError = tr("it was cancelled");
        loop.quit();
    });
    // comparedWithReal follows finished at once, when there is a simulated run: finished ends the wait either way.
    connect(&runner, &RunController::finished, &loop, &QEventLoop::quit, Qt::QueuedConnection);
    const bool started =
        runner.startSimVsReal(scenario, m_window->document()->filePath(), m_window->runController()->databasePath());
    if (started)
        loop.exec();
    if (m_modelRunId == 0)
        m_simVsRealError = tr("the sim-against-real pair for Compare failed: %1")
                               .arg(!m_simVsRealError.isEmpty() ? m_simVsRealError
                                    : started                   ? tr("no simulated run came of it")
                                                                : tr("it did not start"));
    return m_modelRunId != 0;
}

void ScreenshotTour::afterRun()
{
    runCompared();
    runStudy();
    runSimVsReal();
    auto* replay = m_window->findChild<ReplayWidget*>();
    if (replay && replay->isLoading()) {
        // The replay builds its model on a worker: wait until it is on show rather than count on timing.
        QEventLoop loop;
        connect(replay, &ReplayWidget::runShown, &loop, &QEventLoop::quit);
        loop.exec();
    }
    if (replay && replay->run()) {
        m_busiest = busiestInstant(*replay->run());
        m_message = dataMessageWithStep(*replay->model(), m_busiest);
    }
    // The runs listed, the scenario's own selected, so History's buttons show enabled.
    m_window->historyWidget()->refresh();
    m_window->historyWidget()->selectRun(m_runId);
    // A node selected, so the Topology tab shows its properties beside the canvas.
    if (auto* editor = m_window->findChild<TopologyEditor*>())
        if (const QString gpu = firstGpu(m_window->document()->json()); !gpu.isEmpty())
            editor->scene()->selectIds({gpu}, {});
    QAction* darkPalette = m_window->actions().darkPalette;
    const bool wasDark = darkPalette->isChecked();
    for (const bool dark : {false, true}) {
        darkPalette->setChecked(dark);
        for (const QSize& size : sizes())
            captureAll(dark, size);
    }
    darkPalette->setChecked(wasDark); // the user's choice, remembered in the settings, is left as it was
    const bool ok = m_saved.size() == expectedCount();
    QStringList problems;
    if (!m_comparedError.isEmpty())
        problems << m_comparedError;
    if (!m_studyError.isEmpty())
        problems << m_studyError;
    if (!m_simVsRealError.isEmpty())
        problems << m_simVsRealError;
    if (!m_failedSaves.isEmpty())
        problems << tr("not saved: %1").arg(m_failedSaves.join(QStringLiteral(", ")));
    emit finished(ok, ok ? QString()
                         : tr("%1 of %2 pictures saved; %3")
                               .arg(m_saved.size())
                               .arg(expectedCount())
                               .arg(problems.join(QStringLiteral("; "))));
}

// The tabs as the tour shows them, whatever an extra picture changed: the replay at its busiest instant with
// nothing selected, a lesson midway through the Lab (the sequence chart has arrows, the table a change).
void ScreenshotTour::resetViews()
{
    if (auto* replay = m_window->findChild<ReplayWidget*>(); replay && replay->run()) {
        replay->selectMessage(-1);
        replay->setTime(m_busiest);
    }
    if (auto* lab = m_window->findChild<LabWidget*>()) {
        lab->model()->setDeliverByHand(false);
        lab->openLesson(QStringLiteral("moesi-owned"));
        lab->model()->setCurrentStep(lab->model()->stepCount() / 2);
    }
}

void ScreenshotTour::captureAll(bool dark, const QSize& size)
{
    m_window->resize(size);
    settle(100);
    m_window->resetLayout(); // the default dock sizes for this window size
    resetViews();
    QTabWidget* tabs = m_window->tabs();
    for (int tab = 0; tab < tabs->count(); ++tab)
        captureTab(tab, fileName(tabs->tabText(tab).remove(QLatin1Char('&')), dark, size));
    captureAvailability(fileName(QStringLiteral("charts-availability"), dark, size));
    const bool small = size == sizes().constFirst();
    for (const Extra& extra : extras())
        if (extra.small || !small)
            captureExtra(extra.view, fileName(extra.view, dark, size));
}

void ScreenshotTour::captureTab(int tab, const QString& name)
{
    m_window->tabs()->setCurrentIndex(tab);
    settle(100);
    // The topology is framed for the size it is shown at, as Fit (Ctrl+0) would.
    if (auto* editor = m_window->findChild<TopologyEditor*>(); editor && m_window->tabs()->currentWidget() == editor) {
        editor->canvasActions().fit->trigger();
        settle(20);
    }
    save(m_window->grab(), name);
}

// A run with node failures: the Charts tab scrolled to its availability chart, which sits below the first screen.
void ScreenshotTour::captureAvailability(const QString& name)
{
    auto* charts = m_window->findChild<ChartsPanel*>();
    if (!charts || charts->availabilityChart()->isHidden())
        return;
    for (QWidget* w = charts; w; w = w->parentWidget())
        if (const int index = m_window->tabs()->indexOf(w); index >= 0)
            m_window->tabs()->setCurrentIndex(index);
    settle(100);
    // It is the grid's last chart: the bottom of the scroll area shows it whole.
    if (auto* scroll = charts->findChild<QScrollArea*>())
        scroll->verticalScrollBar()->setValue(scroll->verticalScrollBar()->maximum());
    settle(50);
    save(m_window->grab(), name);
    if (auto* scroll = charts->findChild<QScrollArea*>())
        scroll->ensureVisible(0, 0);
}

void ScreenshotTour::captureExtra(const QString& view, const QString& name)
{
    auto* replay = m_window->findChild<ReplayWidget*>();
    auto* lab = m_window->findChild<LabWidget*>();
    QPixmap picture;
    if (view == QLatin1String("replay-message") && replay && m_message >= 0) {
        m_window->tabs()->setCurrentWidget(replay);
        replay->setTime(m_busiest);
        replay->selectMessage(m_message); // the canvas rings it, the list selects it, the details explain it
        settle(100);
        picture = grabMessageDetails(replay);
    } else if (view == QLatin1String("compare") && m_comparedRunId != 0) {
        picture = grabCompare(0);
    } else if (view == QLatin1String("compare-cdf") && m_comparedRunId != 0) {
        picture = grabCompare(1);
    } else if (view == QLatin1String("compare-real") && m_modelRunId != 0) {
        picture = grabCompare(0, m_pairedRunIds);
    } else if (view == QLatin1String("history-real") && m_realRunId != 0) {
        picture = grabRealRunInHistory();
    } else if (view == QLatin1String("costs-profile") && m_realRunId != 0) {
        picture = grabCostsProfile();
    } else if (view == QLatin1String("execute-on")) {
        // Run > Execute On: the backends and the real runs' settings, sim-against-real's among them.
        picture = grabMenuOpen(m_window, m_window->actions().runMenu, m_window->actions().executeOn);
    } else if (view == QLatin1String("help")) {
        m_window->showHelp(QStringLiteral("scenario-format.md"));
        settle(150);
        picture = grabOver(m_window, m_window->helpWindow());
        m_window->helpWindow()->hide();
    } else if (view == QLatin1String("lab-bughunt") && lab) {
        m_window->tabs()->setCurrentWidget(lab);
        lab->openLesson(kBugHunt); // the Lessons tab, the hunt's questions under its text, the answer hidden
        lab->model()->setCurrentStep(lab->model()->stepCount() / 2);
        settle(100);
        picture = m_window->grab();
    } else if (view == QLatin1String("lab-delivery") && lab) {
        picture = grabLabDelivery();
    } else if (view == QLatin1String("tuner-parallel") && m_studyError.isEmpty()) {
        picture = grabTunerParallel();
    } else if (view == QLatin1String("study-builder")) {
        picture = grabStudyBuilder();
    }
    if (picture.isNull())
        m_failedSaves << name;
    else
        save(picture, name);
}

// The window with the inspector's splitter dragged so the selected message's details show whole (the step comes
// first; the message's facts follow it), as a reader would drag it; the splitter is put back afterwards.
QPixmap ScreenshotTour::grabMessageDetails(ReplayWidget* replay)
{
    QTextBrowser* details = replay->inspector()->details();
    auto* split = qobject_cast<QSplitter*>(details->parentWidget());
    if (!split || split->count() != 2)
        return m_window->grab();
    const QList<int> before = split->sizes();
    const int total = before.value(0) + before.value(1);
    const int wanted = int(details->document()->size().height()) + 2 * details->frameWidth();
    const int shown = std::min(wanted, total * 2 / 3); // the list keeps a third
    split->setSizes({total - shown, shown});
    QTableView* list = replay->inspector()->table();
    list->scrollTo(list->currentIndex(), QAbstractItemView::PositionAtCenter); // its row stays in view
    settle(50);
    const QPixmap picture = m_window->grab();
    split->setSizes(before);
    return picture;
}

// History with the sim-against-real pair's real run selected: its details below the list say what it ran on, what
// its copies and steps measured, and its steps by size. The scenario's own run is selected again after.
QPixmap ScreenshotTour::grabRealRunInHistory()
{
    m_window->tabs()->setCurrentWidget(m_window->historyWidget());
    m_window->historyWidget()->refresh();
    m_window->historyWidget()->selectRun(m_realRunId);
    settle(150);
    const QPixmap picture = m_window->grab();
    m_window->historyWidget()->selectRun(m_runId);
    return picture;
}

// History ▸ Export ▸ Profile of Its Costs… on the first real run, as it ends: the box saying what the profile took from
// the run, over History with the run selected. The profile is made for real, into a folder thrown away after.
QPixmap ScreenshotTour::grabCostsProfile()
{
    m_window->tabs()->setCurrentWidget(m_window->historyWidget());
    m_window->historyWidget()->refresh();
    m_window->historyWidget()->selectRun(m_realRunId);
    const QTemporaryDir folder;
    const QString path = folder.filePath(QStringLiteral("run-%1-costs.json").arg(m_realRunId));
    const ProfileOutcome out = writeRunCostsProfile(m_window->historyWidget()->databasePath(), m_realRunId, path);
    QPixmap picture;
    if (out.written) {
        QMessageBox* box = runCostsProfileBox(m_window, m_realRunId, path, out, [](const QString&) {});
        box->show();
        settle(100);
        picture = grabOver(m_window, box);
        box->close();
    }
    m_window->historyWidget()->selectRun(m_runId);
    return picture;
}

// Compare opened from History over the scenario's run and the compared one, as the Compare button opens it
// (a child of the History tab, sized from the window): tab 0 the summary and the deltas, 1 the CDFs.
QPixmap ScreenshotTour::grabCompare(int tab, QList<qint64> runs)
{
    if (runs.isEmpty())
        runs = {m_runId, m_comparedRunId};
    m_window->tabs()->setCurrentWidget(m_window->historyWidget());
    RunCompareDialog dialog(RunCompareDialog::loadRuns(m_window->runController()->databasePath(), runs),
                            m_window->historyWidget());
    dialog.tabs()->setCurrentIndex(tab);
    dialog.show();
    settle(150);
    return grabOver(m_window, &dialog);
}

// The Lab's Play tab after a run delivered by hand: the messages in flight, one ready to deliver and one that
// must wait, the learner's choice to make.
QPixmap ScreenshotTour::grabLabDelivery()
{
    auto* lab = m_window->findChild<LabWidget*>();
    m_window->tabs()->setCurrentWidget(lab);
    lab->openProtocol(kDeliveryProtocol);
    lab->model()->setDeliverByHand(true);
    if (!lab->model()->load(kDeliveryProtocol, kDeliveryCaches, kDeliveryOps))
        return {};
    lab->model()->last();
    lab->sideTabs()->setCurrentIndex(1); // Play: the ops and the messages in flight
    settle(100);
    return m_window->grab();
}

// The study's points as parallel coordinates, a band kept on the first objective's better part, the view given
// the room a reader would drag the splitter to; the tab is put back afterwards.
QPixmap ScreenshotTour::grabTunerParallel()
{
    TunerPanel* tuner = m_window->tunerPanel();
    m_window->tabs()->setCurrentWidget(tuner);
    tuner->pointViews()->setCurrentIndex(1);
    auto* split = qobject_cast<QSplitter*>(tuner->pointViews()->parentWidget());
    const QList<int> before = split ? split->sizes() : QList<int>();
    if (split)
        split->setSizes(m_window->height() < 800 ? QList<int>{120, 400} : QList<int>{400, 500});
    ParallelCoordinatesView* parallel = tuner->parallelView();
    const auto& axes = parallel->axes();
    for (int a = 0; a < static_cast<int>(axes.size()); ++a)
        if (axes[static_cast<std::size_t>(a)].smallerAtTop) {
            parallel->setBrush(a, std::pair{0.72, 1.0});
            break;
        }
    settle(100);
    const QPixmap picture = m_window->grab();
    parallel->clearBrushes();
    tuner->pointViews()->setCurrentIndex(0);
    if (split)
        split->setSizes(before);
    return picture;
}

// New Study with three of the scenario's fields varied, through the request right-clicking them makes (the decode
// protocol with the names its menu offers: every protocol a scenario may name).
QPixmap ScreenshotTour::grabStudyBuilder()
{
    TunerPanel* tuner = m_window->tunerPanel();
    m_window->tabs()->setCurrentWidget(tuner);
    if (!tuner->builder() || tuner->draft().parameters.empty()) {
        QStringList protocols;
        for (const auto& p : core::coherence::allProtocols())
            if (!p.bugHunt)
                protocols << toQString(p.name);
        ScenarioDocument* document = m_window->document();
        document->requestVary("/coherence/decode", protocols);
        document->requestVary("/serving/block_tokens", {});
        document->requestVary("/workload/time_scale", {});
    } else {
        tuner->openBuilder();
    }
    settle(150);
    const QPixmap picture = grabOver(m_window, tuner->builder());
    tuner->builder()->hide();
    return picture;
}

void ScreenshotTour::save(const QPixmap& picture, const QString& name)
{
    const QString path = QDir(m_dir).filePath(name);
    if (picture.save(path))
        m_saved << path;
    else
        m_failedSaves << name;
}

} // namespace coh::ui
