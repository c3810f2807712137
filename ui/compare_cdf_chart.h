#pragma once
// Overlaid CDFs of one latency, one curve per compared run, on round ticks in ms (or s for long latencies), with
// the exact fraction and latency under the mouse.
#include <QString>
#include <QStringList>

#include <vector>

class QWidget;

namespace coh::ui {

class ChartView;

// `values[i]` are run i's latencies in ms, named `names[i]`.
ChartView* makeCompareCdfChart(const QString& title, const QString& metric, const QStringList& names,
                               const std::vector<std::vector<double>>& values, QWidget* parent);

} // namespace coh::ui
