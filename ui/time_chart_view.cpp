#include "ui/time_chart_view.h"

#include <QAreaSeries>
#include <QLegendMarker>
#include <QLineSeries>
#include <QMouseEvent>
#include <QValueAxis>

#include <cmath>

namespace coh::ui {

TimeChartView::TimeChartView(const QString& title, const QString& yTitle, QWidget* parent)
    : QChartView(parent)
{
    auto* chart = new QChart();
    chart->setTitle(title);
    chart->legend()->setAlignment(Qt::AlignBottom);
    setChart(chart); // the view owns it
    setRenderHint(QPainter::Antialiasing);
    setMinimumHeight(240);

    m_axisX = new QValueAxis(chart);
    m_axisX->setTitleText(tr("simulated time (s)"));
    m_axisX->setLabelFormat(QStringLiteral("%.3g"));
    m_axisY = new QValueAxis(chart);
    m_axisY->setTitleText(yTitle);
    m_axisY->setLabelFormat(QStringLiteral("%.3g"));
    chart->addAxis(m_axisX, Qt::AlignBottom);
    chart->addAxis(m_axisY, Qt::AlignLeft);

    m_cursor = new QLineSeries(chart);
    m_cursor->setName(tr("replay time"));
    QPen pen(QColor(0x60, 0x60, 0x60), 1.5, Qt::DashLine);
    m_cursor->setPen(pen);
    chart->addSeries(m_cursor);
    m_cursor->attachAxis(m_axisX);
    m_cursor->attachAxis(m_axisY);
    for (QLegendMarker* marker : chart->legend()->markers(m_cursor))
        marker->setVisible(false);
    placeCursor();
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
    m_axisX->setRange(0, xMax > 0 ? xMax : 1);
    m_axisY->setRange(0, yMax > 0 ? yMax * 1.05 : 1);
    m_axisY->applyNiceNumbers(); // round tick labels (0, 50, 100) instead of 0, 35.3, 70.6; x stays the run
    placeCursor();
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
    if (event->button() == Qt::LeftButton) {
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
