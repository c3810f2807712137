// ScenarioDocument's topology edits: nodes and links by id, each a single undo step (compound ones a macro).
#include "ui/scenario_document.h"

#include "ui/qt_text.h"
#include "ui/topology_defaults.h"

#include <QUndoStack>

#include <algorithm>
#include <cmath>

namespace coh::ui {

using nlohmann::ordered_json;
using Pointer = ordered_json::json_pointer;

namespace {

constexpr int kMoveMergeId = 0x4d4f5645; // "MOVE": every drag of a node merges under one id

std::string indexPointer(const char* array, std::size_t index)
{
    return std::string(array) + "/" + std::to_string(index);
}

// A string member of an object, or empty: the JSON may be any shape while the user is fixing it.
QString stringMember(const ordered_json& object, const char* key)
{
    if (!object.is_object())
        return {};
    auto it = object.find(key);
    return it != object.end() && it->is_string() ? toQString(it->get<std::string>()) : QString();
}

QString idOf(const ordered_json& item)
{
    return stringMember(item, "id");
}

QString linkIdOf(const ordered_json& link)
{
    // Links without "id" are named "a-b", as core names them.
    QString id = idOf(link);
    if (!id.isEmpty() || !link.is_object())
        return id;
    return stringMember(link, "a") + QLatin1Char('-') + stringMember(link, "b");
}

} // namespace

const ordered_json* ScenarioDocument::array(const char* pointer) const
{
    const Pointer ptr(pointer);
    if (!m_root.contains(ptr))
        return nullptr;
    const ordered_json& value = m_root.at(ptr);
    return value.is_array() ? &value : nullptr;
}

int ScenarioDocument::nodeCount() const
{
    const ordered_json* nodes = array("/topology/nodes");
    return nodes ? static_cast<int>(nodes->size()) : 0;
}

QStringList ScenarioDocument::nodeIds() const
{
    QStringList ids;
    if (const ordered_json* nodes = array("/topology/nodes"))
        for (const ordered_json& node : *nodes)
            ids << idOf(node);
    return ids;
}

QStringList ScenarioDocument::linkIds() const
{
    QStringList ids;
    if (const ordered_json* links = array("/topology/links"))
        for (const ordered_json& link : *links)
            ids << linkIdOf(link);
    return ids;
}

std::optional<ordered_json> ScenarioDocument::node(const QString& id) const
{
    std::string pointer = nodePointer(id);
    return pointer.empty() ? std::nullopt : value(pointer);
}

std::optional<ordered_json> ScenarioDocument::link(const QString& id) const
{
    std::string pointer = linkPointer(id);
    return pointer.empty() ? std::nullopt : value(pointer);
}

std::string ScenarioDocument::nodePointer(const QString& id) const
{
    const qsizetype index = nodeIds().indexOf(id);
    return index < 0 || id.isEmpty() ? std::string() : indexPointer("/topology/nodes", static_cast<std::size_t>(index));
}

std::string ScenarioDocument::linkPointer(const QString& id) const
{
    const qsizetype index = linkIds().indexOf(id);
    return index < 0 || id.isEmpty() ? std::string() : indexPointer("/topology/links", static_cast<std::size_t>(index));
}

QString ScenarioDocument::uniqueNodeId(const QString& prefix) const
{
    const QStringList ids = nodeIds();
    for (int n = 0;; ++n) {
        QString id = prefix + QString::number(n);
        if (!ids.contains(id))
            return id;
    }
}

QString ScenarioDocument::uniqueLinkId(const QString& base) const
{
    const QStringList ids = linkIds();
    QString id = base;
    for (int n = 2; ids.contains(id); ++n)
        id = base + QLatin1Char('-') + QString::number(n);
    return id;
}

QString ScenarioDocument::addNode(const QString& kind, QPointF position)
{
    const QString id = uniqueNodeId(nodeIdPrefix(kind));
    ordered_json node = ordered_json::object();
    node["id"] = toStdString(id);
    node.update(defaultNode(kind));
    node["position"] = {std::lround(position.x()), std::lround(position.y())};
    // "source" reads best last, as in the presets.
    if (auto source = node.find("source"); source != node.end()) {
        ordered_json text = *source;
        node.erase("source");
        node["source"] = text;
    }
    setValue(indexPointer("/topology/nodes", static_cast<std::size_t>(nodeCount())), std::move(node),
             tr("Add node %1").arg(id));
    return id;
}

QString ScenarioDocument::addLink(const QString& a, const QString& b, const QString& kind)
{
    const QStringList nodes = nodeIds();
    if (a == b || !nodes.contains(a) || !nodes.contains(b))
        return {};
    if (const ordered_json* links = array("/topology/links")) {
        for (const ordered_json& link : *links) {
            const QString la = stringMember(link, "a"), lb = stringMember(link, "b");
            if ((la == a && lb == b) || (la == b && lb == a))
                return {};
        }
    }
    const QString id = uniqueLinkId(a + QLatin1Char('-') + b);
    ordered_json link = {{"id", toStdString(id)}, {"a", toStdString(a)}, {"b", toStdString(b)}};
    link.update(defaultLink(kind));
    const ordered_json* links = array("/topology/links");
    setValue(indexPointer("/topology/links", links ? links->size() : 0), std::move(link), tr("Add link %1").arg(id));
    return id;
}

void ScenarioDocument::removeItems(const QStringList& nodeIds, const QStringList& linkIds)
{
    const QStringList allNodes = this->nodeIds();
    const QStringList allLinks = this->linkIds();
    std::vector<std::size_t> nodeIndexes, linkIndexes;
    for (const QString& id : nodeIds)
        if (qsizetype i = allNodes.indexOf(id); i >= 0)
            nodeIndexes.push_back(static_cast<std::size_t>(i));
    const ordered_json* links = array("/topology/links");
    for (qsizetype i = 0; i < allLinks.size(); ++i) {
        const ordered_json& link = (*links)[static_cast<std::size_t>(i)];
        const bool touches = nodeIds.contains(stringMember(link, "a")) || nodeIds.contains(stringMember(link, "b"));
        if (touches || linkIds.contains(allLinks[i]))
            linkIndexes.push_back(static_cast<std::size_t>(i));
    }
    const std::size_t total = nodeIndexes.size() + linkIndexes.size();
    if (total == 0)
        return;
    // Highest index first, so the indexes still to remove do not shift; links before the nodes they name.
    std::sort(nodeIndexes.rbegin(), nodeIndexes.rend());
    nodeIndexes.erase(std::unique(nodeIndexes.begin(), nodeIndexes.end()), nodeIndexes.end());
    std::sort(linkIndexes.rbegin(), linkIndexes.rend());
    // Named as a person would: "Delete node gpu0", "Delete link gpu0-sw0", "Delete 3 items".
    QString text = tr("Delete %1 items").arg(total);
    if (total == 1)
        text = nodeIndexes.empty() ? tr("Delete link %1").arg(allLinks[static_cast<qsizetype>(linkIndexes[0])])
                                   : tr("Delete node %1").arg(allNodes[static_cast<qsizetype>(nodeIndexes[0])]);
    m_undo->beginMacro(text);
    for (std::size_t i : linkIndexes)
        removeValue(indexPointer("/topology/links", i), tr("Delete link"));
    for (std::size_t i : nodeIndexes)
        removeValue(indexPointer("/topology/nodes", i), tr("Delete node"));
    m_undo->endMacro();
}

void ScenarioDocument::moveNode(const QString& id, QPointF position)
{
    const std::string pointer = nodePointer(id);
    if (pointer.empty())
        return;
    ordered_json value{std::lround(position.x()), std::lround(position.y())};
    if (this->value(pointer + "/position") == value)
        return;
    setValue(pointer + "/position", std::move(value), tr("Move node %1").arg(id), kMoveMergeId);
}

bool ScenarioDocument::renameNode(const QString& id, const QString& newId)
{
    const QStringList ids = nodeIds();
    if (newId.isEmpty() || !ids.contains(id) || (newId != id && ids.contains(newId)))
        return false;
    if (newId == id)
        return true;
    m_undo->beginMacro(tr("Rename node %1 to %2").arg(id, newId));
    setValue(nodePointer(id) + "/id", toStdString(newId), tr("Rename node"));
    renameReferences(id, newId);
    m_undo->endMacro();
    return true;
}

// Every place the format names a node: link ends, the coherence home and explicit instance node lists.
void ScenarioDocument::renameReferences(const QString& id, const QString& newId)
{
    const std::string from = toStdString(id);
    const std::string to = toStdString(newId);
    auto renameAt = [&](const std::string& pointer) {
        std::optional<ordered_json> current = value(pointer);
        if (current && current->is_string() && current->get<std::string>() == from)
            setValue(pointer, to, tr("Rename reference"));
    };
    if (const ordered_json* links = array("/topology/links"))
        for (std::size_t i = 0; i < links->size(); ++i) {
            renameAt(indexPointer("/topology/links", i) + "/a");
            renameAt(indexPointer("/topology/links", i) + "/b");
        }
    renameAt("/coherence/home");
    if (const ordered_json* instances = array("/serving/instances"))
        for (std::size_t i = 0; i < instances->size(); ++i) {
            const std::string nodes = indexPointer("/serving/instances", i) + "/nodes";
            std::optional<ordered_json> list = value(nodes);
            for (std::size_t n = 0; list && list->is_array() && n < list->size(); ++n)
                renameAt(nodes + "/" + std::to_string(n));
        }
}

QPointF ScenarioDocument::nodePosition(const QString& id) const
{
    std::optional<ordered_json> node = this->node(id);
    if (!node || !node->contains("position"))
        return {};
    const ordered_json& p = (*node)["position"];
    if (!p.is_array() || p.size() != 2 || !p[0].is_number() || !p[1].is_number())
        return {};
    return {p[0].get<double>(), p[1].get<double>()};
}

} // namespace coh::ui
