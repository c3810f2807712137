#include "ui/compare_cdf_chart.h"

#include "ui/chart_builders.h"
#include "ui/chart_view.h"
#include "ui/nice_ticks.h"

#include <QCoreApplication>
#include <QLineSeries>
#include <QLocale>
#include <QValueAxis>

#include <algorithm>

namespace coh::ui {

namespace {

// At most this many points per curve: enough to look smooth, few enough to draw at once.
constexpr int kMaxCdfPoints = 400;

QString tr(const char* text)
{
    return QCoreApplication::translate("coh::ui::CompareCdfChart", text);
}

} // namespace

ChartView* makeCompareCdfChart(const QString& title, const QString& metric, const QStringList& names,
                               const std::vector<std::vector<double>>& values, QWidget* parent)
{
    auto* view = new ChartView(title, parent);
    view->setMinimumHeight(160);
    QChart* chart = view->chart();
    double largest = 0;
    bool any = false;
    for (const auto& run : values) {
        for (double v : run)
            largest = std::max(largest, v);
        any = any || !run.empty();
    }
    const ScaledUnit unit = timeUnitForMilliseconds(largest);
    auto* x = new QValueAxis(chart);
    x->setTitleText(QStringLiteral("%1 (%2)").arg(metric, unit.unit));
    setNiceRange(x, 0, largest > 0 ? largest / unit.divisor : 1);
    auto* y = new QValueAxis(chart);
    y->setTitleText(tr("fraction of requests"));
    setNiceRange(y, 0, 1);
    chart->addAxis(x, Qt::AlignBottom);
    chart->addAxis(y, Qt::AlignLeft);
    for (std::size_t i = 0; i < values.size(); ++i) {
        QList<QPointF> points = charts::cdf(values[i], kMaxCdfPoints);
        for (QPointF& p : points)
            p.setX(p.x() / unit.divisor);
        auto* series = new QLineSeries(chart);
        const QString name = i < static_cast<std::size_t>(names.size()) ? names[static_cast<qsizetype>(i)] : QString();
        series->setName(name);
        series->replace(charts::cdfSteps(points));
        chart->addSeries(series);
        series->attachAxis(x);
        series->attachAxis(y);
        view->hoverPoints(series, [name, points, unit](const QPointF& at) {
            const QPointF p = charts::nearestByX(points, at.x());
            return tr("%1: %2% of requests within %3 ms")
                .arg(name, QLocale().toString(100 * p.y(), 'f', 1), QLocale().toString(p.x() * unit.divisor, 'f', 3));
        });
    }
    view->restyle();
    view->setEmptyText(any ? QString() : tr("No request of these runs has this latency."));
    return view;
}

} // namespace coh::ui
