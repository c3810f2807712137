#pragma once
// One link on the canvas: a line between its two nodes, labelled with kind and bandwidth, wider for more
// bandwidth (log scale, so 10 Gb/s Ethernet and 450 GB/s NVLink are both visible).

#include <QGraphicsItem>
#include <QString>

namespace coh::ui {

class NodeItem;

class LinkItem : public QGraphicsItem {
  public:
    enum { Type = UserType + 2 };

    LinkItem(QString id, NodeItem* a, NodeItem* b);
    ~LinkItem() override;

    int type() const override { return Type; }
    QRectF boundingRect() const override;
    QPainterPath shape() const override;
    void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

    const QString& id() const { return m_id; }
    NodeItem* nodeA() const { return m_a; }
    NodeItem* nodeB() const { return m_b; }
    // kind, bandwidth text as written, and bytes/s (0 when it does not parse) for the width.
    void setContent(const QString& kind, const QString& bandwidthText, double bytesPerSec);
    qreal penWidth() const;
    // Called by the end nodes when they move.
    void updateGeometry();

  private:
    QLineF line() const;
    QRectF labelRect() const;

    QString m_id;
    NodeItem* m_a;
    NodeItem* m_b;
    QString m_kind;
    QString m_label;
    double m_bytesPerSec = 0;
};

} // namespace coh::ui
