#include "ui/link_item.h"

#include "ui/node_item.h"
#include "ui/theme.h"

#include <QPainter>
#include <QPainterPathStroker>
#include <QStyleOptionGraphicsItem>
#include <QWidget>

#include <algorithm>
#include <cmath>
#include <numbers>

namespace coh::ui {

namespace {

// Each kind's hue; drawn through readableOn so that it stands out (3:1, as WCAG asks of graphics) on the canvas
// of either palette.
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

const QSizeF kLabelSize(90, 28);  // two lines: kind, bandwidth
constexpr qreal kStubLength = 90; // a dangling link's length, from its known end to the "?" marker
constexpr qreal kMarkerRadius = 9;

} // namespace

LinkItem::LinkItem(QString id, NodeItem* a, NodeItem* b, QString aId, QString bId)
    : m_id(std::move(id))
    , m_a(a)
    , m_b(b)
    , m_aId(std::move(aId))
    , m_bId(std::move(bId))
{
    setFlags(ItemIsSelectable);
    setZValue(0);
    for (NodeItem* end : {m_a, m_b})
        if (end)
            end->addLink(this);
}

LinkItem::~LinkItem()
{
    for (NodeItem* end : {m_a, m_b})
        if (end)
            end->removeLink(this);
}

QLineF LinkItem::line() const
{
    if (m_a && m_b)
        return QLineF(m_a->pos(), m_b->pos());
    // A stub out of the known end, pointing a way the missing id picks, so several stubs at a node fan out.
    const NodeItem* known = m_a ? m_a : m_b;
    const QString& missing = m_a ? m_bId : m_aId;
    const qreal angle = -std::numbers::pi / 4 + std::numbers::pi / 4 * static_cast<qreal>(qHash(missing) % 8);
    const QPointF end = known->pos() + QPointF(std::cos(angle), std::sin(angle)) * kStubLength;
    return m_a ? QLineF(known->pos(), end) : QLineF(end, known->pos());
}

QRectF LinkItem::labelRect() const
{
    if (isDangling()) {
        // Beside the "?" marker at the missing end.
        const QPointF missing = m_a ? line().p2() : line().p1();
        return QRectF(missing + QPointF(-kLabelSize.width() / 2, kMarkerRadius + 2), kLabelSize);
    }
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
    const QString missing = !m_a ? m_aId : !m_b ? m_bId : QString();
    setToolTip(
        missing.isEmpty()
            ? QStringLiteral("%1: %2").arg(m_id, m_label.simplified())
            : QObject::tr("%1 links to '%2', which is no node: rename the end or delete the link").arg(m_id, missing));
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
    const qreal margin = std::max(penWidth() + 6, kMarkerRadius + 2);
    QRectF box = QRectF(l.p1(), l.p2()).normalized().adjusted(-margin, -margin, margin, margin);
    return box.united(labelRect());
}

QPainterPath LinkItem::shape() const
{
    QPainterPath path(line().p1());
    path.lineTo(line().p2());
    QPainterPathStroker stroker;
    stroker.setWidth(std::max<qreal>(10, penWidth() + 6));
    QPainterPath shape = stroker.createStroke(path);
    if (isDangling())
        shape.addEllipse(m_a ? line().p2() : line().p1(), kMarkerRadius + 2, kMarkerRadius + 2);
    return shape;
}

void LinkItem::paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget)
{
    const QPalette palette = widget ? widget->palette() : QPalette();
    const QColor canvas = palette.color(QPalette::Base);
    const bool selected = option->state & QStyle::State_Selected;
    painter->setRenderHint(QPainter::Antialiasing);
    const QLineF l = line();
    if (selected) {
        QColor glow = palette.color(QPalette::Highlight);
        glow.setAlpha(90);
        painter->setPen(QPen(glow, penWidth() + 6, Qt::SolidLine, Qt::RoundCap));
        painter->drawLine(l);
    }
    const QColor error = toneColor(Tone::Error, palette, canvas);
    if (isDangling()) {
        painter->setPen(QPen(error, std::max<qreal>(2, penWidth()), Qt::DashLine, Qt::RoundCap));
        painter->drawLine(l);
        const QPointF missing = m_a ? l.p2() : l.p1();
        painter->setBrush(canvas);
        painter->setPen(QPen(error, 2));
        painter->drawEllipse(missing, kMarkerRadius, kMarkerRadius);
        QFont bold = painter->font();
        bold.setBold(true);
        painter->setFont(bold);
        painter->drawText(QRectF(missing - QPointF(kMarkerRadius, kMarkerRadius), QSizeF(2, 2) * kMarkerRadius),
                          Qt::AlignCenter, QStringLiteral("?"));
    } else {
        painter->setPen(QPen(readableOn(kindColor(m_kind), canvas, 3.0), penWidth(), Qt::SolidLine, Qt::RoundCap));
        painter->drawLine(l);
    }

    QFont font = painter->font();
    font.setBold(false);
    font.setPointSizeF(font.pointSizeF() * 0.8);
    // Zoomed out far enough that the label would be a smudge: the tooltip and the properties tell instead.
    const qreal lod = option->levelOfDetailFromTransform(painter->worldTransform());
    if (!selected && !isDangling() && QFontMetricsF(font).height() * lod < kMinLabelPixels)
        return;
    painter->setFont(font);
    const QString text = isDangling() ? QStringLiteral("%1?").arg(m_a ? m_bId : m_aId) : m_label;
    const QRectF label = labelRect();
    const QRectF bounds = QFontMetricsF(font).boundingRect(label, Qt::AlignCenter, text);
    const QRectF back = bounds.adjusted(-4, -1, 4, 1);
    QColor base = canvas;
    base.setAlpha(210);
    painter->setPen(Qt::NoPen);
    painter->setBrush(base);
    painter->drawRoundedRect(back, 4, 4);
    painter->setPen(isDangling() ? error
                    : selected   ? readableOn(palette.color(QPalette::Highlight), canvas)
                                 : palette.color(QPalette::Text));
    painter->drawText(back, Qt::AlignCenter, text);
}

} // namespace coh::ui
