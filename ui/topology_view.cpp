#include "ui/topology_view.h"

#include "ui/node_item.h"
#include "ui/qt_text.h"
#include "ui/scenario_document.h"
#include "ui/topology_defaults.h"
#include "ui/topology_scene.h"

#include <QAction>
#include <QGraphicsLineItem>
#include <QKeyEvent>
#include <QMimeData>
#include <QScrollBar>
#include <QTimer>
#include <QUndoStack>
#include <QWheelEvent>

#include <algorithm>
#include <map>

namespace coh::ui {

namespace {

constexpr qreal kZoomStep = 1.25;
constexpr qreal kMinZoom = 0.1;
constexpr qreal kMaxZoom = 8.0;
constexpr qreal kFitMargin = 40; // scene units around the drawing when fitted

// Auto-layout rows: hosts on top, compute devices in the middle, switches and memory below.
int layerOf(const QString& kind)
{
    if (kind == QLatin1String("cpu_socket"))
        return 0;
    if (kind == QLatin1String("gpu") || kind == QLatin1String("accelerator"))
        return 1;
    return 2;
}

} // namespace

TopologyView::TopologyView(TopologyScene* scene, QWidget* parent)
    : QGraphicsView(scene, parent)
    , m_scene(scene)
{
    setRenderHint(QPainter::Antialiasing);
    setDragMode(RubberBandDrag);
    setRubberBandSelectionMode(Qt::IntersectsItemShape);
    setTransformationAnchor(AnchorUnderMouse);
    setAcceptDrops(true);
    setFocusPolicy(Qt::StrongFocus);
    createActions();
    // A fitted view holds no room beyond the drawing: a node dragged or added past it gives the room back.
    connect(m_scene, &QGraphicsScene::changed, this, [this] {
        if (m_fitted && !sceneRect().contains(m_scene->itemsBoundingRect()))
            releaseFit();
    });
}

void TopologyView::createActions()
{
    auto make = [this](const QString& text, const QKeySequence& key, auto slot) {
        auto* action = new QAction(text, this);
        action->setShortcut(key);
        // The editor's shortcuts must not fire while the user types in another panel of the main window.
        action->setShortcutContext(Qt::WidgetWithChildrenShortcut);
        connect(action, &QAction::triggered, this, slot);
        addAction(action);
        m_actions << action;
        return action;
    };
    m_canvas.zoomIn = make(tr("Zoom &In"), QKeySequence::ZoomIn, &TopologyView::zoomIn);
    m_canvas.zoomOut = make(tr("Zoom &Out"), QKeySequence::ZoomOut, &TopologyView::zoomOut);
    m_canvas.fit = make(tr("&Fit to View"), QKeySequence(Qt::CTRL | Qt::Key_0), &TopologyView::fitToView);
    m_canvas.linkMode = make(tr("&Link Mode"), QKeySequence(Qt::Key_L), &TopologyView::setLinkMode);
    m_canvas.linkMode->setCheckable(true);
    // Bare keys act on the canvas only: Delete in the tier table or L in a list must not delete or toggle here.
    m_canvas.linkMode->setShortcutContext(Qt::WidgetShortcut);
    m_canvas.linkMode->setToolTip(tr("Drag from one node to another to link them (L)"));
    m_canvas.autoLayout =
        make(tr("&Auto Layout"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_L), &TopologyView::autoLayout);
    m_canvas.remove = make(tr("&Delete"), QKeySequence::Delete, &TopologyView::deleteSelection);
    m_canvas.remove->setShortcutContext(Qt::WidgetShortcut);
    // Names for tests and screenshots to find them by; the window takes them from canvasActions().
    m_canvas.zoomIn->setObjectName(QStringLiteral("zoomInAction"));
    m_canvas.zoomOut->setObjectName(QStringLiteral("zoomOutAction"));
    m_canvas.fit->setObjectName(QStringLiteral("fitAction"));
    m_canvas.linkMode->setObjectName(QStringLiteral("linkModeAction"));
    m_canvas.autoLayout->setObjectName(QStringLiteral("autoLayoutAction"));
    m_canvas.remove->setObjectName(QStringLiteral("deleteAction"));
}

void TopologyView::setLinkMode(bool on)
{
    if (m_linkMode == on)
        return;
    m_linkMode = on;
    m_canvas.linkMode->setChecked(on);
    setDragMode(on ? NoDrag : RubberBandDrag);
    viewport()->setCursor(on ? Qt::CrossCursor : Qt::ArrowCursor);
    emit linkModeChanged(on);
}

void TopologyView::zoomBy(qreal factor)
{
    releaseFit();
    const qreal target = std::clamp(zoom() * factor, kMinZoom, kMaxZoom);
    const qreal applied = target / zoom();
    scale(applied, applied);
}

void TopologyView::zoomIn()
{
    zoomBy(kZoomStep);
}

void TopologyView::zoomOut()
{
    zoomBy(1 / kZoomStep);
}

void TopologyView::fitToView()
{
    const QRectF bounds = m_scene->itemsBoundingRect();
    if (bounds.isEmpty())
        return;
    const QRectF frame = bounds.adjusted(-kFitMargin, -kFitMargin, kFitMargin, kFitMargin);
    // Fitted, the view shows no scroll bars: the room is the viewport without them, less a pixel each side so
    // rounding cannot give a scroll range of 1. Never blow a two-node sketch up past the zoom limit.
    const QSizeF room = QSizeF(maximumViewportSize()) - QSizeF(2, 2);
    if (room.width() <= 0 || room.height() <= 0)
        return;
    const qreal scale =
        std::clamp(std::min(room.width() / frame.width(), room.height() / frame.height()), kMinZoom, kMaxZoom);
    setTransform(QTransform::fromScale(scale, scale));
    // The view's own scene rect is the framed drawing grown to the viewport's shape: nothing to scroll to. The
    // scene's room around the drawing (TopologyScene::growSceneRect) comes back with the next zoom or pan.
    QRectF shown(QPointF(), room / scale);
    shown.moveCenter(frame.center());
    setSceneRect(shown.united(frame));
    m_fitted = true;
    centerOn(frame.center());
}

void TopologyView::releaseFit()
{
    if (!m_fitted)
        return;
    m_fitted = false;
    const QPointF centre = mapToScene(viewport()->rect().center());
    setSceneRect(QRectF()); // follow the scene's rect, with its pan room, again
    centerOn(centre);
}

void TopologyView::fitWhenShown()
{
    if (isVisible()) {
        // After the pending layout pass, so the viewport has its final size.
        QTimer::singleShot(0, this, &TopologyView::fitToView);
        return;
    }
    m_fitPending = true;
}

void TopologyView::showEvent(QShowEvent* event)
{
    QGraphicsView::showEvent(event);
    if (m_fitPending) {
        m_fitPending = false;
        QTimer::singleShot(0, this, &TopologyView::fitToView);
    }
}

void TopologyView::autoLayout()
{
    ScenarioDocument* doc = m_scene->document();
    std::map<int, QStringList> layers;
    for (const QString& id : doc->nodeIds()) {
        const auto kind = doc->value(doc->nodePointer(id) + "/kind");
        layers[layerOf(kind && kind->is_string() ? toQString(kind->get<std::string>()) : QString())] << id;
    }
    const qreal spacingX = 160, spacingY = 180;
    doc->undoStack()->beginMacro(tr("Auto layout"));
    for (const auto& [layer, ids] : layers) {
        const qreal left = -spacingX * static_cast<qreal>(ids.size() - 1) / 2;
        for (qsizetype i = 0; i < ids.size(); ++i)
            doc->moveNode(
                ids[i], TopologyScene::snapToGrid(QPointF(left + spacingX * static_cast<qreal>(i), spacingY * layer)));
    }
    doc->undoStack()->endMacro();
    fitToView();
}

void TopologyView::deleteSelection()
{
    m_scene->document()->removeItems(m_scene->selectedNodeIds(), m_scene->selectedLinkIds());
}

QString TopologyView::addNodeAt(const QString& kind, QPointF scenePos)
{
    const QString id = m_scene->document()->addNode(kind, TopologyScene::snapToGrid(scenePos));
    m_scene->selectIds({id}, {});
    return id;
}

QString TopologyView::addNodeAtCenter(const QString& kind)
{
    return addNodeAt(kind, mapToScene(viewport()->rect().center()));
}

void TopologyView::wheelEvent(QWheelEvent* event)
{
    if (event->modifiers() & Qt::ControlModifier) {
        zoomBy(event->angleDelta().y() > 0 ? kZoomStep : 1 / kZoomStep);
        event->accept();
        return;
    }
    QGraphicsView::wheelEvent(event);
}

void TopologyView::mousePressEvent(QMouseEvent* event)
{
    if (event->button() == Qt::MiddleButton || (event->button() == Qt::LeftButton && m_spaceHeld)) {
        releaseFit();
        m_panning = true;
        m_panStart = event->position().toPoint();
        viewport()->setCursor(Qt::ClosedHandCursor);
        event->accept();
        return;
    }
    if (m_linkMode && event->button() == Qt::LeftButton) {
        const QPointF scenePos = mapToScene(event->position().toPoint());
        // Held by id: an undo during the drag may rebuild the scene's items.
        const NodeItem* from = m_scene->nodeAt(scenePos);
        m_linkFromId = from ? from->id() : QString();
        if (from) {
            m_rubberLine = m_scene->addLine(QLineF(from->pos(), scenePos),
                                            QPen(palette().color(QPalette::Highlight), 2, Qt::DashLine));
            m_rubberLine->setZValue(2);
        }
        event->accept();
        return;
    }
    QGraphicsView::mousePressEvent(event);
}

void TopologyView::mouseMoveEvent(QMouseEvent* event)
{
    if (m_panning) {
        const QPoint delta = event->position().toPoint() - m_panStart;
        m_panStart = event->position().toPoint();
        horizontalScrollBar()->setValue(horizontalScrollBar()->value() - delta.x());
        verticalScrollBar()->setValue(verticalScrollBar()->value() - delta.y());
        event->accept();
        return;
    }
    if (m_rubberLine) {
        if (const NodeItem* from = m_scene->nodeItem(m_linkFromId))
            m_rubberLine->setLine(QLineF(from->pos(), mapToScene(event->position().toPoint())));
        event->accept();
        return;
    }
    QGraphicsView::mouseMoveEvent(event);
}

void TopologyView::mouseReleaseEvent(QMouseEvent* event)
{
    if (m_panning) {
        m_panning = false;
        viewport()->setCursor(m_linkMode ? Qt::CrossCursor : Qt::ArrowCursor);
        event->accept();
        return;
    }
    if (m_linkMode && event->button() == Qt::LeftButton) {
        finishLink(mapToScene(event->position().toPoint()));
        event->accept();
        return;
    }
    QGraphicsView::mouseReleaseEvent(event);
}

void TopologyView::finishLink(QPointF scenePos)
{
    delete m_rubberLine;
    m_rubberLine = nullptr;
    NodeItem* from = m_scene->nodeItem(m_linkFromId);
    m_linkFromId.clear();
    NodeItem* to = m_scene->nodeAt(scenePos);
    if (!from || !to || from == to)
        return;
    const QString fromId = from->id(), toId = to->id();
    const QString id = m_scene->document()->addLink(fromId, toId, suggestedLinkKind(from->kind(), to->kind()));
    if (!id.isEmpty())
        m_scene->selectIds({}, {id});
}

void TopologyView::keyPressEvent(QKeyEvent* event)
{
    if (event->key() == Qt::Key_Space && !event->isAutoRepeat()) {
        m_spaceHeld = true;
        viewport()->setCursor(Qt::OpenHandCursor);
        event->accept();
        return;
    }
    if (event->key() == Qt::Key_Escape && m_linkMode) {
        setLinkMode(false);
        event->accept();
        return;
    }
    // Reached when the Delete action's shortcut is not wired to this window (view used on its own).
    if (event->key() == Qt::Key_Delete || event->key() == Qt::Key_Backspace) {
        deleteSelection();
        event->accept();
        return;
    }
    QGraphicsView::keyPressEvent(event);
}

void TopologyView::keyReleaseEvent(QKeyEvent* event)
{
    if (event->key() == Qt::Key_Space && !event->isAutoRepeat()) {
        m_spaceHeld = false;
        viewport()->setCursor(m_linkMode ? Qt::CrossCursor : Qt::ArrowCursor);
        event->accept();
        return;
    }
    QGraphicsView::keyReleaseEvent(event);
}

void TopologyView::dragEnterEvent(QDragEnterEvent* event)
{
    if (event->mimeData()->hasFormat(nodeKindMimeType())) {
        // Always a copy: a "move" would make the palette remove its own entry.
        event->setDropAction(Qt::CopyAction);
        event->accept();
    } else {
        QGraphicsView::dragEnterEvent(event);
    }
}

void TopologyView::dragMoveEvent(QDragMoveEvent* event)
{
    if (event->mimeData()->hasFormat(nodeKindMimeType())) {
        event->setDropAction(Qt::CopyAction);
        event->accept();
    } else {
        QGraphicsView::dragMoveEvent(event);
    }
}

void TopologyView::dropEvent(QDropEvent* event)
{
    if (!event->mimeData()->hasFormat(nodeKindMimeType())) {
        QGraphicsView::dropEvent(event);
        return;
    }
    const QString kind = QString::fromUtf8(event->mimeData()->data(nodeKindMimeType()));
    addNodeAt(kind, mapToScene(event->position().toPoint()));
    event->setDropAction(Qt::CopyAction);
    event->accept();
    setFocus();
}

} // namespace coh::ui
