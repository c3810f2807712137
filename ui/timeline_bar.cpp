#include "ui/timeline_bar.h"

#include "ui/theme.h"

#include <QCheckBox>
#include <QComboBox>
#include <QEvent>
#include <QHBoxLayout>
#include <QHelpEvent>
#include <QLabel>
#include <QPainter>
#include <QPainterPath>
#include <QSignalBlocker>
#include <QSlider>
#include <QStringList>
#include <QStyleOptionSlider>
#include <QToolButton>
#include <QToolTip>

#include <algorithm>
#include <cmath>

namespace coh::ui {
namespace {

// Powers of ten of simulated seconds per wall second. Below 0.1x because coherence messages last micro-
// seconds: at 1e-6x one microsecond of simulated time takes a second to watch.
constexpr int kMinSpeedExp = -6;
constexpr int kMaxSpeedExp = 3;
constexpr double kDefaultPlaySeconds = 60;

enum class Glyph { Play, Pause, StepBack, StepForward, ToStart, ToEnd };

// A transport glyph on a 16-unit grid, filled with `colour`.
QPixmap glyphPixmap(Glyph glyph, const QColor& colour, qreal dpr)
{
    QPixmap pixmap(QSize(16, 16) * dpr);
    pixmap.setDevicePixelRatio(dpr);
    pixmap.fill(Qt::transparent);
    QPainter p(&pixmap);
    p.setRenderHint(QPainter::Antialiasing);
    p.setPen(Qt::NoPen);
    p.setBrush(colour);
    const auto triangle = [&](double x0, double x1) { // points from x0 towards x1
        QPainterPath path;
        path.moveTo(x0, 3);
        path.lineTo(x1, 8);
        path.lineTo(x0, 13);
        path.closeSubpath();
        p.drawPath(path);
    };
    switch (glyph) {
    case Glyph::Play:
        triangle(4, 13);
        break;
    case Glyph::Pause:
        p.drawRect(QRectF(4, 3, 3, 10));
        p.drawRect(QRectF(9, 3, 3, 10));
        break;
    case Glyph::StepBack:
        triangle(8, 1);
        triangle(15, 8);
        break;
    case Glyph::StepForward:
        triangle(1, 8);
        triangle(8, 15);
        break;
    case Glyph::ToStart:
        p.drawRect(QRectF(2, 3, 2, 10));
        triangle(13, 5);
        break;
    case Glyph::ToEnd:
        triangle(3, 11);
        p.drawRect(QRectF(12, 3, 2, 10));
        break;
    }
    return pixmap;
}

QIcon glyphIcon(Glyph glyph, const QPalette& palette, qreal dpr)
{
    QIcon icon;
    icon.addPixmap(glyphPixmap(glyph, palette.color(QPalette::Active, QPalette::ButtonText), dpr), QIcon::Normal);
    icon.addPixmap(glyphPixmap(glyph, palette.color(QPalette::Disabled, QPalette::ButtonText), dpr), QIcon::Disabled);
    return icon;
}

// The scrubber: a plain slider until the bar has bands, then its groove, the bands over it and its handle on top.
class ScrubberSlider : public QSlider {
  public:
    explicit ScrubberSlider(TimelineBar* bar)
        : QSlider(Qt::Horizontal, bar)
        , m_bar(bar)
    {
    }

  protected:
    void paintEvent(QPaintEvent* event) override
    {
        if (m_bar->bands().empty()) {
            QSlider::paintEvent(event);
            return;
        }
        QPainter p(this);
        QStyleOptionSlider option;
        initStyleOption(&option);
        option.subControls = QStyle::SC_SliderGroove;
        style()->drawComplexControl(QStyle::CC_Slider, &option, &p, this);
        const QColor error = toneColor(Tone::Error, palette(), palette().color(QPalette::Window));
        QColor tint = error;
        tint.setAlphaF(0.45f);
        p.setPen(Qt::NoPen);
        for (std::size_t i = 0; i < m_bar->bands().size(); ++i) {
            const QRect r = m_bar->bandRect(i);
            p.fillRect(r, tint);
            p.fillRect(QRect(r.left(), r.top(), 2, r.height()), error); // the failure itself
            if (const qint64 tick = m_bar->bands()[i].tick; tick >= 0 && tick <= m_bar->end())
                p.fillRect(QRect(m_bar->sliderX(tick), r.top(), 1, r.height()), error);
        }
        option.subControls = QStyle::SC_SliderHandle;
        style()->drawComplexControl(QStyle::CC_Slider, &option, &p, this);
    }

