#include "ui/chart_view.h"

#include "ui/nice_ticks.h"
#include "ui/theme.h"

#include <QAbstractAxis>
#include <QApplication>
#include <QAreaSeries>
#include <QBarSet>
#include <QCursor>
#include <QLabel>
#include <QLegend>
#include <QToolTip>
#include <QValueAxis>
#include <QXYSeries>

namespace coh::ui {

ChartView::ChartView(const QString& title, QWidget* parent)
    : QChartView(parent)
{
    auto* chart = new QChart();
    chart->setTitle(title);
    chart->legend()->setAlignment(Qt::AlignBottom);
    // Room for the axis titles: Qt's default margins clip them at small sizes.
    chart->setMargins(QMargins(6, 6, 6, 6));
    setChart(chart); // the view owns it
    setRenderHint(QPainter::Antialiasing);
    keepChartStyled(chart);

    m_empty = new QLabel(this);
    m_empty->setObjectName(QStringLiteral("chartEmptyState"));
    m_empty->setAlignment(Qt::AlignCenter);
    m_empty->setWordWrap(true);
    // Drawn on the chart's own background (the palette's base), in its text colour.
    m_empty->setAutoFillBackground(true);
    m_empty->setBackgroundRole(QPalette::Base);
    m_empty->setForegroundRole(QPalette::Text);
    m_empty->hide();
}

void ChartView::restyle()
{
    styleChart(chart(), QApplication::palette());
}

void ChartView::setEmptyText(const QString& text)
{
    const bool empty = !text.isEmpty();
    m_empty->setText(text);
    m_empty->setVisible(empty);
    const auto axes = chart()->axes();
    for (QAbstractAxis* axis : axes)
        axis->setVisible(!empty);
    const auto series = chart()->series();
    for (QAbstractSeries* s : series)
        s->setVisible(!empty);
    chart()->legend()->setVisible(!empty);
    placeEmptyLabel();
}

bool ChartView::isEmptyStateShown() const
{
    return !m_empty->isHidden();
}

void ChartView::resizeEvent(QResizeEvent* event)
{
    QChartView::resizeEvent(event);
    placeEmptyLabel();
}

void ChartView::placeEmptyLabel()
{
    // Below the title, across the plot.
    const int top = height() / 4;
    m_empty->setGeometry(12, top, std::max(0, width() - 24), std::max(0, height() - top - 12));
}

void ChartView::showHover(const QString& text)
{
    m_hoverText = text;
    if (text.isEmpty())
        QToolTip::hideText();
    else
        QToolTip::showText(QCursor::pos(), text, this);
}

void ChartView::hoverPoints(QXYSeries* series, std::function<QString(const QPointF&)> text)
{
    connect(series, &QXYSeries::hovered, this, [this, text = std::move(text)](const QPointF& point, bool state) {
        showHover(state ? text(point) : QString());
    });
}

void ChartView::hoverBars(QBarSet* set, std::function<QString(int)> text)
{
    connect(set, &QBarSet::hovered, this,
            [this, text = std::move(text)](bool state, int index) { showHover(state ? text(index) : QString()); });
}

void ChartView::hoverArea(QAreaSeries* series, std::function<QString(const QPointF&)> text)
{
    connect(series, &QAreaSeries::hovered, this, [this, text = std::move(text)](const QPointF& point, bool state) {
        showHover(state ? text(point) : QString());
    });
}

void setNiceRange(QValueAxis* axis, double lo, double hi, int maxTicks)
{
    const NiceTicks t = niceTicks(lo, hi, maxTicks);
    axis->setTickType(QValueAxis::TicksFixed);
    axis->setRange(t.min, t.max);
    axis->setTickCount(t.count);
    axis->setMinorTickCount(0);
    axis->setLabelFormat(QStringLiteral("%.%1f").arg(t.decimals));
}

} // namespace coh::ui
