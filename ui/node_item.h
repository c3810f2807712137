#pragma once
// One topology node on the canvas: the kind's icon, the id below it and a badge with the serving role. The
// item's position is the node's "position" in the scenario; a drag is committed to the document on release. The
// id is drawn at the same size on screen whatever the zoom, so it stays readable when a large topology is fitted.

#include <QGraphicsItem>
#include <QList>
#include <QString>

class QSvgRenderer;

namespace coh::ui {

class LinkItem;
class NodeLabel;

class NodeItem : public QGraphicsItem {
  public:
    enum { Type = UserType + 1 };

    NodeItem(QString id, QSvgRenderer* icon);

    int type() const override { return Type; }
    QRectF boundingRect() const override;
    QPainterPath shape() const override;
    void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

    const QString& id() const { return m_id; }
    const QString& kind() const { return m_kind; }
    const QString& role() const { return m_role; }
    // Updates what the item shows (kind decides the icon, which the scene passes in).
    void setContent(const QString& kind, const QString& role, QSvgRenderer* icon);

    void addLink(LinkItem* link) { m_links.append(link); }
    void removeLink(LinkItem* link) { m_links.removeAll(link); }
    qsizetype linkCount() const { return m_links.size(); }
    // The id's text item (screen-sized: it ignores the view's zoom).
    QGraphicsItem* label() const;

  protected:
    QVariant itemChange(GraphicsItemChange change, const QVariant& value) override;
    void mouseReleaseEvent(QGraphicsSceneMouseEvent* event) override;

  private:
    QString m_id;
    QString m_kind;
    QString m_role;
    QSvgRenderer* m_icon;
    QList<LinkItem*> m_links;
    NodeLabel* m_label;
};

} // namespace coh::ui
