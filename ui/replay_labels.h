#pragma once
// Where each node's label (its id and block line) goes on the replay canvas: beside its icon, on the first of a
// few places around it that no link crosses and that covers no other node or label. Pure geometry in widget
// pixels, so it is tested on the shipped presets without painting.
#include <QLineF>
#include <QPointF>
#include <QRectF>
#include <QSizeF>

#include <vector>

namespace coh::ui {

struct LabelPlacement {
    std::vector<QRectF> rects; // per node
    int crossings = 0;         // labels a link still crosses (0 unless the topology leaves no free place)
};

// `centres` and `iconSize`: the nodes' icons; `sizes`: each label's size; `links`: the drawn link segments;
// `bounds`: the view, which labels stay inside where they can (null: anywhere).
LabelPlacement placeNodeLabels(const std::vector<QPointF>& centres, double iconSize, const std::vector<QSizeF>& sizes,
                               const std::vector<QLineF>& links, const QRectF& bounds = {});

// Whether the segment passes through the rectangle (or touches it).
bool segmentCrossesRect(const QLineF& segment, const QRectF& rect);

} // namespace coh::ui
