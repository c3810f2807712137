#pragma once
// What the screenshot tour (ui/screenshot_tour.h) picks to show and how it pictures a second window: the run's
// busiest instant, a data message to select in the replay's inspector, the decode protocol to compare the run
// with, and a dialog drawn over the main window as the user sees it.
#include "core/engine/run_result.h"

#include <nlohmann/json.hpp>

#include <QPixmap>
#include <QString>

class QMainWindow;
class QMenu;
class QWidget;

namespace coh::ui {

class ReplayModel;

// The instant with the most messages in flight: a sweep over message starts and ends.
qint64 busiestInstant(const core::RunResult& run);

// A data message whose protocol step (the sender's transition) is known, in flight at `at` if one is, else the
// first such message of the run; -1 when the run has none.
int dataMessageWithStep(const ReplayModel& model, qint64 at);

// The decode protocol to compare the scenario's run with: lazy-causal, or msi-directory when the scenario
// already uses lazy-causal.
QString comparedDecodeProtocol(const nlohmann::ordered_json& scenario);

// `main` with `window` drawn centred over it, framed in the palette's shadow colour: a dialog or a second
// window as it appears over the app (a window manager's title bar aside). Both must be shown.
QPixmap grabOver(QWidget* main, QWidget* window);
// `main` with `menu` open under its menu bar item and `submenu` open beside the item that opens it, as a user sees them
// while choosing; neither needs to be shown.
QPixmap grabMenuOpen(QMainWindow* main, QMenu* menu, QMenu* submenu);

} // namespace coh::ui
