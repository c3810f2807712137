#include "ui/replay_labels.h"

#include <algorithm>
#include <cmath>

namespace coh::ui {

QRectF labelHome(QPointF centre, double iconSize, QSizeF size)
{
    // Whole pixels (sizes are whole): crisp text and plates that are blits.
    return {std::round(centre.x() - size.width() / 2), std::ceil(centre.y() + iconSize / 2 + kLabelGap), size.width(),
            size.height()};
}

namespace {

struct Candidate {
    double cost;
    QPointF topLeft;
};

// Overlap by more than rounding: a place that abuts an obstacle is free, whatever the last bit of its sum says.
bool overlaps(const QRectF& a, const QRectF& b)
{
    constexpr double e = 1e-6;
    return a.left() < b.right() - e && b.left() < a.right() - e && a.top() < b.bottom() - e && b.top() < a.bottom() - e;
}

bool overlapsAny(const QRectF& r, const std::vector<QRectF>& obstacles)
{
    return std::any_of(obstacles.begin(), obstacles.end(), [&](const QRectF& o) { return overlaps(o, r); });
}

// The nearest top-left, in whole pixels, for a `size` rectangle that overlaps none of `obstacles` (already grown by
// the spacing). The nearest free place to `home` either is home or touches an obstacle, so its x is home's or abuts
// an obstacle's left or right side (rounded outwards), and its y likewise: trying those, nearest first, finds it.
QPointF nearestFree(const QRectF& home, const std::vector<QRectF>& obstacles, const QRectF& bounds)
{
    const double w = home.width(), h = home.height();
    std::vector<double> xs = {home.left()}, ys = {home.top()};
    for (const QRectF& o : obstacles) {
        xs.insert(xs.end(), {std::floor(o.left() - w), std::ceil(o.right())});
        ys.insert(ys.end(), {std::floor(o.top() - h), std::ceil(o.bottom())});
    }
    if (!bounds.isNull()) {
        xs.insert(xs.end(), {std::ceil(bounds.left()), std::floor(bounds.right() - w)});
        ys.insert(ys.end(), {std::ceil(bounds.top()), std::floor(bounds.bottom() - h)});
    }
    // Out of view costs more than any move inside it: the label is to be read.
    const double outside =
        bounds.isNull() ? 0 : 4 * (bounds.width() * bounds.width() + bounds.height() * bounds.height());
    std::vector<Candidate> candidates;
    candidates.reserve(xs.size() * ys.size());
    for (double x : xs)
        for (double y : ys) {
            const double dx = x - home.left(), dy = y - home.top();
            const bool inView = bounds.isNull() || bounds.contains(QRectF(x, y, w, h));
            candidates.push_back({dx * dx + dy * dy + (inView ? 0 : outside), QPointF(x, y)});
        }
    // Stable: among equal moves the first tried wins (home's x or y kept), the same on every run.
    std::stable_sort(candidates.begin(), candidates.end(),
                     [](const Candidate& a, const Candidate& b) { return a.cost < b.cost; });
    for (const Candidate& c : candidates)
        if (!overlapsAny(QRectF(c.topLeft, home.size()), obstacles))
            return c.topLeft;
    return home.topLeft(); // unreachable: right of the rightmost obstacle is always free
}

} // namespace

LabelPlacement placeNodeLabels(const std::vector<QPointF>& centres, double iconSize, const std::vector<QSizeF>& sizes,
                               const QRectF& bounds)
{
    const double half = iconSize / 2;
    // Every icon, its own included, and each label once placed is an obstacle, grown by the spacing so that
    // plates and icons never touch.
    std::vector<QRectF> obstacles;
    obstacles.reserve(2 * centres.size());
    for (const QPointF& c : centres)
        obstacles.emplace_back(QRectF(c.x() - half, c.y() - half, iconSize, iconSize)
                                   .adjusted(-kLabelSpacing, -kLabelSpacing, kLabelSpacing, kLabelSpacing));

    std::vector<QRectF> homes;
    for (std::size_t n = 0; n < centres.size(); ++n)
        homes.push_back(labelHome(centres[n], iconSize, n < sizes.size() ? sizes[n] : QSizeF()));
    // Labels whose place covers another node's icon have to move whatever the order; placed last, they move alone
    // instead of pushing their neighbours along a row, each by a little, until every label sits by the wrong node.
    std::vector<std::size_t> order(centres.size());
    for (std::size_t n = 0; n < order.size(); ++n)
        order[n] = n;
    std::stable_partition(order.begin(), order.end(), [&](std::size_t n) {
        for (std::size_t m = 0; m < centres.size(); ++m)
            if (m != n && overlaps(obstacles[m], homes[n]))
                return false;
        return true;
    });

    LabelPlacement placement;
    placement.rects.resize(centres.size());
    placement.displaced.resize(centres.size());
    for (std::size_t n : order) {
        const bool blocked = overlapsAny(homes[n], obstacles);
        const QRectF rect = blocked ? QRectF(nearestFree(homes[n], obstacles, bounds), homes[n].size()) : homes[n];
        placement.rects[n] = rect;
        placement.displaced[n] = blocked;
        obstacles.push_back(rect.adjusted(-kLabelSpacing, -kLabelSpacing, kLabelSpacing, kLabelSpacing));
    }
    return placement;
}

} // namespace coh::ui
