#include "ui/screenshot_tour.h"

#include "ui/lab_model.h"
#include "ui/lab_widget.h"
#include "ui/main_window.h"
#include "ui/replay_widget.h"
#include "ui/run_controller.h"

#include <QApplication>
#include <QDir>
#include <QPixmap>
#include <QTabWidget>

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

int tabIndex(QTabWidget* tabs, const QString& title)
{
    for (int i = 0; i < tabs->count(); ++i)
        if (tabs->tabText(i).remove(QLatin1Char('&')) == title)
            return i;
    return -1;
}

} // namespace

ScreenshotTour::ScreenshotTour(MainWindow* window, const QString& outputDir, QObject* parent)
    : QObject(parent)
    , m_window(window)
    , m_dir(outputDir)
{
}

void ScreenshotTour::start()
{
    if (!QDir().mkpath(m_dir)) {
        emit finished(false, tr("cannot create the folder %1").arg(m_dir));
        return;
    }
    m_window->resize(1440, 900);
    capture(tabIndex(m_window->tabs(), tr("Start")), QStringLiteral("start.png"));
    capture(tabIndex(m_window->tabs(), tr("Topology")), QStringLiteral("topology.png"));
    RunController* runner = m_window->runController();
    connect(runner, &RunController::finished, this, [this] {
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
    QTabWidget* tabs = m_window->tabs();
    if (auto* replay = m_window->findChild<ReplayWidget*>(); replay && replay->run())
        replay->setTime(busiestInstant(*replay->run()));
    capture(tabIndex(tabs, tr("Replay")), QStringLiteral("replay.png"));
    capture(tabIndex(tabs, tr("Charts")), QStringLiteral("charts.png"));
    if (auto* lab = m_window->findChild<LabWidget*>()) {
        lab->openLesson(QStringLiteral("moesi-owned"));
        // Midway through the lesson, so the sequence chart has arrows and the table a highlighted change.
        lab->model()->setCurrentStep(lab->model()->stepCount() / 2);
    }
    capture(tabIndex(tabs, tr("Lab")), QStringLiteral("lab.png"));
    capture(tabIndex(tabs, tr("History")), QStringLiteral("history.png"));
    constexpr int kViews = 6; // start, topology, replay, charts, lab, history
    emit finished(m_saved.size() == kViews, m_saved.size() == kViews ? QString() : tr("a view was missing"));
}

void ScreenshotTour::capture(int tab, const QString& name)
{
    if (tab < 0)
        return;
    m_window->tabs()->setCurrentIndex(tab);
    // Let layouts, charts and the replay paint before grabbing.
    for (int i = 0; i < 5; ++i)
        QApplication::processEvents();
    const QString path = QDir(m_dir).filePath(name);
    if (m_window->grab().save(path))
        m_saved << path;
}

} // namespace coh::ui
