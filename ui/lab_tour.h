#pragma once
// The Lab's introductions: what the built-in walk-through of a protocol shows and how to drive the Lab, shown
// beside the chart when the walk-through (or free play) opens, so the learner never faces an unexplained chart.
#include <QString>

namespace coh::core::coherence {
struct Protocol;
} // namespace coh::core::coherence

namespace coh::ui {

// The walk-through of `protocol` with `caches` caches: `ops` (the tour's ops) run to `steps` steps.
QString tourIntroduction(const core::coherence::Protocol& protocol, int caches, const QString& ops, int steps);
// Free play on `protocol`: what the controls do.
QString playIntroduction(const core::coherence::Protocol& protocol);

} // namespace coh::ui
