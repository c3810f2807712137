#include "ui/node_item.h"

#include "ui/link_item.h"
#include "ui/theme.h"
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
const QRectF kLabelRect(-60, kIcon / 2 - 6, 120, 18); // where the id is clickable, in scene units
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

// The id under the icon, in device pixels: ItemIgnoresTransformations keeps it at the font's size whatever the
// zoom. Its colours come from the canvas's palette when painted.
class NodeLabel : public QGraphicsItem {
  public:
    explicit NodeLabel(NodeItem* node)
        : QGraphicsItem(node)
        , m_node(node)
    {
        setFlag(ItemIgnoresTransformations);
        setAcceptedMouseButtons(Qt::NoButton); // clicks go to the node
        setPos(0, kIcon / 2 - 6);
    }
    QRectF boundingRect() const override
    {
        const QFontMetricsF metrics{QFont()};
        const qreal width = metrics.horizontalAdvance(m_node->id()) + 8;
        return QRectF(-width / 2, 0, width, metrics.height() + 2);
    }
    void paint(QPainter* painter, const QStyleOptionGraphicsItem*, QWidget* widget) override
    {
        const QPalette palette = widget ? widget->palette() : QPalette();
        // A backing in the canvas colour keeps the id readable where a link passes under it.
        QColor back = palette.color(QPalette::Base);
        back.setAlpha(200);
        painter->setPen(Qt::NoPen);
        painter->setBrush(back);
        painter->drawRoundedRect(boundingRect(), 3, 3);
        painter->setFont(QFont());
        painter->setPen(palette.color(QPalette::Text));
        painter->drawText(boundingRect(), Qt::AlignCenter, m_node->id());
    }

  private:
    NodeItem* m_node;
};

NodeItem::NodeItem(QString id, QSvgRenderer* icon)
    : m_id(std::move(id))
    , m_icon(icon)
    , m_label(new NodeLabel(this))
{
    setFlags(ItemIsSelectable | ItemIsMovable | ItemSendsGeometryChanges);
    setZValue(1); // above links
    setAcceptHoverEvents(true);
}

QGraphicsItem* NodeItem::label() const
{
    return m_label;
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

    if (!m_role.isEmpty()) {
        QFont font = painter->font();
        font.setPointSizeF(font.pointSizeF() * 0.75);
        font.setBold(true);
        painter->setFont(font);
        const QString text = roleBadge(m_role);
        const qreal width = QFontMetricsF(font).horizontalAdvance(text) + 8;
        const QRectF badge(kIconRect.right() - width / 2, kIconRect.top() - 4, width, 14);
        const QColor fill = roleColor(m_role);
        painter->setPen(Qt::NoPen);
        painter->setBrush(fill);
        painter->drawRoundedRect(badge, 7, 7);
        painter->setPen(textOn(fill));
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
