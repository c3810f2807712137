#include "ui/replay_canvas.h"

#include <QFile>
#include <QMouseEvent>
#include <QPainter>
#include <QSvgRenderer>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>

namespace coh::ui {
namespace {

constexpr int kMarkerSize = 6; // pixels, whatever the zoom: markers are symbols, not scene objects
constexpr int kIconSize = 36;
constexpr double kFitMargin = 50;

QColor utilizationColor(double u)
{
    // Grey when idle through amber to red at saturation.
    const double f = std::clamp(u, 0.0, 1.0);
    const QColor idle(0xB0, 0xB0, 0xB0), busy(0xD6, 0x27, 0x28);
    return QColor::fromRgbF(static_cast<float>(idle.redF() + (busy.redF() - idle.redF()) * f),
                            static_cast<float>(idle.greenF() + (busy.greenF() - idle.greenF()) * f),
                            static_cast<float>(idle.blueF() + (busy.blueF() - idle.blueF()) * f));
}

// A protocol state's colour in the node's block counts: exclusive-writable states warm, shared ones green,
// owned purple; transient and other states grey.
QColor stateColor(const QString& state)
{
    if (state == QLatin1String("M"))
        return QColor(0xD6, 0x27, 0x28);
    if (state == QLatin1String("E"))
        return QColor(0xFF, 0x7F, 0x0E);
    if (state == QLatin1String("O"))
        return QColor(0x94, 0x67, 0xBD);
    if (state == QLatin1String("S"))
        return QColor(0x2C, 0xA0, 0x2C);
    return QColor(0x7F, 0x7F, 0x7F);
}

QString blockCount(double blocks)
{
    return blocks >= 9999.5 ? QStringLiteral("%1k").arg(blocks / 1000, 0, 'f', blocks >= 99999.5 ? 0 : 1)
                            : QString::number(qRound(blocks));
}

} // namespace

ReplayCanvas::ReplayCanvas(QWidget* parent)
    : QWidget(parent)
{
    setMinimumSize(320, 240);
    setMouseTracking(false);
    setAutoFillBackground(false);
}

void ReplayCanvas::setModel(std::shared_ptr<const ReplayModel> model)
{
    m_model = std::move(model);
    m_time = 0;
    m_userZoomed = false;
    m_linkRoleCounts.assign(m_model ? 2 * m_model->scene().links.size() : 0, {});
    fitToView();
}

void ReplayCanvas::setTime(qint64 t)
{
    m_time = t;
    update();
}

void ReplayCanvas::setLodThreshold(int markers)
{
    m_lodThreshold = std::max(0, markers);
    update();
}

void ReplayCanvas::fitToView()
{
    if (!m_model || m_model->scene().nodes.empty()) {
        m_scale = 1;
        m_offset = QPointF();
        update();
        return;
    }
    const QRectF box = m_model->scene().bounds();
    const double w = std::max(1.0, width() - 2 * kFitMargin), h = std::max(1.0, height() - 2 * kFitMargin);
    m_scale = std::min(box.width() > 0 ? w / box.width() : 1.0, box.height() > 0 ? h / box.height() : 1.0);
    m_scale = std::clamp(m_scale, 0.01, 100.0);
    m_offset = QPointF(width() / 2.0, height() / 2.0) - box.center() * m_scale;
    update();
}

void ReplayCanvas::zoomBy(double factor, QPointF anchor)
{
    const QPointF sceneAnchor = mapToScene(anchor);
    m_scale = std::clamp(m_scale * factor, 0.01, 1000.0);
    m_offset = anchor - sceneAnchor * m_scale; // keep the point under the cursor still
    m_userZoomed = true;
    update();
}

void ReplayCanvas::collectMarkers(const QRect& viewport)
{
    for (auto& rects : m_rectsByRole)
        rects.clear();
    for (auto& counts : m_linkRoleCounts)
        counts.fill(0);
    m_inFlight.clear();
    m_visibleMarkers = 0;
    if (!m_model)
        return;
    m_model->inFlight(m_time, m_inFlight);
    const QRectF visible = QRectF(viewport).adjusted(-kMarkerSize, -kMarkerSize, kMarkerSize, kMarkerSize);
    constexpr int half = kMarkerSize / 2;
    for (std::uint32_t message : m_inFlight) {
        const ReplayModel::Marker marker = m_model->marker(message, m_time);
        const QPointF p = mapFromScene(marker.pos);
        if (!visible.contains(p))
            continue;
        ++m_visibleMarkers;
        const auto role = static_cast<std::size_t>(m_model->role(message));
        // Integer rectangles: the raster engine fills them about four times faster than QRectF ones.
        // Messages of one flow share path and timing; a small fixed offset per message keeps them apart.
        const std::uint32_t h = message * 2654435761u;
        const int dx = static_cast<int>((h >> 27) % 5) * 2 - 4, dy = static_cast<int>((h >> 22) % 5) * 2 - 4;
        m_rectsByRole[role].append(
            QRect(qRound(p.x()) - half + dx, qRound(p.y()) - half + dy, kMarkerSize, kMarkerSize));
        if (marker.link >= 0)
            ++m_linkRoleCounts[2 * static_cast<std::size_t>(marker.link) + (marker.forward ? 0 : 1)][role];
    }
    m_aggregated = m_visibleMarkers > m_lodThreshold;
}

void ReplayCanvas::paintFrame(QPainter& painter, const QRect& viewport)
{
    painter.fillRect(viewport, palette().color(QPalette::Base));
    if (!m_model)
        return;
    collectMarkers(viewport);
    painter.setRenderHint(QPainter::Antialiasing, true);
    paintLinks(painter);
    paintNodes(painter);
    // Markers go over the nodes (a message is at its node when it leaves and arrives), unantialiased: with
    // thousands of them, crisp squares are both faster and easier to read.
    painter.setRenderHint(QPainter::Antialiasing, false);
    if (m_aggregated)
        paintDensityBars(painter);
    else
        paintMarkers(painter);
}

void ReplayCanvas::paintLinks(QPainter& painter) const
{
    const ReplayScene& scene = m_model->scene();
    for (std::size_t i = 0; i < scene.links.size(); ++i) {
        const ReplayLink& link = scene.links[i];
        if (link.a < 0 || link.b < 0)
            continue;
        const double u = m_model->linkUtilization(static_cast<int>(i), m_time);
        // Flat caps: antialiased round caps cost ten times more in the raster engine (measured, see gui-replay.md).
        painter.setPen(QPen(utilizationColor(u), 2 + 6 * std::clamp(u, 0.0, 1.0), Qt::SolidLine, Qt::FlatCap));
        painter.drawLine(mapFromScene(scene.nodes[static_cast<std::size_t>(link.a)].pos),
                         mapFromScene(scene.nodes[static_cast<std::size_t>(link.b)].pos));
    }
}

void ReplayCanvas::paintMarkers(QPainter& painter) const
{
    painter.setPen(Qt::NoPen);
    for (int r = 0; r < kMessageRoleCount; ++r) {
        const auto& rects = m_rectsByRole[static_cast<std::size_t>(r)];
        if (rects.isEmpty())
            continue;
        painter.setBrush(messageRoleColor(static_cast<MessageRole>(r)));
        if (m_drawing == MarkerDrawing::Batched) {
            painter.drawRects(rects);
        } else {
            for (const QRect& rect : rects)
                painter.drawRect(rect);
        }
    }
}

void ReplayCanvas::paintDensityBars(QPainter& painter) const
{
    const ReplayScene& scene = m_model->scene();
    int most = 1;
    for (const auto& counts : m_linkRoleCounts) {
        int total = 0;
        for (int c : counts)
            total += c;
        most = std::max(most, total);
    }
    painter.setFont(font());
    for (std::size_t i = 0; i < scene.links.size(); ++i) {
        const ReplayLink& link = scene.links[i];
        if (link.a < 0 || link.b < 0)
            continue;
        const QPointF a = mapFromScene(scene.nodes[static_cast<std::size_t>(link.a)].pos);
        const QPointF b = mapFromScene(scene.nodes[static_cast<std::size_t>(link.b)].pos);
        const QPointF d = b - a;
        const double length = std::hypot(d.x(), d.y());
        if (length < 1)
            continue;
        const QPointF normal(-d.y() / length, d.x() / length);
        for (int dir = 0; dir < 2; ++dir) {
            const auto& counts = m_linkRoleCounts[2 * i + static_cast<std::size_t>(dir)];
            int total = 0;
            std::size_t dominant = 0;
            for (std::size_t r = 0; r < counts.size(); ++r) {
                total += counts[r];
                if (counts[r] > counts[dominant])
                    dominant = r;
            }
            if (total == 0)
                continue;
            // Each direction gets its own side of the link; thickness is its share of the busiest direction.
            const double thickness = 3 + 10.0 * total / most;
            const QPointF shift = normal * ((dir == 0 ? 1 : -1) * (thickness / 2 + 3));
            QColor colour = messageRoleColor(static_cast<MessageRole>(dominant));
            colour.setAlpha(200);
            painter.setPen(QPen(colour, thickness, Qt::SolidLine, Qt::FlatCap));
            painter.drawLine(a + shift + d * 0.15, b + shift - d * 0.15);
            painter.setPen(palette().color(QPalette::Text));
            painter.drawText(a + d * 0.5 + shift * 3, QString::number(total));
        }
    }
}

const QPixmap& ReplayCanvas::iconFor(const QString& kind)
{
    auto it = m_icons.find(kind);
    if (it != m_icons.end())
        return *it;
    QPixmap pixmap;
    const QString path = QStringLiteral(":/icons/%1.svg").arg(kind);
    if (!kind.isEmpty() && QFile::exists(path)) {
        QSvgRenderer renderer(path);
        if (renderer.isValid()) {
            pixmap = QPixmap(kIconSize, kIconSize);
            pixmap.fill(Qt::transparent);
            QPainter p(&pixmap);
            renderer.render(&p);
        }
    }
    return *m_icons.insert(kind, pixmap);
}

void ReplayCanvas::paintNodes(QPainter& painter)
{
    const ReplayScene& scene = m_model->scene();
    const QColor text = palette().color(QPalette::Text);
    for (std::uint32_t n = 0; n < scene.nodes.size(); ++n) {
        const ReplayNode& node = scene.nodes[n];
        const QPointF c = mapFromScene(node.pos);
        const QRectF box(c.x() - kIconSize / 2.0, c.y() - kIconSize / 2.0, kIconSize, kIconSize);
        const QPixmap& icon = iconFor(node.kind);
        if (!icon.isNull()) {
            painter.drawPixmap(box.topLeft(), icon);
        } else {
            // No icon for this kind: a shape that still tells switches (round) from devices (square).
            painter.setPen(QPen(text, 1.5));
            painter.setBrush(palette().color(QPalette::Window));
            if (node.kind == QStringLiteral("switch"))
                painter.drawEllipse(box);
            else
                painter.drawRoundedRect(box, 6, 6);
        }
        painter.setPen(text);
        painter.drawText(QRectF(c.x() - 60, box.bottom() + 2, 120, 16), Qt::AlignHCenter | Qt::AlignTop, node.id);
        paintNodeBlocks(painter, n, QPointF(c.x(), box.bottom() + 18));
    }
}

void ReplayCanvas::paintNodeBlocks(QPainter& painter, std::uint32_t node, QPointF top)
{
    // One line under the node's name: the blocks its caches hold, by protocol state ("M 6  S 120"). A state
    // held for only part of the bucket averages below one block: left out rather than shown as "0".
    auto blocks = m_model->nodeBlocks(node, m_time);
    std::erase_if(blocks, [](const ReplayModel::StateBlocks& b) { return b.blocks < 0.5; });
    if (blocks.empty())
        return;
    QFont font = painter.font();
    font.setPointSizeF(font.pointSizeF() * 0.85);
    painter.save();
    painter.setFont(font);
    const QFontMetricsF metrics(font);
    std::vector<QString> parts;
    qreal width = 0;
    for (const auto& b : blocks) {
        parts.push_back(QStringLiteral("%1 %2").arg(b.state, blockCount(b.blocks)));
        width += metrics.horizontalAdvance(parts.back()) +
                 (parts.size() > 1 ? metrics.horizontalAdvance(QStringLiteral("  ")) : 0);
    }
    qreal x = top.x() - width / 2;
    for (std::size_t i = 0; i < blocks.size(); ++i) {
        if (i > 0)
            x += metrics.horizontalAdvance(QStringLiteral("  "));
        painter.setPen(stateColor(blocks[i].state));
        painter.drawText(QPointF(x, top.y() + metrics.ascent()), parts[i]);
        x += metrics.horizontalAdvance(parts[i]);
    }
    painter.restore();
}

void ReplayCanvas::paintEvent(QPaintEvent*)
{
    QPainter painter(this);
    paintFrame(painter, rect());
    ++m_frames;
}

void ReplayCanvas::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    if (!m_userZoomed)
        fitToView();
}

void ReplayCanvas::wheelEvent(QWheelEvent* event)
{
    const double steps = event->angleDelta().y() / 120.0;
    if (steps != 0)
        zoomBy(std::pow(1.2, steps), event->position());
    event->accept();
}

void ReplayCanvas::mousePressEvent(QMouseEvent* event)
{
    if (event->button() == Qt::LeftButton) {
        m_panning = true;
        m_panStart = event->position();
        setCursor(Qt::ClosedHandCursor);
    }
}

void ReplayCanvas::mouseMoveEvent(QMouseEvent* event)
{
    if (!m_panning)
        return;
    m_offset += event->position() - m_panStart;
    m_panStart = event->position();
    m_userZoomed = true;
    update();
}

void ReplayCanvas::mouseReleaseEvent(QMouseEvent* event)
{
    if (event->button() == Qt::LeftButton) {
        m_panning = false;
        unsetCursor();
    }
}

void ReplayCanvas::mouseDoubleClickEvent(QMouseEvent*)
{
    m_userZoomed = false;
    fitToView();
}

} // namespace coh::ui
