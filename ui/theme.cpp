#include "ui/theme.h"

#include <QAbstractAxis>
#include <QApplication>
#include <QAreaSeries>
#include <QChart>
#include <QLegend>
#include <QPointer>
#include <QScatterSeries>
#include <QWidget>

#include <algorithm>
#include <cmath>

namespace coh::ui {

namespace {

double linearChannel(double c)
{
    return c <= 0.04045 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4);
}

// The tone's hue, before it is made readable on the background.
QColor baseToneColor(Tone tone, const QPalette& palette)
{
    const bool dark = isDark(palette);
    switch (tone) {
    case Tone::Normal:
        return palette.color(QPalette::WindowText);
    case Tone::Muted:
        return blendOver(QColor::fromRgbF(palette.color(QPalette::WindowText).redF(),
                                          palette.color(QPalette::WindowText).greenF(),
                                          palette.color(QPalette::WindowText).blueF(), 0.7),
                         palette.color(QPalette::Window));
    case Tone::Error:
        return dark ? QColor(0xff, 0x6b, 0x6b) : QColor(0xb7, 0x1c, 0x1c);
    case Tone::Warning:
        return dark ? QColor(0xff, 0xb7, 0x4d) : QColor(0x8a, 0x55, 0x00);
    case Tone::Good:
        return dark ? QColor(0x6f, 0xd0, 0x7a) : QColor(0x1b, 0x6e, 0x2a);
    case Tone::Accent:
        return palette.color(QPalette::Link);
    }
    return palette.color(QPalette::WindowText);
}

} // namespace

double relativeLuminance(const QColor& c)
{
    return 0.2126 * linearChannel(c.redF()) + 0.7152 * linearChannel(c.greenF()) + 0.0722 * linearChannel(c.blueF());
}

double contrastRatio(const QColor& a, const QColor& b)
{
    const double la = relativeLuminance(a), lb = relativeLuminance(b);
    return (std::max(la, lb) + 0.05) / (std::min(la, lb) + 0.05);
}

QColor blendOver(const QColor& color, const QColor& background)
{
    const double a = color.alphaF();
    return QColor::fromRgbF(static_cast<float>(color.redF() * a + background.redF() * (1 - a)),
                            static_cast<float>(color.greenF() * a + background.greenF() * (1 - a)),
                            static_cast<float>(color.blueF() * a + background.blueF() * (1 - a)));
}

QColor readableOn(const QColor& color, const QColor& background, double minRatio)
{
    const QColor bg = background.alpha() == 255 ? background : blendOver(background, Qt::white);
    QColor c = blendOver(color, bg);
    if (contrastRatio(c, bg) >= minRatio)
        return c;
    // Walk the lightness away from the background's; black and white always end the walk.
    const bool darken = relativeLuminance(bg) > 0.18;
    float h = 0, s = 0, l = 0;
    c.getHslF(&h, &s, &l);
    for (int i = 0; i < 100 && contrastRatio(c, bg) < minRatio; ++i) {
        l = darken ? std::max(0.0f, l - 0.02f) : std::min(1.0f, l + 0.02f);
        c = QColor::fromHslF(h, s, l);
        if (l <= 0.0f || l >= 1.0f)
            break;
    }
    return c;
}

QColor textOn(const QColor& background)
{
    return contrastRatio(Qt::black, background) >= contrastRatio(Qt::white, background) ? QColor(Qt::black)
                                                                                        : QColor(Qt::white);
}

bool isDark(const QPalette& palette)
{
    return relativeLuminance(palette.color(QPalette::Window)) < 0.18;
}

QColor toneColor(Tone tone, const QPalette& palette)
{
    return toneColor(tone, palette, palette.color(QPalette::Window));
}

QColor toneColor(Tone tone, const QPalette& palette, const QColor& background)
{
    return readableOn(baseToneColor(tone, palette), background);
}

QColor toneFill(Tone tone, const QPalette& palette)
{
    const QColor base = palette.color(QPalette::Base);
    const QColor text = palette.color(QPalette::Text);
    QColor hue;
    switch (tone) {
    case Tone::Normal:
    case Tone::Muted:
        hue = palette.color(QPalette::AlternateBase);
        break;
    case Tone::Error:
        hue = QColor(0xe5, 0x39, 0x35);
        break;
    case Tone::Warning:
        hue = QColor(0xff, 0xb3, 0x00);
        break;
    case Tone::Good:
        hue = QColor(0x43, 0xa0, 0x47);
        break;
    case Tone::Accent:
        hue = palette.color(QPalette::Highlight);
        break;
    }
    // A tint of the hue over the base: strong enough to see, weak enough for the text to stay readable.
    for (double alpha = 0.35; alpha > 0.05; alpha -= 0.05) {
        QColor tint = hue;
        tint.setAlphaF(static_cast<float>(alpha));
        const QColor fill = blendOver(tint, base);
        if (contrastRatio(text, fill) >= 4.5)
            return fill;
    }
    return base;
}

