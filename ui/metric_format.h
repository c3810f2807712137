#pragma once
// How the Compare view writes a metric's value and its difference: units, grouped thousands, decimal prefixes
// for bytes, and as many decimals as a magnitude needs.
#include "core/compare/run_comparison.h"

#include <QString>

namespace coh::ui {

// "38.82 ms", "112,836", "117.7 GB", "99.5%", "6,149 tok/s".
QString formatMetric(double value, core::MetricUnit unit);
// "+5.28 ms (+13.6%)", "−12,000 (−92%)", "+1,000 (new)" when the first run had none.
QString formatDelta(double delta, double relative, core::MetricUnit unit);

} // namespace coh::ui
