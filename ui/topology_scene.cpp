#include "ui/topology_scene.h"

#include "core/scenario/units.h"
#include "ui/link_item.h"
#include "ui/node_item.h"
#include "ui/qt_text.h"
#include "ui/scenario_document.h"
#include "ui/set_json_value_command.h"

#include <QRegularExpression>
#include <QSet>
#include <QSvgRenderer>
#include <QUndoStack>

#include <cmath>

namespace coh::ui {

using nlohmann::ordered_json;

namespace {

QString stringAt(const ordered_json& object, const char* key)
{
    auto it = object.find(key);
    return it != object.end() && it->is_string() ? toQString(it->get<std::string>()) : QString();
}

// The label shows bandwidth as written; the width needs bytes/s (0 when it does not parse yet).
void readBandwidth(const ordered_json& link, QString* text, double* bytesPerSec)
{
    *bytesPerSec = 0;
    auto it = link.find("bandwidth");
    if (it == link.end())
        return;
    if (it->is_number()) {
        *bytesPerSec = it->get<double>();
        *text = toQString(core::formatBandwidth(*bytesPerSec));
    } else if (it->is_string()) {
        *text = toQString(it->get<std::string>());
        try {
            *bytesPerSec = core::parseQuantity(core::Quantity::Bandwidth, it->get<std::string>());
        } catch (const core::UnitError&) {
            // Shown as typed; the property editor reports the problem.
        }
    }
}

} // namespace

TopologyScene::TopologyScene(ScenarioDocument* document, QObject* parent)
    : QGraphicsScene(parent)
    , m_document(document)
{
    connect(m_document, &ScenarioDocument::changed, this, &TopologyScene::onDocumentChanged);
    sync();
}

TopologyScene::~TopologyScene()
{
    // No selectionChanged from a scene being torn down (its listeners may be half destroyed).
    blockSignals(true);
    // Links unregister from their nodes, so they go first.
    qDeleteAll(m_links);
    m_links.clear();
    qDeleteAll(m_nodes);
    m_nodes.clear();
}

QSvgRenderer* TopologyScene::icon(const QString& kind)
{
    if (QSvgRenderer* renderer = m_icons.value(kind))
        return renderer;
    auto* renderer = new QSvgRenderer(QStringLiteral(":/icons/%1.svg").arg(kind), this);
    m_icons.insert(kind, renderer);
    return renderer;
}

void TopologyScene::onDocumentChanged(const QString& pointer)
{
    static const QRegularExpression movePattern(QStringLiteral("^/topology/nodes/(\\d+)/position$"));
    const QRegularExpressionMatch match = movePattern.match(pointer);
    if (match.hasMatch()) {
        const int index = match.captured(1).toInt();
        const QStringList ids = m_document->nodeIds();
        if (index < ids.size())
            if (NodeItem* item = m_nodes.value(ids[index])) {
                syncNode(index, item);
                return;
            }
    }
    sync();
}

void TopologyScene::syncNode(int index, NodeItem* item)
{
    const ordered_json node =
        m_document->value("/topology/nodes/" + std::to_string(index)).value_or(ordered_json::object());
    const QString kind = stringAt(node, "kind");
    item->setContent(kind, stringAt(node, "role"), icon(kind));
    item->setPos(m_document->nodePosition(item->id()));
    growSceneRect();
}

void TopologyScene::growSceneRect()
{
    // Room around the drawing so the view can pan (middle-drag, Space+drag) past its edges.
    const qreal margin = 1000;
    setSceneRect(sceneRect().united(itemsBoundingRect().adjusted(-margin, -margin, margin, margin)));
}

namespace {

// Ids selected before a sync, as they are called after it: an id that vanished while a new id took its place in
// the list was renamed (its item was rebuilt), so the selection follows it.
QStringList carrySelection(const QStringList& selected, const QStringList& before, const QStringList& after)
{
    QStringList carried;
    for (const QString& id : selected) {
        const qsizetype index = before.indexOf(id);
        if (after.contains(id))
            carried << id;
        else if (index >= 0 && index < after.size() && !before.contains(after[index]))
            carried << after[index];
    }
    return carried;
}

} // namespace

void TopologyScene::sync()
{
    const QStringList nodeIds = m_document->nodeIds();
    const QStringList linkIds = m_document->linkIds();
    const QSet<QString> nodeSet(nodeIds.begin(), nodeIds.end());
    const QStringList selectedNodes = selectedNodeIds();
    const QStringList selectedLinks = selectedLinkIds();
    // Deleting a selected item would announce a selection change per item; announce the end result once.
    QSignalBlocker blocker(this);

    // Links first: a link whose end was renamed, removed or (for a dangling one) added is rebuilt against the
    // node items it names now.
    for (auto it = m_links.begin(); it != m_links.end();) {
        LinkItem* link = it.value();
        const std::optional<ordered_json> json = m_document->link(it.key());
        const auto endIs = [&](NodeItem* item, const QString& id) {
            return nodeSet.contains(id) ? item && item->id() == id && m_nodes.value(id) == item : item == nullptr;
        };
        const bool stale = !json || stringAt(*json, "a") != link->endA() || stringAt(*json, "b") != link->endB() ||
                           !endIs(link->nodeA(), link->endA()) || !endIs(link->nodeB(), link->endB());
        if (stale) {
            delete link;
            it = m_links.erase(it);
        } else {
            ++it;
        }
    }
    for (auto it = m_nodes.begin(); it != m_nodes.end();) {
        if (!nodeSet.contains(it.key())) {
            delete it.value();
            it = m_nodes.erase(it);
        } else {
            ++it;
        }
    }
    for (int i = 0; i < nodeIds.size(); ++i) {
        const QString& id = nodeIds[i];
        if (id.isEmpty() || (m_nodes.contains(id) && nodeIds.indexOf(id) != i))
            continue; // nameless or duplicate ids are validation errors; draw the first only
        NodeItem* item = m_nodes.value(id);
        if (!item) {
            item = new NodeItem(id, nullptr);
            addItem(item);
            m_nodes.insert(id, item);
        }
        syncNode(i, item);
    }
    for (const QString& id : linkIds) {
        const std::optional<ordered_json> json = m_document->link(id);
        if (!json || !json->is_object())
            continue;
        const QString aId = stringAt(*json, "a"), bId = stringAt(*json, "b");
        NodeItem* a = m_nodes.value(aId);
        NodeItem* b = m_nodes.value(bId);
        if ((!a && !b) || a == b)
            continue; // no end to draw from, or a link to itself: validation names it
        LinkItem* link = m_links.value(id);
        if (!link) {
            link = new LinkItem(id, a, b, aId, bId); // a dangling end is drawn as a stub to a "?"
            addItem(link);
            m_links.insert(id, link);
        }
        QString bandwidth;
        double bytesPerSec = 0;
        readBandwidth(*json, &bandwidth, &bytesPerSec);
        link->setContent(stringAt(*json, "kind"), bandwidth, bytesPerSec);
    }

    for (const QString& id : carrySelection(selectedNodes, m_nodeOrder, nodeIds))
        if (NodeItem* item = m_nodes.value(id))
            item->setSelected(true);
    for (const QString& id : carrySelection(selectedLinks, m_linkOrder, linkIds))
        if (LinkItem* item = m_links.value(id))
            item->setSelected(true);
    m_nodeOrder = nodeIds;
    m_linkOrder = linkIds;
    growSceneRect();
    blocker.unblock();
    if (selectedNodeIds() != selectedNodes || selectedLinkIds() != selectedLinks)
        emit selectionChanged();
}

QStringList TopologyScene::selectedNodeIds() const
{
    QStringList ids;
    for (QGraphicsItem* item : selectedItems())
        if (item->type() == NodeItem::Type)
            ids << static_cast<NodeItem*>(item)->id();
    ids.sort();
    return ids;
}

QStringList TopologyScene::selectedLinkIds() const
{
    QStringList ids;
    for (QGraphicsItem* item : selectedItems())
        if (item->type() == LinkItem::Type)
            ids << static_cast<LinkItem*>(item)->id();
    ids.sort();
    return ids;
}

void TopologyScene::selectIds(const QStringList& nodeIds, const QStringList& linkIds)
{
    QSignalBlocker blocker(this); // one selectionChanged at the end, not one per item
    clearSelection();
    for (const QString& id : nodeIds)
        if (NodeItem* item = m_nodes.value(id))
            item->setSelected(true);
    for (const QString& id : linkIds)
        if (LinkItem* item = m_links.value(id))
            item->setSelected(true);
    blocker.unblock();
    emit selectionChanged();
}

NodeItem* TopologyScene::nodeAt(QPointF scenePos) const
{
    const QList<QGraphicsItem*> hits = items(scenePos);
    for (QGraphicsItem* item : hits)
        if (item->type() == NodeItem::Type)
            return static_cast<NodeItem*>(item);
    return nullptr;
}

QPointF TopologyScene::snapToGrid(QPointF point)
{
    return {std::round(point.x() / kGrid) * kGrid, std::round(point.y() / kGrid) * kGrid};
}

void TopologyScene::commitMoves()
{
    QList<NodeItem*> moved;
    for (NodeItem* item : std::as_const(m_nodes))
        if (item->pos() != m_document->nodePosition(item->id()))
            moved << item;
    if (moved.isEmpty())
        return;
    QUndoStack* undo = m_document->undoStack();
    if (moved.size() > 1)
        undo->beginMacro(tr("Move %1 nodes").arg(moved.size()));
    for (NodeItem* item : std::as_const(moved)) {
        const QString id = item->id();
        m_document->moveNode(id, snapToGrid(item->pos()));
        // The document may have re-synced: look the item up again rather than trusting `item`.
        if (NodeItem* current = m_nodes.value(id))
            current->setPos(m_document->nodePosition(id));
    }
    if (moved.size() > 1) {
        undo->endMacro();
    } else if (auto* command =
                   dynamic_cast<SetJsonValueCommand*>(const_cast<QUndoCommand*>(undo->command(undo->index() - 1)))) {
        // One drag, one undo step: the next drag of this node must not merge into this one.
        command->seal();
    }
}

} // namespace coh::ui
