#pragma once
// Where each node's label (its id and block lines, on an opaque plate) goes on the replay canvas: in its usual
// place centred under its icon, unless the plate would cover another node's icon or a label placed before it;
// then the nearest place that covers neither. Links do not count: plates are painted over them. Pure geometry
// in widget pixels, so it is tested on the shipped presets without painting.
#include <QPointF>
#include <QRectF>
#include <QSizeF>

#include <vector>

namespace coh::ui {

inline constexpr double kLabelGap = 2;     // between an icon and the top of its label's plate
inline constexpr double kLabelSpacing = 2; // kept free between a plate and another plate or icon

struct LabelPlacement {
    std::vector<QRectF> rects;   // per node: where its plate may extend, in whole pixels for whole sizes
    std::vector<bool> displaced; // per node: moved off its usual place (it gets a leader back to its icon)
};

// A label's usual place: centred under the icon at `centre`, kLabelGap below it (to the next whole pixel).
QRectF labelHome(QPointF centre, double iconSize, QSizeF size);

// `centres` and `iconSize`: the nodes' icons; `sizes`: each label's plate at its largest. Labels are placed in node
// order, those whose usual place covers another node's icon last. A displaced label goes where it moves least from
// its usual place, preferring places inside `bounds` (null: anywhere); a label is never moved only to bring it into
// view.
LabelPlacement placeNodeLabels(const std::vector<QPointF>& centres, double iconSize, const std::vector<QSizeF>& sizes,
                               const QRectF& bounds = {});

} // namespace coh::ui
