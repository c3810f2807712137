#include "ui/link_item.h"

#include "ui/node_item.h"

#include <QPainter>
#include <QPainterPathStroker>
#include <QStyleOptionGraphicsItem>
#include <QWidget>

#include <algorithm>
#include <cmath>

namespace coh::ui {

namespace {

QColor kindColor(const QString& kind)
{
    if (kind == QLatin1String("nvlink"))
        return QColor(0x4c, 0x9a, 0x2a);
    if (kind == QLatin1String("pcie"))
        return QColor(0x3a, 0x6e, 0xa5);
    if (kind == QLatin1String("cxl"))
        return QColor(0x1f, 0x99, 0x8a);
    if (kind == QLatin1String("upi") || kind == QLatin1String("on_chip"))
        return QColor(0x7a, 0x5c, 0xb0);
    if (kind == QLatin1String("infiniband"))
        return QColor(0xc0, 0x5a, 0x28);
    return QColor(0x80, 0x80, 0x80);
}

const QSizeF kLabelSize(90, 28); // two lines: kind, bandwidth

} // namespace

LinkItem::LinkItem(QString id, NodeItem* a, NodeItem* b)
    : m_id(std::move(id))
    , m_a(a)
    , m_b(b)
{
    setFlags(ItemIsSelectable);
    setZValue(0);
    m_a->addLink(this);
    m_b->addLink(this);
}

LinkItem::~LinkItem()
{
    m_a->removeLink(this);
    m_b->removeLink(this);
}

QLineF LinkItem::line() const
{
    return QLineF(m_a->pos(), m_b->pos());
}

QRectF LinkItem::labelRect() const
{
    // Links fanning out of a hub (a switch, a socket) would stack their labels at the midpoints; put each
    // label nearer the end with fewer links, where neighbouring links are further apart.
    const qsizetype a = m_a->linkCount(), b = m_b->linkCount();
    const qreal t = a == b ? 0.5 : (a > b ? 0.7 : 0.3);
    const QPointF centre = line().pointAt(t);
    return QRectF(centre - QPointF(kLabelSize.width() / 2, kLabelSize.height() / 2), kLabelSize);
}

qreal LinkItem::penWidth() const
{
    // 1 GB/s -> 1 px, each decade +1.2 px, capped so a fat link does not hide its nodes.
    if (m_bytesPerSec <= 0)
        return 1;
    return std::clamp(1.0 + 1.2 * std::log10(m_bytesPerSec / 1e9), 1.0, 8.0);
}

void LinkItem::setContent(const QString& kind, const QString& bandwidthText, double bytesPerSec)
{
    m_kind = kind;
    // Two short lines instead of one long one: labels of neighbouring links then rarely collide.
    m_label = bandwidthText.isEmpty() ? kind : kind + QLatin1Char('\n') + bandwidthText;
    m_bytesPerSec = bytesPerSec;
    updateGeometry();
}

void LinkItem::updateGeometry()
{
    prepareGeometryChange();
    update();
}

QRectF LinkItem::boundingRect() const
{
    const QLineF l = line();
    const qreal margin = penWidth() + 6;
    QRectF box = QRectF(l.p1(), l.p2()).normalized().adjusted(-margin, -margin, margin, margin);
    return box.united(labelRect());
}

QPainterPath LinkItem::shape() const
{
    QPainterPath path(line().p1());
    path.lineTo(line().p2());
    QPainterPathStroker stroker;
    stroker.setWidth(std::max<qreal>(10, penWidth() + 6));
    return stroker.createStroke(path);
}

void LinkItem::paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget)
{
    const QPalette palette = widget ? widget->palette() : QPalette();
    const bool selected = option->state & QStyle::State_Selected;
    painter->setRenderHint(QPainter::Antialiasing);
    const QLineF l = line();
    if (selected) {
        QColor glow = palette.color(QPalette::Highlight);
        glow.setAlpha(90);
        painter->setPen(QPen(glow, penWidth() + 6, Qt::SolidLine, Qt::RoundCap));
        painter->drawLine(l);
    }
    painter->setPen(QPen(kindColor(m_kind), penWidth(), Qt::SolidLine, Qt::RoundCap));
    painter->drawLine(l);

    QFont font = painter->font();
    font.setPointSizeF(font.pointSizeF() * 0.8);
    painter->setFont(font);
    const QRectF label = labelRect();
    const QFontMetricsF metrics(font);
    const QRectF text = metrics.boundingRect(label, Qt::AlignCenter, m_label);
    const QRectF back = text.adjusted(-4, -1, 4, 1);
    QColor base = palette.color(QPalette::Base);
    base.setAlpha(210);
    painter->setPen(Qt::NoPen);
    painter->setBrush(base);
    painter->drawRoundedRect(back, 4, 4);
    painter->setPen(palette.color(selected ? QPalette::Highlight : QPalette::Text));
    painter->drawText(back, Qt::AlignCenter, m_label);
}

} // namespace coh::ui
