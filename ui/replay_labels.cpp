#include "ui/replay_labels.h"

#include <array>
#include <cmath>
#include <limits>

namespace coh::ui {

bool segmentCrossesRect(const QLineF& segment, const QRectF& rect)
{
    if (rect.contains(segment.p1()) || rect.contains(segment.p2()))
        return true;
    const std::array<QLineF, 4> edges = {
        QLineF(rect.topLeft(), rect.topRight()), QLineF(rect.topRight(), rect.bottomRight()),
        QLineF(rect.bottomRight(), rect.bottomLeft()), QLineF(rect.bottomLeft(), rect.topLeft())};
    for (const QLineF& edge : edges)
        if (segment.intersects(edge) == QLineF::BoundedIntersection)
            return true;
    return false;
}

namespace {

// The places tried: under and over the icon at a few sideways shifts, beside it, and the same a row further out.
// Dense topologies fan links out above and below every device, so a label often fits only slightly to one side.
std::vector<QRectF> candidates(QPointF c, double half, QSizeF size)
{
    constexpr double gap = 3;
    const double w = size.width(), h = size.height();
    std::vector<QRectF> out;
    for (double extra : {0.0, h + gap}) {
        const double below = c.y() + half + gap + extra, above = c.y() - half - gap - h - extra;
        for (double shift : {0.0, -0.25, 0.25, -0.5, 0.5, -0.75, 0.75, -1.0, 1.0}) {
            const double left = c.x() - w / 2 + shift * (w / 2 + half);
            out.push_back({left, below, w, h});
            out.push_back({left, above, w, h});
        }
        out.push_back({c.x() + half + gap + extra, c.y() - h / 2, w, h});
        out.push_back({c.x() - half - gap - w - extra, c.y() - h / 2, w, h});
    }
    return out;
}

} // namespace

LabelPlacement placeNodeLabels(const std::vector<QPointF>& centres, double iconSize, const std::vector<QSizeF>& sizes,
                               const std::vector<QLineF>& links, const QRectF& bounds)
{
    const double half = iconSize / 2;
    std::vector<QRectF> icons;
    icons.reserve(centres.size());
    for (const QPointF& c : centres)
        icons.emplace_back(c.x() - half, c.y() - half, iconSize, iconSize);

    LabelPlacement placement;
    placement.rects.reserve(centres.size());
    for (std::size_t n = 0; n < centres.size(); ++n) {
        const QSizeF size = n < sizes.size() ? sizes[n] : QSizeF();
        // A crossing link costs most, then leaving the view, then covering another label or icon; among equals the
        // place nearest the node wins, so the label reads as its node's.
        QRectF best;
        double bestScore = std::numeric_limits<double>::max();
        int bestCrossings = 0;
        for (const QRectF& r : candidates(centres[n], half, size)) {
            int crossings = 0, overlaps = 0;
            for (const QLineF& link : links)
                crossings += segmentCrossesRect(link, r) ? 1 : 0;
            for (std::size_t m = 0; m < icons.size(); ++m)
                overlaps += m != n && icons[m].intersects(r) ? 1 : 0;
            for (const QRectF& placed : placement.rects)
                overlaps += placed.intersects(r) ? 1 : 0;
            const bool outside = !bounds.isNull() && !bounds.contains(r);
            const QPointF d = r.center() - centres[n];
            const double score = crossings * 1e7 + (outside ? 1e6 : 0) + overlaps * 1e5 + std::hypot(d.x(), d.y());
            if (score < bestScore) {
                bestScore = score;
                bestCrossings = crossings;
                best = r;
            }
        }
        placement.rects.push_back(best);
        placement.crossings += bestCrossings > 0 ? 1 : 0;
    }
    return placement;
}

} // namespace coh::ui
