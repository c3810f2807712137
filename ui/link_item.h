#pragma once
// One link on the canvas: a line between its two nodes, labelled with kind and bandwidth, wider for more
// bandwidth (log scale, so 10 Gb/s Ethernet and 450 GB/s NVLink are both visible). A link whose end names no node
// (a typo, a deleted node) is drawn too, so it can be found, selected and deleted: a dashed stub in the Error tone
// from its known end to a "?" marker with the missing id.

#include <QGraphicsItem>
#include <QString>

namespace coh::ui {

class NodeItem;

class LinkItem : public QGraphicsItem {
  public:
    enum { Type = UserType + 2 };

    // `a` or `b` is null when that end (`aId`, `bId`) names no node; not both.
    LinkItem(QString id, NodeItem* a, NodeItem* b, QString aId, QString bId);
    ~LinkItem() override;

    int type() const override { return Type; }
    QRectF boundingRect() const override;
    QPainterPath shape() const override;
    void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

    const QString& id() const { return m_id; }
    NodeItem* nodeA() const { return m_a; }
    NodeItem* nodeB() const { return m_b; }
    // The ids the link's ends name, whether or not a node has them.
    const QString& endA() const { return m_aId; }
    const QString& endB() const { return m_bId; }
    bool isDangling() const { return !m_a || !m_b; }
    // kind, bandwidth text as written, and bytes/s (0 when it does not parse) for the width.
    void setContent(const QString& kind, const QString& bandwidthText, double bytesPerSec);
    qreal penWidth() const;
    // Called by the end nodes when they move.
    void updateGeometry();
    // From end A to end B; for a dangling link, the missing end is the "?" marker's centre.
    QLineF line() const;

    // Below this many screen pixels a label is not drawn (the tooltip and the property editor still say it).
    static constexpr qreal kMinLabelPixels = 7;

  private:
    QRectF labelRect() const;

    QString m_id;
    NodeItem* m_a;
    NodeItem* m_b;
    QString m_aId;
    QString m_bId;
    QString m_kind;
    QString m_label;
    double m_bytesPerSec = 0;
};

} // namespace coh::ui
