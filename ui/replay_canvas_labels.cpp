// The canvas's node labels: their size at the largest, their places (ui/replay_labels.*), and their painting: each
// an opaque plate over the links with the node's id and the blocks it holds now in each state.
#include "ui/replay_canvas.h"

#include "ui/replay_canvas_style.h"
#include "ui/replay_labels.h"
#include "ui/replay_state_style.h"
#include "ui/theme.h"

#include <QPainter>

#include <algorithm>
#include <cmath>

namespace coh::ui {

using namespace canvas;

void ReplayCanvas::updateLabelSizes()
{
    if (m_labelSizesValid)
        return;
    // Each label is the node's id over its block counts, packed into lines as wide as the id or the widest count.
    // Its largest: each state at its peak and in italics (the wider face), the most lines of any set of states the
    // node held at once. A placement then holds for the whole run and is redone only when the view moves.
    const ReplayScene& scene = m_model->scene();
    const QFont badge = badgeFont(font());
    QFont italic = badge;
    italic.setItalic(true);
    const QFontMetricsF idMetrics(font()), badgeMetrics(badge), italicMetrics(italic);
    const double gap = badgeMetrics.horizontalAdvance(QStringLiteral("  "));
    m_labelSizes.clear();
    for (std::uint32_t n = 0; n < scene.nodes.size(); ++n) {
        double width = idMetrics.horizontalAdvance(scene.nodes[n].id);
        std::vector<double> widths;
        for (const auto& b : m_model->nodePeakBlocks(n))
            widths.push_back(
                italicMetrics.horizontalAdvance(QStringLiteral("%1 %2").arg(b.state, blockCount(b.blocks))));
        for (double w : widths)
            width = std::max(width, w);
        std::size_t lines = 0;
        for (const std::uint64_t held : m_model->nodeStatesHeldTogether(n)) {
            std::vector<double> together;
            for (std::size_t k = 0; k < widths.size(); ++k)
                if (k >= 64 || (held >> k) & 1)
                    together.push_back(widths[k]);
            lines = std::max(lines, packBadges(together, gap, width).size());
        }
        m_labelSizes.emplace_back(std::ceil(width) + 2 * kPlatePadX,
                                  std::ceil(idMetrics.height() + static_cast<double>(lines) * badgeMetrics.height()) +
                                      2 * kPlatePadY);
    }
    m_labelSizesValid = true;
}

void ReplayCanvas::updateLabels()
{
    if (m_labelsValid && m_labelsScale == m_scale && m_labelsOffset == m_offset && m_labelsSize == size())
        return;
    updateLabelSizes();
    const ReplayScene& scene = m_model->scene();
    std::vector<QPointF> centres;
    centres.reserve(scene.nodes.size());
    for (const ReplayNode& node : scene.nodes)
        centres.push_back(mapFromScene(node.pos));
    LabelPlacement placement = placeNodeLabels(centres, kIconSize, m_labelSizes, QRectF(rect()));
    m_labels = std::move(placement.rects);
    m_labelDisplaced = std::move(placement.displaced);
    m_labelsScale = m_scale;
    m_labelsOffset = m_offset;
    m_labelsSize = size();
    m_labelsValid = true;
}

QRectF ReplayCanvas::labelRect(std::uint32_t node)
{
    if (!m_model)
        return {};
    updateLabels();
    return node < m_labels.size() ? m_labels[node] : QRectF();
}

bool ReplayCanvas::labelDisplaced(std::uint32_t node)
{
    if (!m_model)
        return false;
    updateLabels();
    return node < m_labelDisplaced.size() && m_labelDisplaced[node];
}

void ReplayCanvas::layoutLabels()
{
    // What each label shows now, and its plate: as big as that text (so a node holding nothing yet has a plate
    // just round its id), inside the label's place, against the side that faces its node.
    const ReplayScene& scene = m_model->scene();
    const QFont badge = badgeFont(font());
    QFont italic = badge;
    italic.setItalic(true);
    const QFontMetricsF idMetrics(font()), badgeMetrics(badge), italicMetrics(italic);
    const double gap = badgeMetrics.horizontalAdvance(QStringLiteral("  "));
    m_labelLayouts.resize(scene.nodes.size());
    m_plates.resize(scene.nodes.size());
    for (std::uint32_t n = 0; n < scene.nodes.size(); ++n) {
        LabelLayout& label = m_labelLayouts[n];
        const QRectF place = m_labels[n];
        m_model->nodeBlocks(n, m_time, m_nowBlocks);
        std::erase_if(m_nowBlocks, [](const ReplayModel::StateBlocks& b) { return b.blocks < 0.5; });
        // Counts change at protocol steps, not every frame: the texts and their measured widths (text shaping,
        // the costly part) are kept until they do.
        if (m_nowBlocks != label.blocks || label.parts.size() != label.blocks.size()) {
            std::swap(label.blocks, m_nowBlocks);
            label.parts.clear();
            label.widths.clear();
            for (const auto& b : label.blocks) {
                label.parts.push_back(QStringLiteral("%1 %2").arg(b.state, blockCount(b.blocks)));
                const bool transient = b.info && !b.info->stable;
                label.widths.push_back(
                    (transient ? italicMetrics : badgeMetrics).horizontalAdvance(label.parts.back()));
            }
        }
        label.lines = packBadges(label.widths, gap, place.width() - 2 * kPlatePadX);
        double width = idMetrics.horizontalAdvance(scene.nodes[n].id);
        for (const auto& line : label.lines) {
            double used = -gap;
            for (std::size_t i : line)
                used += label.widths[i] + gap;
            width = std::max(width, used);
        }
        // Whole pixels, like the places, so a plate is a blit of a cached picture.
        const QSizeF plate(
            std::min(place.width(), std::ceil(width) + 2 * kPlatePadX),
            std::min(place.height(),
                     std::ceil(idMetrics.height() + static_cast<double>(label.lines.size()) * badgeMetrics.height()) +
                         2 * kPlatePadY));
        const QPointF c = mapFromScene(scene.nodes[n].pos);
        const double half = kIconSize / 2.0;
        const double x = place.left() >= c.x() + half    ? place.left()
                         : place.right() <= c.x() - half ? place.right() - plate.width()
                                                         : std::floor(place.center().x() - plate.width() / 2);
        const double y = place.bottom() <= c.y() - half ? place.bottom() - plate.height() : place.top();
        label.plate = QRectF(QPointF(x, y), plate);
        m_plates[n] = label.plate;
    }
}

void ReplayCanvas::paintLeaders(QPainter& painter) const
{
    // A label moved off its place (another node or label was there) gets a dotted leader from its icon's edge
    // towards its plate's centre: even a label moved only a little to the side then reads as its node's, not as the
    // neighbour's it now sits under. The plate, painted later, hides the leader's end.
    const ReplayScene& scene = m_model->scene();
    painter.setPen(QPen(m_idleLink, 1, Qt::DotLine));
    for (std::uint32_t n = 0; n < scene.nodes.size(); ++n) {
        if (!m_labelDisplaced[n])
            continue;
        const QPointF c = mapFromScene(scene.nodes[n].pos);
        const QPointF towards = m_labelLayouts[n].plate.center() - c;
        // Leave the icon through its box's edge (the larger of the two components reaches it first).
        const double reach = std::max(std::abs(towards.x()), std::abs(towards.y()));
        if (reach > kIconSize / 2.0)
            painter.drawLine(c + towards * (kIconSize / 2.0 / reach), c + towards);
    }
}

const QPixmap& ReplayCanvas::plateFor(QSize size, qreal pixelRatio)
{
    const quint64 key = (quint64(size.width()) << 32) | (quint64(size.height()) << 8) | quint64(qRound(pixelRatio * 4));
    auto it = m_plateCache.find(key);
    if (it != m_plateCache.end())
        return *it;
    if (m_plateCache.size() > 256) // sizes come from a few fonts and line counts; zooming does not grow it
        m_plateCache.clear();
    QPixmap pixmap(size * pixelRatio);
    pixmap.setDevicePixelRatio(pixelRatio);
    pixmap.fill(Qt::transparent);
    QPainter p(&pixmap);
    p.setRenderHint(QPainter::Antialiasing, true);
    p.setPen(QPen(m_plateBorder, 1));
    p.setBrush(palette().color(QPalette::Base));
    p.drawRoundedRect(QRectF(QPointF(), QSizeF(size)).adjusted(0.5, 0.5, -0.5, -0.5), kPlateRadius, kPlateRadius);
    return *m_plateCache.insert(key, pixmap);
}

void ReplayCanvas::paintLabels(QPainter& painter)
{
    // Plates are opaque and painted after every link and leader, so a link passes under a label, never through
    // its text. The block counts are in their state's colour (what the state allows), transient states in italics.
    const ReplayScene& scene = m_model->scene();
    const QColor text = palette().color(QPalette::Text);
    const QFont idFont = font(), badge = badgeFont(idFont);
    QFont italic = badge;
    italic.setItalic(true);
    const QFontMetricsF idMetrics(idFont), badgeMetrics(badge);
    const double gap = badgeMetrics.horizontalAdvance(QStringLiteral("  "));
    for (std::uint32_t n = 0; n < scene.nodes.size(); ++n) {
        const LabelLayout& label = m_labelLayouts[n];
        painter.drawPixmap(label.plate.topLeft(),
                           plateFor(label.plate.size().toSize(), painter.device()->devicePixelRatioF()));
        const QRectF content = label.plate.adjusted(kPlatePadX, kPlatePadY, -kPlatePadX, -kPlatePadY);
        painter.setFont(idFont);
        painter.setPen(text);
        painter.drawText(QRectF(content.left(), content.top(), content.width(), idMetrics.height()), Qt::AlignCenter,
                         scene.nodes[n].id);
        double top = content.top() + idMetrics.height();
        for (const auto& line : label.lines) {
            double width = -gap;
            for (std::size_t i : line)
                width += label.widths[i] + gap;
            double x = content.center().x() - width / 2;
            for (std::size_t i : line) {
                const ReplayModel::StateBlocks& b = label.blocks[i];
                painter.setFont(b.info && !b.info->stable ? italic : badge);
                const QColor& colour =
                    b.info ? m_stateColours[static_cast<std::size_t>(blockStateClass(*b.info))] : m_unknownStateColour;
                painter.setPen(colour);
                painter.drawText(QPointF(x, top + badgeMetrics.ascent()), label.parts[i]);
                x += label.widths[i] + gap;
                m_badges.push_back({n, b.state, b.blocks, colour});
            }
            top += badgeMetrics.height();
        }
    }
    painter.setFont(idFont);
}

} // namespace coh::ui
