#pragma once
// Colours derived from the application palette, so every view reads in the light and the dark palette alike.
// Widgets never hard-code a text colour: they ask for a tone (error, good, ...) and get a colour whose WCAG
// contrast against the palette's background is at least 4.5:1, recomputed when the palette changes.

#include <QColor>
#include <QObject>
#include <QPalette>

class QChart;
class QLabel;
class QWidget;

namespace coh::ui {

// WCAG 2.x contrast ratio of two opaque colours, from 1 (same) to 21 (black on white).
double contrastRatio(const QColor& a, const QColor& b);
// WCAG relative luminance, 0 (black) to 1 (white).
double relativeLuminance(const QColor& c);
// `color` drawn over `background` (alpha blended), as the eye sees it.
QColor blendOver(const QColor& color, const QColor& background);
// `color` with its lightness moved (darker on a light background, lighter on a dark one) until its contrast
// against `background` reaches `minRatio`; the hue is kept.
QColor readableOn(const QColor& color, const QColor& background, double minRatio = 4.5);
// Black or white, whichever reads better on `background` (labels on coloured badges).
QColor textOn(const QColor& background);

bool isDark(const QPalette& palette);

// What a colour means, not which colour it is.
enum class Tone {
    Normal,  // the palette's text
    Muted,   // secondary text (descriptions, hints), still >= 4.5:1
    Error,   // problems, failures
    Warning, // caveats
    Good,    // the better value, passed checks
    Accent,  // links, emphasis
};

// The tone's text colour, readable on `background` (default: the palette's window colour).
QColor toneColor(Tone tone, const QPalette& palette);
QColor toneColor(Tone tone, const QPalette& palette, const QColor& background);
// A soft fill for a cell or row that carries the tone (changed cells, the best value), with the palette's text
// colour readable on it.
QColor toneFill(Tone tone, const QPalette& palette);

// Keeps a widget's text in a tone across palette changes (View → Dark Palette): sets the foreground role's
// colour now and again whenever the application palette changes.
void setTone(QWidget* widget, Tone tone);

// Applies the palette to a chart: background, plot area, title, legend, axes (labels, titles, grid), and scatter
// points and areas (a fill of the series' own hue at 3:1 against the base; no outline on points, an area's edge its
// own fill); line and bar colours are left alone. Call after the chart has its axes and series; ThemeWatcher
// re-applies it on palette changes.
void styleChart(QChart* chart, const QPalette& palette);
// styleChart now and on every palette change, for as long as `chart` lives.
void keepChartStyled(QChart* chart);

// Emits changed() after the application palette changes. One instance, owned by the application. The palette
// changes in one place, MainActions::applyPalette, which calls paletteApplied() once every window has the new
// palette: no application-wide event filter sits in the way of every event to notice it.
class ThemeWatcher : public QObject {
    Q_OBJECT
  public:
    static ThemeWatcher* instance();
    void paletteApplied() { emit changed(); }
  signals:
    void changed();

  private:
    explicit ThemeWatcher(QObject* parent);
};

} // namespace coh::ui
