#include "ui/replay_scene.h"

#include "ui/qt_text.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <unordered_map>

namespace coh::ui {
namespace {

const nlohmann::ordered_json* array(const nlohmann::ordered_json& json, const char* a, const char* b)
{
    if (!json.is_object() || !json.contains(a) || !json[a].is_object() || !json[a].contains(b) ||
        !json[a][b].is_array())
        return nullptr;
    return &json[a][b];
}

std::string text(const nlohmann::ordered_json& object, const char* key)
{
    if (object.is_object() && object.contains(key) && object[key].is_string())
        return object[key].get<std::string>();
    return {};
}

// QRectF::united ignores zero-size rectangles, so a box of points is taken by hand.
QRectF boxOf(const std::vector<ReplayNode>& nodes, bool placedOnly)
{
    double x0 = 0, y0 = 0, x1 = 0, y1 = 0;
    bool first = true;
    for (const auto& n : nodes) {
        if (placedOnly && !n.placed)
            continue;
        x0 = first ? n.pos.x() : std::min(x0, n.pos.x());
        y0 = first ? n.pos.y() : std::min(y0, n.pos.y());
        x1 = first ? n.pos.x() : std::max(x1, n.pos.x());
        y1 = first ? n.pos.y() : std::max(y1, n.pos.y());
        first = false;
    }
    return QRectF(QPointF(x0, y0), QPointF(x1, y1));
}

} // namespace

ReplayScene ReplayScene::build(const std::vector<std::string>& nodeIds, const std::vector<std::string>& linkIds,
                               const nlohmann::ordered_json& scenarioJson)
{
    ReplayScene scene;
    std::unordered_map<std::string, int> nodeIndex;
    for (const auto& id : nodeIds) {
        nodeIndex.emplace(id, static_cast<int>(scene.nodes.size()));
        scene.nodes.push_back({toQString(id), QString(), QPointF(), false});
    }
    if (const auto* nodes = array(scenarioJson, "topology", "nodes")) {
        for (const auto& node : *nodes) {
            auto it = nodeIndex.find(text(node, "id"));
            if (it == nodeIndex.end())
                continue;
            ReplayNode& target = scene.nodes[static_cast<std::size_t>(it->second)];
            target.kind = toQString(text(node, "kind"));
            const auto pos = node.find("position");
            if (pos != node.end() && pos->is_array() && pos->size() == 2 && (*pos)[0].is_number() &&
                (*pos)[1].is_number()) {
                target.pos = QPointF((*pos)[0].get<double>(), (*pos)[1].get<double>());
                target.placed = true;
            }
        }
    }

    // Automatic layout: a circle around the placed nodes' centre, wide enough not to sit on top of them.
    QPointF centre(0, 0);
    int placed = 0;
    for (const auto& n : scene.nodes)
        if (n.placed) {
            centre += n.pos;
            ++placed;
        }
    const int unplaced = static_cast<int>(scene.nodes.size()) - placed;
    if (unplaced > 0) {
        double radius = 150 + 20.0 * unplaced;
        if (placed > 0) {
            centre /= placed;
            const QRectF box = boxOf(scene.nodes, true);
            radius = std::max(radius, 0.5 * std::hypot(box.width(), box.height()) + 80);
        }
        int k = 0;
        for (auto& n : scene.nodes) {
            if (n.placed)
                continue;
            const double angle = 2 * std::numbers::pi * k++ / unplaced - std::numbers::pi / 2;
            n.pos = centre + QPointF(radius * std::cos(angle), radius * std::sin(angle));
        }
    }

    std::unordered_map<std::string, const nlohmann::ordered_json*> linkJson;
    if (const auto* links = array(scenarioJson, "topology", "links")) {
        for (const auto& link : *links) {
            std::string id = text(link, "id");
            if (id.empty())
                id = text(link, "a") + "-" + text(link, "b"); // the scenario format's default link id
            linkJson.emplace(id, &link);
        }
    }
    for (const auto& id : linkIds) {
        ReplayLink link{toQString(id), -1, -1, {}, {}};
        if (auto it = linkJson.find(id); it != linkJson.end()) {
            const auto& json = *it->second;
            if (auto a = nodeIndex.find(text(json, "a")); a != nodeIndex.end())
                link.a = a->second;
            if (auto b = nodeIndex.find(text(json, "b")); b != nodeIndex.end())
                link.b = b->second;
            link.kind = toQString(text(json, "kind"));
            link.bandwidth = toQString(text(json, "bandwidth"));
        }
        scene.links.push_back(link);
    }
    return scene;
}

QRectF ReplayScene::bounds() const
{
    return boxOf(nodes, false);
}

QPointF ReplayScene::linkEnd(int link, bool forward, bool destination) const
{
    const ReplayLink& l = links[static_cast<std::size_t>(link)];
    // forward runs a -> b; the destination of a forward hop is b.
    const int node = (forward == destination) ? l.b : l.a;
    return node >= 0 ? nodes[static_cast<std::size_t>(node)].pos : QPointF();
}

} // namespace coh::ui
