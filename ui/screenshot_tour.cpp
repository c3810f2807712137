#include "ui/screenshot_tour.h"

#include "ui/lab_model.h"
#include "ui/lab_widget.h"
#include "ui/main_actions.h"
#include "ui/main_window.h"
#include "ui/replay_widget.h"
#include "ui/run_controller.h"
#include "ui/run_history_widget.h"
#include "ui/scenario_document.h"
#include "ui/topology_editor.h"
#include "ui/topology_scene.h"

#include <QAction>
#include <QApplication>
#include <QDir>
#include <QEventLoop>
#include <QPixmap>
#include <QTabWidget>
#include <QTimer>

#include <algorithm>
#include <vector>

namespace coh::ui {

namespace {

// The instant with the most messages in flight: a sweep over message starts and ends.
qint64 busiestInstant(const core::RunResult& run)
{
    std::vector<std::pair<core::SimTime, int>> edges;
    edges.reserve(run.messages.size() * 2);
    for (const auto& m : run.messages) {
        edges.emplace_back(m.start, +1);
        edges.emplace_back(m.end, -1);
    }
    // Ends before starts at the same instant: a message is in flight over [start, end).
    std::sort(edges.begin(), edges.end());
    int inFlight = 0, best = -1;
    qint64 at = 0;
    for (const auto& [time, delta] : edges) {
        inFlight += delta;
        if (inFlight > best) {
            best = inFlight;
            at = time;
        }
    }
    return at;
}

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

QString ScreenshotTour::fileName(const QString& tab, bool dark, const QSize& size)
{
    return QStringLiteral("%1-%2-%3x%4.png")
        .arg(tab.toLower(), dark ? QStringLiteral("dark") : QStringLiteral("light"))
        .arg(size.width())
        .arg(size.height());
}

int ScreenshotTour::expectedCount() const
{
    return int(m_window->tabs()->count() * sizes().size() * 2);
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

void ScreenshotTour::afterRun()
{
    if (auto* replay = m_window->findChild<ReplayWidget*>(); replay && replay->run())
        replay->setTime(busiestInstant(*replay->run()));
    if (auto* lab = m_window->findChild<LabWidget*>()) {
        lab->openLesson(QStringLiteral("moesi-owned"));
        // Midway through the lesson, so the sequence chart has arrows and the table a highlighted change.
        lab->model()->setCurrentStep(lab->model()->stepCount() / 2);
    }
    // The run selected in History, so its buttons show enabled.
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
    emit finished(ok, ok ? QString()
                         : tr("%1 of %2 pictures saved; not saved: %3")
                               .arg(m_saved.size())
                               .arg(expectedCount())
                               .arg(m_failedSaves.join(QStringLiteral(", "))));
}

void ScreenshotTour::captureAll(bool dark, const QSize& size)
{
    m_window->resize(size);
    settle(100);
    m_window->resetLayout(); // the default dock sizes for this window size
    QTabWidget* tabs = m_window->tabs();
    for (int tab = 0; tab < tabs->count(); ++tab)
        capture(tab, fileName(tabs->tabText(tab).remove(QLatin1Char('&')), dark, size));
}

void ScreenshotTour::capture(int tab, const QString& name)
{
    m_window->tabs()->setCurrentIndex(tab);
    settle(100);
    // The topology is framed for the size it is shown at, as Fit (Ctrl+0) would.
    if (auto* fit = m_window->findChild<QAction*>(QStringLiteral("fitAction")); fit && fit->isEnabled()) {
        fit->trigger();
        settle(20);
    }
    const QString path = QDir(m_dir).filePath(name);
    if (m_window->grab().save(path))
        m_saved << path;
    else
        m_failedSaves << name;
}

} // namespace coh::ui
