#pragma once
// The canvas of one ScenarioDocument: a NodeItem per node and a LinkItem per link, kept in step with the
// document's changed(pointer) signal (a node move touches one item; anything else re-syncs items by id, so
// selection survives edits).

#include <QGraphicsScene>
#include <QHash>
#include <QPointF>
#include <QStringList>

class QSvgRenderer;

namespace coh::ui {

class LinkItem;
class NodeItem;
class ScenarioDocument;

class TopologyScene : public QGraphicsScene {
    Q_OBJECT
  public:
    static constexpr qreal kGrid = 20;

    explicit TopologyScene(ScenarioDocument* document, QObject* parent = nullptr);
    ~TopologyScene() override;

    ScenarioDocument* document() const { return m_document; }
    NodeItem* nodeItem(const QString& id) const { return m_nodes.value(id); }
    LinkItem* linkItem(const QString& id) const { return m_links.value(id); }
    QStringList selectedNodeIds() const;
    QStringList selectedLinkIds() const;
    void selectIds(const QStringList& nodeIds, const QStringList& linkIds);
    // The node under a scene point, or nullptr.
    NodeItem* nodeAt(QPointF scenePos) const;

    static QPointF snapToGrid(QPointF point);
    // Writes the positions of dragged nodes to the document (snapped), as one undo step per drag.
    void commitMoves();

  public slots:
    void sync();

  private:
    void onDocumentChanged(const QString& pointer);
    void syncNode(int index, NodeItem* item);
    QSvgRenderer* icon(const QString& kind);
    void growSceneRect();

    ScenarioDocument* m_document;
    QHash<QString, NodeItem*> m_nodes;
    QHash<QString, LinkItem*> m_links;
    QHash<QString, QSvgRenderer*> m_icons;
    QStringList m_nodeOrder; // document order at the last sync, to follow renames
    QStringList m_linkOrder;
};

} // namespace coh::ui