    bool event(QEvent* event) override
    {
        if (event->type() == QEvent::ToolTip) {
            auto* help = static_cast<QHelpEvent*>(event);
            const QString text = m_bar->bandToolTipAt(help->pos());
            if (text.isEmpty())
                QToolTip::hideText();
            else
                QToolTip::showText(help->globalPos(), text, this);
            return true;
        }
        return QSlider::event(event);
    }

  private:
    TimelineBar* m_bar;
};

} // namespace

TimelineBar::TimelineBar(QWidget* parent)
    : QWidget(parent)
{
    m_toStart = new QToolButton(this);
    m_toStart->setToolTip(tr("Go to the start (Home)"));
    m_stepBack = new QToolButton(this);
    m_stepBack->setToolTip(tr("Step back to the previous message start"));
    m_play = new QToolButton(this);
    m_play->setToolTip(tr("Play / pause (Space)"));
    m_stepForward = new QToolButton(this);
    m_stepForward->setToolTip(tr("Step forward to the next message start"));
    m_toEnd = new QToolButton(this);
    m_toEnd->setToolTip(tr("Go to the end (End)"));
    // Clicks only: Space then stays the tab's play/pause wherever the keyboard focus is.
    for (QToolButton* button : {m_toStart, m_stepBack, m_play, m_stepForward, m_toEnd})
        button->setFocusPolicy(Qt::NoFocus);

    m_speed = new QComboBox(this);
    // The run's own speed ("… (busiest)") joins the list after the first show: the box grows to fit it.
    m_speed->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_speed->setToolTip(tr("Playback speed: how much simulated time one second of playing shows"));
    for (int e = kMinSpeedExp; e <= kMaxSpeedExp; ++e) {
        const double s = std::pow(10.0, e);
        m_speed->addItem(formatSpeed(s), s);
    }
    m_speed->setCurrentIndex(-kMinSpeedExp); // 1x

    m_skipIdle = new QCheckBox(tr("Skip idle"), this);
    m_skipIdle->setToolTip(tr("While playing, jump to the next message when nothing is in flight"));
    m_skipIdle->setChecked(true);

    m_slider = new ScrubberSlider(this);
    m_slider->setRange(0, 0);
    m_slider->setPageStep(kSliderSteps / 100);
    m_label = new QLabel(this);
    m_label->setMinimumWidth(m_label->fontMetrics().horizontalAdvance(QStringLiteral("000.000 ms / 000.000 ms")));

    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(4, 2, 4, 2);
    layout->addWidget(m_toStart);
    layout->addWidget(m_stepBack);
    layout->addWidget(m_play);
    layout->addWidget(m_stepForward);
    layout->addWidget(m_toEnd);
    layout->addWidget(m_speed);
    layout->addWidget(m_skipIdle);
    layout->addWidget(m_slider, 1);
    layout->addWidget(m_label);

    m_timer.setInterval(16); // ~60 Hz
    connect(&m_timer, &QTimer::timeout, this, &TimelineBar::tick);
    connect(m_play, &QToolButton::clicked, this, &TimelineBar::togglePlay);
    connect(m_stepForward, &QToolButton::clicked, this, [this] { emit stepRequested(+1); });
    connect(m_stepBack, &QToolButton::clicked, this, [this] { emit stepRequested(-1); });
    connect(m_toStart, &QToolButton::clicked, this, &TimelineBar::goToStart);
    connect(m_toEnd, &QToolButton::clicked, this, &TimelineBar::goToEnd);
    connect(m_slider, &QSlider::valueChanged, this, [this](int value) { emit seekRequested(sliderToTime(value)); });
    updateLabel();
    updateIcons();
}

void TimelineBar::changeEvent(QEvent* event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange || event->type() == QEvent::ApplicationPaletteChange)
        updateIcons();
}

void TimelineBar::updateIcons()
{
    const QPalette p = palette();
    const qreal dpr = devicePixelRatioF();
    m_toStart->setIcon(glyphIcon(Glyph::ToStart, p, dpr));
    m_stepBack->setIcon(glyphIcon(Glyph::StepBack, p, dpr));
    m_play->setIcon(glyphIcon(isPlaying() ? Glyph::Pause : Glyph::Play, p, dpr));
    m_stepForward->setIcon(glyphIcon(Glyph::StepForward, p, dpr));
    m_toEnd->setIcon(glyphIcon(Glyph::ToEnd, p, dpr));
}

