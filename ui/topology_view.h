#pragma once
// The canvas widget: zoom (Ctrl+wheel, +/-), pan (middle-drag or Space+drag), rubber-band selection, Delete,
// "link mode" (drag from one node to another to link them), palette drops, fit-to-view and auto layout.
// Every change goes through the document, so it is undoable.

#include <QGraphicsView>
#include <QList>

class QAction;
class QGraphicsLineItem;

namespace coh::ui {

class NodeItem;
class TopologyScene;

class TopologyView : public QGraphicsView {
    Q_OBJECT
  public:
    // Mime type of a palette drag: the node kind as UTF-8.
    static QString nodeKindMimeType() { return QStringLiteral("application/x-coh-node-kind"); }

    explicit TopologyView(TopologyScene* scene, QWidget* parent = nullptr);

    // The canvas's actions by what they do, for the window's menus and toolbar.
    struct CanvasActions {
        QAction* zoomIn = nullptr;
        QAction* zoomOut = nullptr;
        QAction* fit = nullptr;
        QAction* linkMode = nullptr; // checkable
        QAction* autoLayout = nullptr;
        QAction* remove = nullptr;
    };

    TopologyScene* topologyScene() const { return m_scene; }
    bool linkMode() const { return m_linkMode; }
    qreal zoom() const { return transform().m11(); }
    // zoom in, zoom out, fit, link mode, auto layout, delete, in menu order.
    QList<QAction*> editActions() const { return m_actions; }
    const CanvasActions& canvasActions() const { return m_canvas; }

  public slots:
    void setLinkMode(bool on);
    void zoomIn();
    void zoomOut();
    // Frames the drawing in the viewport with no scroll bars; the next zoom or pan brings back the room around it.
    void fitToView();
    // Frames the scene once the view is on screen: now if it is, else when it is first shown (a hidden tab's
    // view has no real size yet, and framing it then would shrink the topology to a dot).
    void fitWhenShown();
    void autoLayout();
    void deleteSelection();
    // Adds a node at a scene point (snapped to the grid) and selects it; returns its id.
    QString addNodeAt(const QString& kind, QPointF scenePos);
    QString addNodeAtCenter(const QString& kind);

  signals:
    void linkModeChanged(bool on);

  protected:
    void wheelEvent(QWheelEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    void keyReleaseEvent(QKeyEvent* event) override;
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dragMoveEvent(QDragMoveEvent* event) override;
    void dropEvent(QDropEvent* event) override;
    void showEvent(QShowEvent* event) override;

  private:
    void createActions();
    void zoomBy(qreal factor);
    // Leaves the fitted view's tight scene rect for the scene's own (the drawing and room to pan around it),
    // keeping what is on screen where it is.
    void releaseFit();
    void finishLink(QPointF scenePos);

    TopologyScene* m_scene;
    QList<QAction*> m_actions;
    CanvasActions m_canvas;
    bool m_linkMode = false;
    bool m_fitPending = false; // fitWhenShown() waits for the first show
    bool m_fitted = false;     // the view's scene rect is the fitted frame (fitToView), not the scene's
    bool m_spaceHeld = false;
    bool m_panning = false;
    QPoint m_panStart;
    QString m_linkFromId; // the node a link-mode drag started on
    QGraphicsLineItem* m_rubberLine = nullptr;
};

} // namespace coh::ui
