#include "ui/sequence_chart_header.h"

#include "ui/sequence_chart.h"

#include <QPainter>

namespace coh::ui {

SequenceChartHeader::SequenceChartHeader(SequenceChart* chart, QWidget* parent)
    : QWidget(parent)
    , m_chart(chart)
{
    setObjectName(QStringLiteral("labChartHeader"));
    connect(m_chart, &SequenceChart::laidOut, this, qOverload<>(&QWidget::update));
}

QSize SequenceChartHeader::sizeHint() const
{
    return {0, fontMetrics().height() + 14};
}

qreal SequenceChartHeader::offset() const
{
    return m_chart->mapTo(window(), QPoint(0, 0)).x() - mapTo(window(), QPoint(0, 0)).x();
}

QRectF SequenceChartHeader::nameRect(int lifeline) const
{
    const qreal w = m_chart->nameWidth();
    return {offset() + m_chart->lifelineX(lifeline) - w / 2, 3, w, height() - 6.0};
}

void SequenceChartHeader::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    const QPalette pal = palette();
    for (int l = 0; l < m_chart->lifelineCount(); ++l) {
        p.setPen(pal.color(QPalette::ButtonText));
        p.setBrush(pal.color(QPalette::Button));
        p.drawRoundedRect(nameRect(l), 4, 4);
        p.drawText(nameRect(l), Qt::AlignCenter, m_chart->lifelineName(l));
    }
}

} // namespace coh::ui
