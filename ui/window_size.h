#pragma once
// The size a dialog or a secondary window opens at: the size it reads best at where there is room, else nine tenths
// of the window it opens over and of the screen's free area, whichever is less, so a 1024x700 screen still shows
// it whole with room for its title bar. Compare and Help share this one rule.
#include <QSize>

class QWidget;

namespace coh::ui {

// `preferred` bounded by 0.9 x `window` and 0.9 x `screen` (rounded); an invalid size bounds nothing.
QSize fittedSize(const QSize& preferred, const QSize& window, const QSize& screen);

// fittedSize() for `widget` opening over its parent's window, on that window's screen (without a parent: its own
// screen alone).
QSize fittedSizeOver(const QWidget* widget, const QSize& preferred);

} // namespace coh::ui