void TimelineBar::goToStart()
{
    emit seekRequested(0);
}

void TimelineBar::goToEnd()
{
    pause();
    emit seekRequested(m_end);
}

void TimelineBar::setRange(qint64 end)
{
    pause();
    m_end = std::max<qint64>(0, end);
    {
        const QSignalBlocker block(m_slider);
        // Short runs get one nanosecond per step; long ones kSliderSteps steps over the whole run.
        m_slider->setRange(0, static_cast<int>(std::min<qint64>(m_end, kSliderSteps)));
        m_slider->setPageStep(std::max(1, m_slider->maximum() / 100));
    }
    if (m_end > 0)
        setSpeed(static_cast<double>(m_end) * 1e-9 / kDefaultPlaySeconds);
    setTime(0);
}

void TimelineBar::setTime(qint64 t)
{
    m_time = std::clamp<qint64>(t, 0, m_end);
    // A seek from outside (scrubbing while playing) moves the play head; our own ticks keep their fraction.
    if (static_cast<qint64>(m_playTime) != m_time)
        m_playTime = static_cast<double>(m_time);
    const QSignalBlocker block(m_slider);
    m_slider->setValue(timeToSlider(m_time));
    updateLabel();
}

double TimelineBar::speed() const
{
    return m_speed->currentData().toDouble();
}

void TimelineBar::setSpeed(double simSecondsPerSecond, const QString& why, const QString& whyTip)
{
    const double s = std::clamp(simSecondsPerSecond, 1e-12, std::pow(10.0, kMaxSpeedExp));
    if (m_customSpeed >= 0) {
        m_speed->removeItem(m_customSpeed);
        m_customSpeed = -1;
    }
    for (int i = 0; i < m_speed->count(); ++i) {
        if (std::abs(m_speed->itemData(i).toDouble() - s) <= 1e-9 * s) {
            m_speed->setCurrentIndex(i);
            return;
        }
    }
    // Off the list: a new entry in its place among the powers of ten.
    int at = 0;
    while (at < m_speed->count() && m_speed->itemData(at).toDouble() < s)
        ++at;
    const QString text = formatSpeed(s);
    m_speed->insertItem(at, why.isEmpty() ? text : tr("%1 (%2)").arg(text, why), s);
    m_speed->setItemData(at, whyTip.isEmpty() ? why : whyTip, Qt::ToolTipRole);
    m_customSpeed = at;
    m_speed->setCurrentIndex(at);
}

void TimelineBar::setBands(std::vector<Band> bands)
{
    m_bands = std::move(bands);
    m_slider->update();
}

int TimelineBar::sliderX(qint64 t) const
{
    QStyleOptionSlider option;
    option.initFrom(m_slider);
    option.orientation = Qt::Horizontal;
    option.minimum = m_slider->minimum();
    option.maximum = m_slider->maximum();
    option.sliderPosition = option.sliderValue = m_slider->value();
    const QStyle* style = m_slider->style();
    const QRect groove = style->subControlRect(QStyle::CC_Slider, &option, QStyle::SC_SliderGroove, m_slider);
    const QRect handle = style->subControlRect(QStyle::CC_Slider, &option, QStyle::SC_SliderHandle, m_slider);
    // As QSlider maps a value to its handle: the handle's left edge moves over the groove less its own length.
    const int span = std::max(0, groove.width() - handle.width());
    const int value = std::clamp(timeToSlider(std::clamp<qint64>(t, 0, m_end)), option.minimum, option.maximum);
    return groove.x() + QStyle::sliderPositionFromValue(option.minimum, option.maximum, value, span) +
           handle.width() / 2;
}

QRect TimelineBar::bandRect(std::size_t i) const
{
    if (i >= m_bands.size() || m_end <= 0)
        return {};
    const Band& band = m_bands[i];
    const int left = sliderX(band.from);
    const int right = std::max(left + 3, sliderX(band.to));
    // Taller than the groove and drawn under the handle: it reads as a stretch of the track.
    const int height = std::min(m_slider->height() - 2, 12);
    return {left, (m_slider->height() - height) / 2, right - left, height};
}

