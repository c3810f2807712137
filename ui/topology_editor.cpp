#include "ui/topology_editor.h"

#include "ui/link_item.h"
#include "ui/node_item.h"
#include "ui/node_palette.h"
#include "ui/property_editor.h"
#include "ui/scenario_document.h"
#include "ui/topology_scene.h"
#include "ui/topology_view.h"

#include <QAction>
#include <QHBoxLayout>
#include <QHideEvent>
#include <QRegularExpression>
#include <QShowEvent>
#include <QSplitter>
#include <QTimer>
#include <QUndoStack>

namespace coh::ui {

TopologyEditor::TopologyEditor(ScenarioDocument* doc, QWidget* parent)
    : QWidget(parent)
    , m_document(doc)
    , m_scene(new TopologyScene(doc, this))
    , m_view(new TopologyView(m_scene, this))
    , m_palette(new NodePalette(this))
    , m_properties(new PropertyEditor(doc, this))
{
    setObjectName(QStringLiteral("topologyEditor"));
    m_view->setObjectName(QStringLiteral("topologyView"));
    auto* splitter = new QSplitter(Qt::Horizontal, this);
    splitter->addWidget(m_palette);
    splitter->addWidget(m_view);
    splitter->addWidget(m_properties);
    splitter->setStretchFactor(0, 0);
    splitter->setStretchFactor(1, 1);
    splitter->setStretchFactor(2, 0);
    splitter->setCollapsible(1, false);
    splitter->setSizes({m_palette->sizeHint().width(), 600, 260});
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(splitter);

    // Zoom, fit and layout shortcuts work anywhere inside the editor (not in the rest of the window); Delete
    // and L only on the canvas.
    for (QAction* action : editActions())
        if (action->shortcutContext() == Qt::WidgetWithChildrenShortcut)
            addAction(action);
    enableViewActions(false); // until shown

    connect(m_palette, &NodePalette::nodeRequested, m_view, &TopologyView::addNodeAtCenter);
    connect(m_scene, &QGraphicsScene::selectionChanged, this, &TopologyEditor::onSceneSelectionChanged);
    // A newly opened scenario is framed once the view has its real size.
    connect(m_document, &ScenarioDocument::changed, this, [this](const QString& pointer) {
        if (pointer.isEmpty() && m_document->undoStack()->count() == 0)
            m_view->fitWhenShown();
    });
}

QList<QAction*> TopologyEditor::editActions() const
{
    return m_view->editActions();
}

const TopologyView::CanvasActions& TopologyEditor::canvasActions() const
{
    return m_view->canvasActions();
}

void TopologyEditor::enableViewActions(bool on)
{
    const TopologyView::CanvasActions& a = canvasActions();
    for (QAction* action : {a.zoomIn, a.zoomOut, a.fit, a.linkMode})
        action->setEnabled(on);
}

void TopologyEditor::showEvent(QShowEvent* event)
{
    QWidget::showEvent(event);
    enableViewActions(true);
}

void TopologyEditor::hideEvent(QHideEvent* event)
{
    QWidget::hideEvent(event);
    // A minimised window hides nothing the user chose to leave.
    if (!event->spontaneous())
        enableViewActions(false);
}

bool TopologyEditor::selectProblem(const QString& pointer)
{
    static const QRegularExpression itemPattern(QStringLiteral("^/topology/(nodes|links)/(\\d+)(/.*)?$"));
    const QRegularExpressionMatch match = itemPattern.match(pointer);
    if (!match.hasMatch())
        return false;
    const bool node = match.captured(1) == QLatin1String("nodes");
    // Ids as the scene knows them (a link without "id" is "a-b"), by the index the pointer names.
    const QStringList ids = node ? m_document->nodeIds() : m_document->linkIds();
    const qsizetype index = match.captured(2).toLongLong();
    if (index >= ids.size())
        return false;
    const QString id = ids[index];
    QGraphicsItem* item =
        node ? static_cast<QGraphicsItem*>(m_scene->nodeItem(id)) : static_cast<QGraphicsItem*>(m_scene->linkItem(id));
    if (!item)
        return false;
    m_scene->selectIds(node ? QStringList{id} : QStringList{}, node ? QStringList{} : QStringList{id});
    m_view->ensureVisible(item);
    return true;
}

void TopologyEditor::onSceneSelectionChanged()
{
    const QStringList nodes = m_scene->selectedNodeIds();
    const QStringList links = m_scene->selectedLinkIds();
    m_properties->showItems(nodes, links);
    emit selectionChanged(nodes, links);
}

} // namespace coh::ui
