#include "ui/time_chart_view.h"

#include "ui/theme.h"

#include <QAreaSeries>
#include <QLegendMarker>
#include <QLineSeries>
#include <QMouseEvent>
#include <QValueAxis>

#include <cmath>

namespace coh::ui {

TimeChartView::TimeChartView(const QString& title, const QString& yTitle, QWidget* parent)
    : ChartView(title, parent)
{
    setMinimumHeight(240);
    QChart* chart = this->chart();
    m_axisX = new QValueAxis(chart);
    m_axisX->setTitleText(tr("simulated time (s)"));
    m_axisY = new QValueAxis(chart);
    m_axisY->setTitleText(yTitle);
    chart->addAxis(m_axisX, Qt::AlignBottom);
    chart->addAxis(m_axisY, Qt::AlignLeft);

    m_cursor = new QLineSeries(chart);
    m_cursor->setName(tr("replay time"));
    chart->addSeries(m_cursor);
    m_cursor->attachAxis(m_axisX);
    m_cursor->attachAxis(m_axisY);
    // The cursor is not data: no legend entry, also after an empty state showed the series again.
    const auto hideMarker = [this] {
        for (QLegendMarker* marker : this->chart()->legend()->markers(m_cursor))
            marker->setVisible(false);
    };
    hideMarker();
    connect(m_cursor, &QAbstractSeries::visibleChanged, this, hideMarker);
    colorCursor();
    connect(ThemeWatcher::instance(), &ThemeWatcher::changed, this, &TimeChartView::colorCursor);
    setRanges(0, 0);
    restyle();
}

void TimeChartView::colorCursor()
{
    // The palette's text, half-way to the background: visible on light and dark, quieter than the data.
    QColor color = palette().color(QPalette::Text);
    color.setAlphaF(0.6f);
    m_cursor->setPen(QPen(blendOver(color, palette().color(QPalette::Base)), 1.5, Qt::DashLine));
}

void TimeChartView::addData(QAbstractSeries* series)
{
    chart()->addSeries(series);
    series->attachAxis(m_axisX);
    series->attachAxis(m_axisY);
}

void TimeChartView::clearData()
{
    const auto all = chart()->series();
    for (QAbstractSeries* series : all) {
        if (series == m_cursor)
            continue;
        chart()->removeSeries(series);
        delete series;
    }
}

void TimeChartView::setRanges(double xMax, double yMax)
{
    setNiceRange(m_axisX, 0, xMax > 0 ? xMax : 1);
    setNiceRange(m_axisY, 0, yMax > 0 ? yMax : 1);
    placeCursor();
}

void TimeChartView::setYTitle(const QString& title)
{
    m_axisY->setTitleText(title);
}

void TimeChartView::setCursorTime(qint64 ns)
{
    m_cursorTime = ns;
    placeCursor();
}

void TimeChartView::placeCursor()
{
    const double x = static_cast<double>(m_cursorTime) * 1e-9;
    m_cursor->replace(QList<QPointF>{QPointF(x, m_axisY->min()), QPointF(x, m_axisY->max())});
}

qint64 TimeChartView::timeAt(QPointF viewportPos) const
{
    const QPointF inChart = chart()->mapFromScene(mapToScene(viewportPos.toPoint()));
    if (!chart()->plotArea().contains(inChart))
        return -1;
    const QPointF value = chart()->mapToValue(inChart, m_cursor);
    return std::max<qint64>(0, static_cast<qint64>(std::llround(value.x() * 1e9)));
}

void TimeChartView::mousePressEvent(QMouseEvent* event)
{
    if (event->button() == Qt::LeftButton && !isEmptyStateShown()) {
        const qint64 t = timeAt(event->position());
        if (t >= 0) {
            emit timeClicked(t);
            event->accept();
            return;
        }
    }
    QChartView::mousePressEvent(event);
}

} // namespace coh::ui
