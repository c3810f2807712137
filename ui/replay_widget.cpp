#include "ui/replay_widget.h"

#include "ui/qt_text.h"
#include "ui/replay_canvas.h"
#include "ui/replay_inspector.h"
#include "ui/replay_legend.h"
#include "ui/replay_model.h"
#include "ui/replay_tooltips.h"
#include "ui/timeline_bar.h"

#include <QFileInfo>
#include <QLabel>
#include <QRegularExpression>
#include <QShortcut>
#include <QSplitter>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>

namespace coh::ui {
namespace {

// Whether a run's name already says its protocol as a word of its own: the default name ("default ·
// msi-directory") does, so the header does not say it twice; a renamed run ("first try") does not.
bool nameCarries(const QString& name, const QString& protocol)
{
    const QRegularExpression word(QStringLiteral("(?<![\\w-])%1(?![\\w-])").arg(QRegularExpression::escape(protocol)),
                                  QRegularExpression::CaseInsensitiveOption);
    return word.match(name).hasMatch();
}

} // namespace

ReplayWidget::ReplayWidget(QWidget* parent)
    : QWidget(parent)
{
    m_header = new QLabel(this);
    m_header->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_header->setWordWrap(true);
    QFont bold = m_header->font();
    bold.setBold(true);
    m_header->setFont(bold);
    m_canvas = new ReplayCanvas(this);
    m_inspector = new ReplayInspector(this);
    m_timeline = new TimelineBar(this);
    m_legend = new ReplayLegend(this);
    m_status = new QLabel(this);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_status->setWordWrap(true);

    // The inspector beside the canvas; either can be dragged shut in a small window.
    m_split = new QSplitter(Qt::Horizontal, this);
    m_split->addWidget(m_canvas);
    m_split->addWidget(m_inspector);
    m_split->setStretchFactor(0, 3);
    m_split->setStretchFactor(1, 2);
    m_split->setCollapsible(0, false);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    layout->addWidget(m_header);
    layout->addWidget(m_split, 1);
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
    connect(m_canvas, &ReplayCanvas::messageClicked, this, &ReplayWidget::selectMessage);
    connect(m_inspector, &ReplayInspector::messageActivated, this, [this](int message) {
        // A row picked in the list: the canvas shows the moment it starts.
        selectMessage(message);
        if (m_model && message >= 0)
            setTime(m_model->run()->messages[static_cast<std::size_t>(message)].start);
    });
    connect(m_legend, &ReplayLegend::hiddenRolesChanged, this, &ReplayWidget::applyHiddenRoles);

    // The tab's keys work wherever the focus is inside it; text fields keep Space, Home and End for editing
    // (they claim them through ShortcutOverride).
    const auto shortcut = [this](QKeySequence key, auto slot) {
        auto* s = new QShortcut(key, this, nullptr, nullptr, Qt::WidgetWithChildrenShortcut);
        connect(s, &QShortcut::activated, this, slot);
    };
    shortcut(QKeySequence(Qt::Key_Space), [this] { m_timeline->togglePlay(); });
    shortcut(QKeySequence(Qt::Key_Home), [this] { m_timeline->goToStart(); });
    shortcut(QKeySequence(Qt::Key_End), [this] { m_timeline->goToEnd(); });

    // Frames per second are sampled once a second from the canvas's frame count: no per-frame signal.
    m_fpsTimer.setInterval(1000);
    connect(&m_fpsTimer, &QTimer::timeout, this, &ReplayWidget::sampleFps);
    m_fpsTimer.start();
    m_fpsClock.start();
    setRun(std::shared_ptr<const ReplayModel>());
}

ReplayWidget::~ReplayWidget() = default;

void ReplayWidget::setRun(std::shared_ptr<const core::RunResult> run, const nlohmann::ordered_json& scenarioJson,
                          const ReplayRunLabel& label)
{
    setRun(run ? std::make_shared<const ReplayModel>(std::move(run), scenarioJson) : nullptr, label);
}

void ReplayWidget::loadRun(std::shared_ptr<const core::RunResult> run, const nlohmann::ordered_json& scenarioJson,
                           const ReplayRunLabel& label)
{
    if (!run) {
        setRun(std::shared_ptr<const ReplayModel>(), label);
        return;
    }
    const quint64 generation = ++m_generation;
    m_loading = true;
    updateStatus();
    // The run is shared read-only and the scenario copied in: the worker touches nothing the GUI thread owns.
    // Qt runs a continuation at once, inside then(), when the job is already done as it attaches: the swap is
    // queued so loadRun() always returns with the previous run on show, however fast the build.
    QtConcurrent::run([run = std::move(run), scenarioJson] {
        return std::make_shared<const ReplayModel>(run, scenarioJson);
    }).then(this, [this, generation, label](std::shared_ptr<const ReplayModel> model) {
        QMetaObject::invokeMethod(
            this,
            [this, generation, label, model = std::move(model)]() mutable {
                if (generation == m_generation)
                    setRun(std::move(model), label);
            },
            Qt::QueuedConnection);
    });
}

void ReplayWidget::setRun(std::shared_ptr<const ReplayModel> model, const ReplayRunLabel& label)
{
    ++m_generation;
    m_loading = false;
    m_model = model && !model->isEmpty() ? std::move(model) : nullptr;
    m_run = m_model ? m_model->runPtr() : nullptr;
    m_selected = -1;
    m_canvas->setModel(m_model);
    m_inspector->setModel(m_model);
    m_timeline->setRange(m_model ? m_model->endTime() : 0);
    // Messages last microseconds in runs that last seconds: the default speed lets the busiest moment's
    // messages be seen moving, and "skip idle" jumps the gaps between bursts.
    if (m_model && m_model->defaultSpeed() > 0)
        m_timeline->setSpeed(m_model->defaultSpeed(), tr("busiest"),
                             tr("The run's busiest stretch: at this speed its typical message takes %1 s to cross")
                                 .arg(ReplayModel::kBusiestSeconds));
    // Each failure a band on the scrubber, from the failure to the repair (or the end), ticked at detection.
    std::vector<TimelineBar::Band> bands;
    if (m_model)
        for (const ReplayModel::Failure& f : m_model->failures())
            bands.push_back(
                {f.failed, f.repaired >= 0 ? f.repaired : m_model->endTime(), f.detected, failureToolTip(*m_model, f)});
    m_timeline->setBands(std::move(bands));
    m_legend->setSummary(m_model ? m_model->run()->summary : core::RunSummary{});
    m_legend->setStates(m_model ? m_model->heldStates() : std::vector<const core::coherence::StateInfo*>{});

    QStringList header;
    if (m_model) {
        const core::RunResult& r = *m_model->run();
        header << (label.id > 0 ? tr("Run #%1").arg(label.id) : tr("Unsaved run"));
        if (!label.name.isEmpty())
            header << label.name;
        const QString protocol = toQString(r.summary.protocol);
        if (!nameCarries(label.name, protocol))
            header << (protocol == QStringLiteral("direct") ? tr("plain copy, no protocol") : protocol);
        header << (label.scenarioFile.isEmpty() ? tr("scenario “%1”").arg(toQString(r.scenarioName))
                                                : QFileInfo(label.scenarioFile).fileName());
    }
    m_header->setText(m_model ? header.join(QStringLiteral(" · "))
                              : tr("No run: run a scenario (F5) or open one "
                                   "from History"));
    m_header->setToolTip(label.scenarioFile);
    m_time = -1; // force the signal for t = 0 of the new run
    setTime(0);
    emit runShown();
}

QString ReplayWidget::headerText() const
{
    return m_header->text();
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

void ReplayWidget::selectMessage(int message)
{
    if (!m_model || message < 0 || static_cast<std::size_t>(message) >= m_model->run()->messages.size())
        message = -1;
    m_selected = message;
    m_canvas->setSelectedMessage(message);
    m_inspector->selectMessage(message);
}

void ReplayWidget::applyHiddenRoles()
{
    const auto hidden = m_legend->hiddenRoles();
    m_canvas->setHiddenRoles(hidden);
    m_inspector->setHiddenRoles(hidden);
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
    const QString preparing = m_loading ? tr("Preparing the next run for replay…") : QString();
    if (!m_model) {
        m_status->setText(m_loading ? preparing : tr("No run loaded"));
        return;
    }
    const core::RunResult& run = *m_model->run();
    QString sampled;
    // The record holds one entry per flow (a message about a group of blocks), up to record.max_messages.
    if (run.summary.flows > run.messages.size())
        sampled = tr(" (record holds %1 of %2 flows)").arg(run.messages.size()).arg(run.summary.flows);
    // Nodes and links down at t: the canvas shows them, the status line names them.
    QStringList down;
    for (std::uint32_t n = 0; n < m_model->scene().nodes.size(); ++n)
        if (m_model->nodeDown(n, m_time))
            down << m_model->scene().nodes[n].id;
    for (std::size_t l = 0; l < m_model->scene().links.size(); ++l)
        if (m_model->linkFailureAt(static_cast<int>(l), m_time))
            down << m_model->scene().links[l].id;
    m_status->setText(tr("t = %1   in flight: %2 messages%3%4   %5 fps%6")
                          .arg(TimelineBar::formatTime(m_time))
                          .arg(inFlightCount())
                          .arg(sampled)
                          .arg(down.isEmpty() ? QString() : tr("   down: %1").arg(down.join(QStringLiteral(", "))))
                          .arg(m_fps, 0, 'f', 1)
                          .arg(m_loading ? QStringLiteral("   ") + preparing : QString()));
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
