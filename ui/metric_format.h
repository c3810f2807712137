#pragma once
// How the Compare view writes a metric's value and its difference: units, grouped thousands, decimal prefixes
// for bytes, and as many decimals as a magnitude needs.
#include "core/compare/run_comparison.h"

#include <QString>

namespace coh::ui {

// "38.82 ms", "112,836", "117.7 GB", "99.5%", "6,149 tok/s".
QString formatMetric(double value, core::MetricUnit unit);
// "+5.28 ms (+14%)", "−0.41 ms (−3.2%)", "−12,000 (−92%)", "+1,000 (none before)" when the first run had none.
// `tenths`: the share to a tenth of a percent however large, where it is judged against a goal (the simulator's
// ±10%: "+10.4%" is beyond it, and "+10%" would not say so); else whole percents from 10% up.
QString formatDelta(double delta, double relative, core::MetricUnit unit, bool tenths = false);

} // namespace coh::ui
