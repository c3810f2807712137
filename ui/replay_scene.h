#pragma once
// The static picture the replay animates over: nodes at their canvas positions and links between them, in
// the run's node and link order so MessageRecord / PathRecord indices address them directly.
#include <QPointF>
#include <QRectF>
#include <QString>

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace coh::ui {

struct ReplayNode {
    QString id;
    QString kind; // scenario kind name: gpu, cpu_socket, switch, ...
    QPointF pos;
    bool placed = false; // position came from the scenario (else automatic layout)
};

struct ReplayLink {
    QString id;
    int a = -1, b = -1; // node indices; -1 when the scenario does not name the node
    QString kind;       // nvlink, pcie, ... as the scenario says
    QString bandwidth;  // per direction, as the scenario writes it ("128 GB/s")
};

struct ReplayScene {
    std::vector<ReplayNode> nodes;
    std::vector<ReplayLink> links;

    // Node positions from /topology/nodes/i/position; nodes without one go on a circle around the rest.
    static ReplayScene build(const std::vector<std::string>& nodeIds, const std::vector<std::string>& linkIds,
                             const nlohmann::ordered_json& scenarioJson);
    QRectF bounds() const;
    QPointF linkEnd(int link, bool forward, bool destination) const;
};

} // namespace coh::ui