void setTone(QWidget* widget, Tone tone)
{
    const auto apply = [](QWidget* w) {
        const auto t = static_cast<Tone>(w->property("cohTone").toInt());
        QPalette p = w->palette();
        const QPalette app = QApplication::palette(w);
        p.setColor(QPalette::WindowText, toneColor(t, app, app.color(QPalette::Window)));
        p.setColor(QPalette::Text, toneColor(t, app, app.color(QPalette::Base)));
        p.setColor(QPalette::ButtonText, toneColor(t, app, app.color(QPalette::Button)));
        w->setPalette(p);
    };
    const bool watched = widget->property("cohTone").isValid();
    widget->setProperty("cohTone", static_cast<int>(tone));
    apply(widget);
    if (!watched) {
        QObject::connect(ThemeWatcher::instance(), &ThemeWatcher::changed, widget, [widget, apply] { apply(widget); });
    }
}

namespace {

// The colour the chart's theme gave a series when it was added: the hue every palette's fill is made from.
QColor seriesHue(QAbstractSeries* series, const QColor& current)
{
    const QVariant hue = series->property("cohHue");
    if (hue.isValid())
        return hue.value<QColor>();
    series->setProperty("cohHue", current);
    return current;
}

// Qt's theme rings points and edges areas in white: on the dark palette points read as white circles, on the
// light one the pale fills shrink to dots. The fill keeps the series' hue at 3:1 against the base (WCAG's figure
// for graphics); a point has no outline, an area's edge is its own fill.
void styleMarks(QChart* chart, const QColor& base)
{
    const auto all = chart->series();
    for (QAbstractSeries* series : all) {
        if (auto* points = qobject_cast<QScatterSeries*>(series)) {
            points->setColor(readableOn(seriesHue(points, points->color()), base, 3.0));
            points->setPen(Qt::NoPen);
        } else if (auto* area = qobject_cast<QAreaSeries*>(series)) {
            const QColor fill = readableOn(seriesHue(area, area->color()), base, 3.0);
            area->setBrush(fill);
            area->setPen(QPen(fill, 1));
        }
    }
}

} // namespace

void styleChart(QChart* chart, const QPalette& palette)
{
    const QColor base = palette.color(QPalette::Base);
    const QColor text = palette.color(QPalette::Text);
    QColor grid = text;
    grid.setAlphaF(0.18f);
    QColor line = text;
    line.setAlphaF(0.5f);
    chart->setBackgroundBrush(base);
    chart->setBackgroundPen(Qt::NoPen);
    chart->setPlotAreaBackgroundVisible(false);
    chart->setTitleBrush(text);
    chart->legend()->setLabelColor(text);
    chart->legend()->setBrush(Qt::NoBrush);
    chart->legend()->setPen(Qt::NoPen);
    const auto axes = chart->axes();
    for (QAbstractAxis* axis : axes) {
        axis->setLabelsBrush(text);
        axis->setTitleBrush(text);
        axis->setLinePenColor(blendOver(line, base));
        axis->setGridLineColor(blendOver(grid, base));
        QColor minor = grid;
        minor.setAlphaF(0.08f);
        axis->setMinorGridLineColor(blendOver(minor, base));
        axis->setShadesVisible(false);
    }
    styleMarks(chart, base);
}

void keepChartStyled(QChart* chart)
{
    styleChart(chart, QApplication::palette());
    QObject::connect(ThemeWatcher::instance(), &ThemeWatcher::changed, chart,
                     [chart] { styleChart(chart, QApplication::palette()); });
}

ThemeWatcher* ThemeWatcher::instance()
{
    static QPointer<ThemeWatcher> watcher;
    if (!watcher)
        watcher = new ThemeWatcher(QCoreApplication::instance());
    return watcher;
}

ThemeWatcher::ThemeWatcher(QObject* parent)
    : QObject(parent)
{
}

} // namespace coh::ui
