// The canvas's geometry queries: what is under a position (markers, nodes, links) for clicks and tooltips. Kept
// apart from the painting, which only reads their results.
#include "ui/replay_canvas.h"

#include "ui/replay_canvas_style.h"
#include "ui/replay_tooltips.h"

#include <QHelpEvent>
#include <QToolTip>

#include <algorithm>
#include <cmath>

namespace coh::ui {
namespace {

using namespace canvas;

double distanceToSegment(QPointF p, QPointF a, QPointF b)
{
    const QPointF d = b - a;
    const double length2 = d.x() * d.x() + d.y() * d.y();
    const double f = length2 > 0 ? std::clamp(QPointF::dotProduct(p - a, d) / length2, 0.0, 1.0) : 0.0;
    const QPointF q = a + d * f;
    return std::hypot(p.x() - q.x(), p.y() - q.y());
}

} // namespace

std::vector<QLineF> ReplayCanvas::linkSegments() const
{
    std::vector<QLineF> out;
    if (!m_model)
        return out;
    const ReplayScene& scene = m_model->scene();
    for (const ReplayLink& link : scene.links)
        if (link.a >= 0 && link.b >= 0)
            out.emplace_back(mapFromScene(scene.nodes[static_cast<std::size_t>(link.a)].pos),
                             mapFromScene(scene.nodes[static_cast<std::size_t>(link.b)].pos));
    return out;
}

int ReplayCanvas::messageAt(QPointF pos) const
{
    if (!m_model)
        return -1;
    std::vector<std::uint32_t> inFlight;
    m_model->inFlight(m_time, inFlight);
    int best = -1;
    double bestDistance = kPickRadius;
    for (std::uint32_t message : inFlight) {
        if (m_hidden[static_cast<std::size_t>(m_model->role(message))])
            continue;
        const QPointF p = markerPos(message);
        const double d = std::max(std::abs(p.x() - pos.x()), std::abs(p.y() - pos.y()));
        if (d <= bestDistance) {
            bestDistance = d;
            best = static_cast<int>(message);
        }
    }
    return best;
}

int ReplayCanvas::nodeAt(QPointF pos)
{
    if (!m_model)
        return -1;
    updateLabels();
    const ReplayScene& scene = m_model->scene();
    for (std::uint32_t n = 0; n < scene.nodes.size(); ++n) {
        const QPointF c = mapFromScene(scene.nodes[n].pos);
        const QRectF box(c.x() - kIconSize / 2.0, c.y() - kIconSize / 2.0, kIconSize, kIconSize);
        if (box.contains(pos) || (n < m_labels.size() && m_labels[n].contains(pos)))
            return static_cast<int>(n);
    }
    return -1;
}

int ReplayCanvas::linkAt(QPointF pos) const
{
    if (!m_model)
        return -1;
    const ReplayScene& scene = m_model->scene();
    int best = -1;
    double bestDistance = kPickRadius;
    for (std::size_t i = 0; i < scene.links.size(); ++i) {
        const ReplayLink& link = scene.links[i];
        if (link.a < 0 || link.b < 0)
            continue;
        const double d = distanceToSegment(pos, mapFromScene(scene.nodes[static_cast<std::size_t>(link.a)].pos),
                                           mapFromScene(scene.nodes[static_cast<std::size_t>(link.b)].pos));
        if (d <= bestDistance) {
            bestDistance = d;
            best = static_cast<int>(i);
        }
    }
    return best;
}

QString ReplayCanvas::toolTipAt(QPointF pos)
{
    if (!m_model)
        return {};
    // Markers sit on top of nodes and links, so they are asked first, as they are drawn last.
    if (const int message = messageAt(pos); message >= 0)
        return messageToolTip(*m_model, static_cast<std::uint32_t>(message));
    if (const int node = nodeAt(pos); node >= 0)
        return nodeToolTip(*m_model, static_cast<std::uint32_t>(node), m_time);
    if (const int link = linkAt(pos); link >= 0)
        return linkToolTip(*m_model, link, m_time);
    return {};
}

bool ReplayCanvas::event(QEvent* event)
{
    if (event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        const QString text = toolTipAt(help->pos());
        if (text.isEmpty())
            QToolTip::hideText();
        else
            QToolTip::showText(help->globalPos(), text, this);
        return true;
    }
    return QWidget::event(event);
}

} // namespace coh::ui