QString TimelineBar::bandToolTipAt(QPoint sliderPos) const
{
    QStringList tips;
    for (std::size_t i = 0; i < m_bands.size(); ++i) {
        const QRect r = bandRect(i);
        if (sliderPos.x() >= r.left() - 1 && sliderPos.x() <= r.right() + 1)
            tips << m_bands[i].toolTip;
    }
    return tips.join(QStringLiteral("\n\n"));
}

bool TimelineBar::skipIdle() const
{
    return m_skipIdle->isChecked();
}

void TimelineBar::play()
{
    if (isPlaying() || m_end <= 0)
        return;
    if (m_time >= m_end)
        emit seekRequested(0);
    m_playTime = static_cast<double>(m_time);
    m_wall.start();
    m_timer.start();
    updateIcons();
    emit playingChanged(true);
}

void TimelineBar::pause()
{
    if (!isPlaying())
        return;
    m_timer.stop();
    updateIcons();
    emit playingChanged(false);
}

void TimelineBar::togglePlay()
{
    if (isPlaying())
        pause();
    else
        play();
}

void TimelineBar::tick()
{
    // Wall time actually elapsed, so a slow frame does not slow the replay down.
    const double wallSeconds = static_cast<double>(m_wall.nsecsElapsed()) * 1e-9;
    m_wall.restart();
    m_playTime = std::min(static_cast<double>(m_end), m_playTime + wallSeconds * speed() * 1e9);
    const auto next = static_cast<qint64>(m_playTime);
    if (next != m_time)
        emit seekRequested(next);
    if (next >= m_end)
        pause();
}

qint64 TimelineBar::sliderToTime(int value) const
{
    const int max = m_slider->maximum();
    if (max <= 0)
        return 0;
    return static_cast<qint64>(std::llround(static_cast<double>(value) * static_cast<double>(m_end) / max));
}

int TimelineBar::timeToSlider(qint64 t) const
{
    const int max = m_slider->maximum();
    if (m_end <= 0)
        return 0;
    return static_cast<int>(std::llround(static_cast<double>(t) * max / static_cast<double>(m_end)));
}

void TimelineBar::updateLabel()
{
    m_label->setText(QStringLiteral("%1 / %2").arg(formatTime(m_time), formatTime(m_end)));
}

QString TimelineBar::formatTime(qint64 ns)
{
    const double v = static_cast<double>(ns);
    const double a = std::abs(v);
    if (a < 1e3)
        return tr("%1 ns").arg(ns);
    if (a < 1e6)
        return tr("%1 µs").arg(v / 1e3, 0, 'f', 3);
    if (a < 1e9)
        return tr("%1 ms").arg(v / 1e6, 0, 'f', 3);
    return tr("%1 s").arg(v / 1e9, 0, 'f', 3);
}

QString TimelineBar::formatSpeed(double simSecondsPerSecond)
{
    // Rounded to two significant digits first, so the unit is chosen for the number shown (999.7 µs reads 1 ms).
    double ns = simSecondsPerSecond * 1e9;
    if (ns > 0) {
        const double step = std::pow(10.0, std::floor(std::log10(ns)) - 1);
        ns = std::round(ns / step) * step;
    }
    struct Unit {
        double ns;
        const char* name;
    };
    static constexpr Unit kUnits[] = {{1e9, "s"}, {1e6, "ms"}, {1e3, "µs"}, {1, "ns"}};
    const Unit* unit = &kUnits[3];
    for (const Unit& u : kUnits) {
        if (ns >= u.ns * (1 - 1e-9)) {
            unit = &u;
            break;
        }
    }
    const double value = ns / unit->ns;
    // Two significant digits: 9.8, 12, 330; a sub-nanosecond speed keeps its digits after the point.
    const int decimals = value >= 10 ? 0 : std::clamp(1 - static_cast<int>(std::floor(std::log10(value))), 0, 12);
    QString number = QString::number(value, 'f', value > 0 ? decimals : 0);
    if (number.contains(QLatin1Char('.'))) {
        while (number.endsWith(QLatin1Char('0')))
            number.chop(1);
        if (number.endsWith(QLatin1Char('.')))
            number.chop(1);
    }
    return tr("1 s shows %1 %2").arg(number, QString::fromUtf8(unit->name));
}

} // namespace coh::ui
