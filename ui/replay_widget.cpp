#include "ui/replay_widget.h"

#include "ui/replay_canvas.h"
#include "ui/replay_legend.h"
#include "ui/replay_model.h"
#include "ui/timeline_bar.h"

#include <QLabel>
#include <QShortcut>
#include <QVBoxLayout>

#include <algorithm>

namespace coh::ui {

ReplayWidget::ReplayWidget(QWidget* parent)
    : QWidget(parent)
{
    m_canvas = new ReplayCanvas(this);
    m_timeline = new TimelineBar(this);
    m_legend = new ReplayLegend(this);
    m_status = new QLabel(this);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    layout->addWidget(m_canvas, 1);
    layout->addWidget(m_legend);
    layout->addWidget(m_timeline);
    layout->addWidget(m_status);

    connect(m_timeline, &TimelineBar::seekRequested, this, &ReplayWidget::seekFromTimeline);
    connect(m_timeline, &TimelineBar::stepRequested, this, [this](int direction) {
        if (direction > 0)
            stepForward();
        else
            stepBack();
    });
    auto* space = new QShortcut(QKeySequence(Qt::Key_Space), this, nullptr, nullptr, Qt::WidgetWithChildrenShortcut);
    connect(space, &QShortcut::activated, m_timeline, &TimelineBar::togglePlay);

    // Frames per second are sampled once a second from the canvas's frame count: no per-frame signal.
    m_fpsTimer.setInterval(1000);
    connect(&m_fpsTimer, &QTimer::timeout, this, &ReplayWidget::sampleFps);
    m_fpsTimer.start();
    m_fpsClock.start();
    updateStatus();
}

ReplayWidget::~ReplayWidget() = default;

void ReplayWidget::setRun(std::shared_ptr<const core::RunResult> run, const nlohmann::ordered_json& scenarioJson)
{
    m_run = run;
    m_model = run ? std::make_shared<const ReplayModel>(std::move(run), scenarioJson) : nullptr;
    m_canvas->setModel(m_model);
    m_timeline->setRange(m_model ? m_model->endTime() : 0);
    // Messages last microseconds in runs that last seconds: by default a typical message takes about a
    // second to cross the screen, and "skip idle" jumps the gaps between bursts.
    if (m_model && m_model->medianMessageDuration() > 0)
        m_timeline->setSpeed(static_cast<double>(m_model->medianMessageDuration()) * 1e-9);
    if (m_model)
        m_legend->setSummary(m_model->run()->summary);
    else
        m_legend->setSummary({});
    m_time = -1; // force the signal for t = 0 of the new run
    setTime(0);
}

int ReplayWidget::inFlightCount() const
{
    return m_model ? static_cast<int>(m_model->inFlightCount(m_time)) : 0;
}

void ReplayWidget::setTime(qint64 ns)
{
    const qint64 t = std::clamp<qint64>(ns, 0, m_model ? m_model->endTime() : 0);
    if (t == m_time)
        return;
    m_time = t;
    m_canvas->setTime(t);
    m_timeline->setTime(t);
    updateStatus();
    emit timeChanged(t);
}

void ReplayWidget::seekFromTimeline(qint64 ns)
{
    if (m_model && m_timeline->isPlaying() && m_timeline->skipIdle() && m_model->inFlightCount(ns) == 0) {
        const qint64 next = m_model->nextMessageStart(ns);
        if (next >= 0) {
            setTime(next);
            return;
        }
    }
    setTime(ns);
}

void ReplayWidget::stepForward()
{
    if (!m_model)
        return;
    const qint64 next = m_model->nextMessageStart(m_time);
    if (next >= 0)
        setTime(next);
}

void ReplayWidget::stepBack()
{
    if (!m_model)
        return;
    const qint64 previous = m_model->previousMessageStart(m_time);
    setTime(previous >= 0 ? previous : 0);
}

QString ReplayWidget::statusText() const
{
    return m_status->text();
}

void ReplayWidget::updateStatus()
{
    if (!m_model) {
        m_status->setText(tr("No run loaded"));
        return;
    }
    const core::RunResult& run = *m_model->run();
    QString sampled;
    if (run.messagesTotal > run.messages.size())
        sampled = tr(" (record holds %1 of %2 messages)").arg(run.messages.size()).arg(run.messagesTotal);
    m_status->setText(tr("t = %1   in flight: %2 messages%3   %4 fps")
                          .arg(TimelineBar::formatTime(m_time))
                          .arg(inFlightCount())
                          .arg(sampled)
                          .arg(m_fps, 0, 'f', 1));
}

void ReplayWidget::sampleFps()
{
    const quint64 frames = m_canvas->framesPainted();
    const double seconds = static_cast<double>(m_fpsClock.restart()) / 1000.0;
    m_fps = seconds > 0 ? static_cast<double>(frames - m_framesAtSample) / seconds : 0;
    m_framesAtSample = frames;
    updateStatus();
}

} // namespace coh::ui
