#include "ui/node_item.h"

#include "ui/link_item.h"
#include "ui/topology_scene.h"

#include <QGraphicsSceneMouseEvent>
#include <QPainter>
#include <QStyleOptionGraphicsItem>
#include <QSvgRenderer>
#include <QWidget>

namespace coh::ui {

namespace {

constexpr qreal kIcon = 48;
const QRectF kIconRect(-kIcon / 2, -kIcon / 2 - 8, kIcon, kIcon);
const QRectF kLabelRect(-60, kIcon / 2 - 6, 120, 18);
const QRectF kBounds(-62, -kIcon / 2 - 14, 124, kIcon + 36);

// Role colours match the replay and chart views: prefill blue, decode orange.
QColor roleColor(const QString& role)
{
    if (role == QLatin1String("prefill"))
        return QColor(0x2f, 0x6f, 0xd0);
    if (role == QLatin1String("decode"))
        return QColor(0xe0, 0x7b, 0x1a);
    if (role == QLatin1String("both"))
        return QColor(0x8a, 0x4f, 0xc8);
    if (role == QLatin1String("host"))
        return QColor(0x5f, 0x6b, 0x78);
    return QColor(0x1f, 0x99, 0x8a);
}

QString roleBadge(const QString& role)
{
    if (role == QLatin1String("prefill"))
        return QStringLiteral("P");
    if (role == QLatin1String("decode"))
        return QStringLiteral("D");
    if (role == QLatin1String("both"))
        return QStringLiteral("P+D");
    if (role == QLatin1String("host"))
        return QStringLiteral("H");
    if (role == QLatin1String("memory"))
        return QStringLiteral("M");
    return role.left(3);
}

} // namespace

NodeItem::NodeItem(QString id, QSvgRenderer* icon)
    : m_id(std::move(id))
    , m_icon(icon)
{
    setFlags(ItemIsSelectable | ItemIsMovable | ItemSendsGeometryChanges);
    setZValue(1); // above links
    setAcceptHoverEvents(true);
}

QRectF NodeItem::boundingRect() const
{
    return kBounds;
}

QPainterPath NodeItem::shape() const
{
    QPainterPath path;
    path.addRect(kIconRect.adjusted(-6, -6, 6, 6));
    path.addRect(kLabelRect);
    return path;
}

void NodeItem::setContent(const QString& kind, const QString& role, QSvgRenderer* icon)
{
    if (kind == m_kind && role == m_role && icon == m_icon)
        return;
    m_kind = kind;
    m_role = role;
    m_icon = icon;
    update();
}

void NodeItem::paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget)
{
    const QPalette palette = widget ? widget->palette() : QPalette();
    painter->setRenderHint(QPainter::Antialiasing);
    if (option->state & QStyle::State_Selected) {
        QColor fill = palette.color(QPalette::Highlight);
        fill.setAlpha(60);
        painter->setPen(QPen(palette.color(QPalette::Highlight), 2));
        painter->setBrush(fill);
        painter->drawRoundedRect(kIconRect.adjusted(-6, -6, 6, 6), 8, 8);
    }
    if (m_icon && m_icon->isValid())
        m_icon->render(painter, kIconRect);

    painter->setPen(palette.color(QPalette::WindowText));
    painter->drawText(kLabelRect, Qt::AlignHCenter | Qt::AlignTop, m_id);

    if (!m_role.isEmpty()) {
        QFont font = painter->font();
        font.setPointSizeF(font.pointSizeF() * 0.75);
        font.setBold(true);
        painter->setFont(font);
        const QString text = roleBadge(m_role);
        const qreal width = QFontMetricsF(font).horizontalAdvance(text) + 8;
        const QRectF badge(kIconRect.right() - width / 2, kIconRect.top() - 4, width, 14);
        painter->setPen(Qt::NoPen);
        painter->setBrush(roleColor(m_role));
        painter->drawRoundedRect(badge, 7, 7);
        painter->setPen(Qt::white);
        painter->drawText(badge, Qt::AlignCenter, text);
    }
}

QVariant NodeItem::itemChange(GraphicsItemChange change, const QVariant& value)
{
    // Links follow the node while it is dragged; the document only hears about the drop.
    if (change == ItemPositionHasChanged)
        for (LinkItem* link : std::as_const(m_links))
            link->updateGeometry();
    return QGraphicsItem::itemChange(change, value);
}

void NodeItem::mouseReleaseEvent(QGraphicsSceneMouseEvent* event)
{
    QGraphicsItem::mouseReleaseEvent(event);
    if (auto* topology = dynamic_cast<TopologyScene*>(scene()))
        topology->commitMoves();
}

} // namespace coh::ui
