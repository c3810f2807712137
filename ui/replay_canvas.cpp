#include "ui/replay_canvas.h"

#include "ui/replay_canvas_style.h"
#include "ui/replay_labels.h"
#include "ui/replay_state_style.h"
#include "ui/theme.h"

#include <QFile>
#include <QMouseEvent>
#include <QPainter>
#include <QSvgRenderer>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>

namespace coh::ui {
namespace {

using namespace canvas;

constexpr double kFitMargin = 50;

QColor mix(const QColor& a, const QColor& b, double f)
{
    return QColor::fromRgbF(static_cast<float>(a.redF() + (b.redF() - a.redF()) * f),
                            static_cast<float>(a.greenF() + (b.greenF() - a.greenF()) * f),
                            static_cast<float>(a.blueF() + (b.blueF() - a.blueF()) * f));
}

} // namespace

ReplayCanvas::ReplayCanvas(QWidget* parent)
    : QWidget(parent)
{
    setMinimumSize(320, 240);
    setMouseTracking(false);
    setAutoFillBackground(false);
    // Clicking the canvas takes the keyboard focus into the replay, so its keys (Space, Home, End) work.
    setFocusPolicy(Qt::ClickFocus);
}

void ReplayCanvas::setModel(std::shared_ptr<const ReplayModel> model)
{
    m_model = std::move(model);
    m_time = 0;
    m_selected = -1;
    m_userZoomed = false;
    m_labelsValid = false;
    m_labelSizesValid = false;
    m_labelLayouts.clear();
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

void ReplayCanvas::setHiddenRoles(const std::array<bool, kMessageRoleCount>& hidden)
{
    m_hidden = hidden;
    update();
}

void ReplayCanvas::setSelectedMessage(int message)
{
    m_selected = message;
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
    // Room round the nodes' centres for their icons and, below the lowest and beside the outermost, their labels.
    updateLabelSizes();
    QSizeF largest;
    for (const QSizeF& s : m_labelSizes)
        largest = largest.expandedTo(s);
    const double side = std::max(kFitMargin, largest.width() / 2 + 4);
    const double below = std::max(kFitMargin, kIconSize / 2.0 + kLabelGap + largest.height() + 4);
    const QRectF box = m_model->scene().bounds();
    const double w = std::max(1.0, width() - 2 * side), h = std::max(1.0, height() - kFitMargin - below);
    m_scale = std::min(box.width() > 0 ? w / box.width() : 1.0, box.height() > 0 ? h / box.height() : 1.0);
    m_scale = std::clamp(m_scale, 0.01, 100.0);
    m_offset = QPointF(width() / 2.0, (height() + kFitMargin - below) / 2.0) - box.center() * m_scale;
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

QPointF ReplayCanvas::markerPos(std::uint32_t message) const
{
    const QPointF p = mapFromScene(m_model->marker(message, m_time).pos);
    return QPointF(qRound(p.x()) + markerOffsetX(message), qRound(p.y()) + markerOffsetY(message));
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
        const auto role = static_cast<std::size_t>(m_model->role(message));
        if (m_hidden[role])
            continue;
        const ReplayModel::Marker marker = m_model->marker(message, m_time);
        const QPointF p = mapFromScene(marker.pos);
        if (!visible.contains(p))
            continue;
        ++m_visibleMarkers;
        // Integer rectangles: the raster engine fills them about four times faster than QRectF ones.
        m_rectsByRole[role].append(QRect(qRound(p.x()) - half + markerOffsetX(message),
                                         qRound(p.y()) - half + markerOffsetY(message), kMarkerSize, kMarkerSize));
        if (marker.link >= 0)
            ++m_linkRoleCounts[2 * static_cast<std::size_t>(marker.link) + (marker.forward ? 0 : 1)][role];
    }
    m_aggregated = m_visibleMarkers > m_lodThreshold;
}

void ReplayCanvas::updateColours()
{
    const QPalette& p = palette();
    const std::pair<QRgb, QRgb> from(p.color(QPalette::Base).rgba(), p.color(QPalette::Text).rgba());
    if (m_coloursValid && from == m_coloursFor)
        return;
    for (int r = 0; r < kMessageRoleCount; ++r)
        m_roleColours[static_cast<std::size_t>(r)] = messageRoleColor(static_cast<MessageRole>(r), p);
    for (const BlockStateClass c :
         {BlockStateClass::Writable, BlockStateClass::Readable, BlockStateClass::Held, BlockStateClass::Empty})
        m_stateColours[static_cast<std::size_t>(c)] = blockStateColor(c, p);
    m_unknownStateColour = toneColor(Tone::Muted, p, p.color(QPalette::Base));
    // An idle link is a third of the way from the base to the text colour: visible on either palette.
    m_idleLink = mix(p.color(QPalette::Base), p.color(QPalette::Text), 0.35);
    // A label plate's hairline: lighter than an idle link, so a link running into a plate does not read as its edge.
    m_plateBorder = mix(p.color(QPalette::Base), p.color(QPalette::Text), 0.2);
    m_failure = toneColor(Tone::Error, p, p.color(QPalette::Base));
    m_failureText = textOn(m_failure);
    m_plateCache.clear();
    m_coloursFor = from;
    m_coloursValid = true;
}

void ReplayCanvas::paintFrame(QPainter& painter, const QRect& viewport)
{
    painter.fillRect(viewport, palette().color(QPalette::Base));
    m_badges.clear();
    m_downNodes.clear();
    if (!m_model)
        return;
    updateColours();
    updateLabels();
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
    paintSelection(painter);
}

void ReplayCanvas::paintLinks(QPainter& painter) const
{
    const ReplayScene& scene = m_model->scene();
    const QColor busy(0xD5, 0x5E, 0x00);
    for (std::size_t i = 0; i < scene.links.size(); ++i) {
        const ReplayLink& link = scene.links[i];
        if (link.a < 0 || link.b < 0)
            continue;
        const double u = std::clamp(m_model->linkUtilization(static_cast<int>(i), m_time), 0.0, 1.0);
        // Flat caps: antialiased round caps cost ten times more in the raster engine (measured, see gui-replay.md).
        // A link that is down is dashed in the error tone, as a node that is down is hatched.
        if (m_model->linkFailureAt(static_cast<int>(i), m_time))
            painter.setPen(QPen(m_failure, 2, Qt::DashLine, Qt::FlatCap));
        else
            painter.setPen(QPen(mix(m_idleLink, busy, u), 2 + 6 * u, Qt::SolidLine, Qt::FlatCap));
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
        painter.setBrush(m_roleColours[static_cast<std::size_t>(r)]);
        if (m_drawing == MarkerDrawing::Batched) {
            painter.drawRects(rects);
        } else {
            for (const QRect& rect : rects)
                painter.drawRect(rect);
        }
    }
}

void ReplayCanvas::paintSelection(QPainter& painter) const
{
    if (m_selected < 0 || static_cast<std::size_t>(m_selected) >= m_model->run()->messages.size())
        return;
    const auto id = static_cast<std::uint32_t>(m_selected);
    const core::MessageRecord& m = m_model->run()->messages[id];
    const QColor highlight = palette().color(QPalette::Highlight);
    painter.setRenderHint(QPainter::Antialiasing, true);
    // Its route, so the eye finds where it goes even before or after it is in flight.
    QPolygonF route = m_model->polyline(id);
    for (QPointF& p : route)
        p = mapFromScene(p);
    painter.setPen(QPen(highlight, 2, Qt::DashLine, Qt::FlatCap));
    painter.setBrush(Qt::NoBrush);
    painter.drawPolyline(route);
    if (m.start <= m_time && m_time < m.end) {
        painter.setPen(QPen(highlight, 2));
        painter.drawEllipse(markerPos(id), kMarkerSize + 1.0, kMarkerSize + 1.0);
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
            QColor colour = m_roleColours[dominant];
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
    // Leaders, then icons, then the label plates: a plate covers whatever link or leader passes under it. The badges
    // of nodes that are down go last, over everything but the messages.
    layoutLabels();
    paintLeaders(painter);
    const ReplayScene& scene = m_model->scene();
    const QColor text = palette().color(QPalette::Text);
    for (std::uint32_t n = 0; n < scene.nodes.size(); ++n) {
        const ReplayNode& node = scene.nodes[n];
        const QPointF c = mapFromScene(node.pos);
        const QRectF box(c.x() - kIconSize / 2.0, c.y() - kIconSize / 2.0, kIconSize, kIconSize);
        const ReplayModel::Failure* failure = m_model->nodeFailureAt(n, m_time);
        // A node that is down fades to a ghost of itself under a hatching in the error tone, on a background that
        // hides the links running into it.
        const QRectF downBox = box.adjusted(-3, -3, 3, 3);
        if (failure) {
            painter.setPen(Qt::NoPen);
            painter.setBrush(palette().color(QPalette::Base));
            painter.drawRoundedRect(downBox, 5, 5);
        }
        painter.setOpacity(failure ? 0.3 : 1.0);
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
        painter.setOpacity(1.0);
        if (failure) {
            painter.setPen(QPen(m_failure, 2));
            painter.setBrush(QBrush(m_failure, Qt::BDiagPattern));
            painter.drawRoundedRect(downBox, 5, 5);
            m_downNodes.push_back(
                {n, failure->detectedAt(m_time), {}, failure->detectedAt(m_time) ? tr("down · detected") : tr("down")});
        }
    }
    paintLabels(painter);
    paintDownBadges(painter);
}

void ReplayCanvas::paintDownBadges(QPainter& painter)
{
    // A filled pill above the icon (its label is below), in the error tone: it reads at a glance when scrubbing.
    if (m_downNodes.empty())
        return;
    QFont bold = badgeFont(font());
    bold.setBold(true);
    const QFontMetricsF metrics(bold);
    painter.setFont(bold);
    for (DownNode& down : m_downNodes) {
        const QPointF c = mapFromScene(m_model->scene().nodes[down.node].pos);
        const QSizeF size(std::ceil(metrics.horizontalAdvance(down.text)) + 4 * kPlatePadX,
                          std::ceil(metrics.height()) + 2 * kPlatePadY);
        down.badge = QRectF(
            QPointF(std::round(c.x() - size.width() / 2), std::round(c.y() - kIconSize / 2.0 - 5 - size.height())),
            size);
        painter.setPen(Qt::NoPen);
        painter.setBrush(m_failure);
        painter.drawRoundedRect(down.badge, size.height() / 2, size.height() / 2);
        painter.setPen(m_failureText);
        painter.drawText(down.badge, Qt::AlignCenter, down.text);
    }
    painter.setFont(font());
}

void ReplayCanvas::paintEvent(QPaintEvent*)
{
    QPainter painter(this);
    paintFrame(painter, rect());
    ++m_frames;
}

void ReplayCanvas::changeEvent(QEvent* event)
{
    // A new font changes every label's size, so their places and the fit that leaves room for them.
    if (event->type() == QEvent::FontChange) {
        m_labelSizesValid = false;
        m_labelsValid = false;
        m_labelLayouts.clear(); // their texts' widths too
        if (!m_userZoomed)
            fitToView();
    }
    QWidget::changeEvent(event);
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
        m_dragged = false;
        m_panStart = m_pressAt = event->position();
    }
}

void ReplayCanvas::mouseMoveEvent(QMouseEvent* event)
{
    if (!m_panning)
        return;
    // A few pixels of wobble still count as a click.
    if (!m_dragged && QLineF(m_pressAt, event->position()).length() < 4)
        return;
    if (!m_dragged)
        setCursor(Qt::ClosedHandCursor);
    m_dragged = true;
    m_offset += event->position() - m_panStart;
    m_panStart = event->position();
    m_userZoomed = true;
    update();
}

void ReplayCanvas::mouseReleaseEvent(QMouseEvent* event)
{
    if (event->button() != Qt::LeftButton || !m_panning)
        return;
    m_panning = false;
    unsetCursor();
    if (!m_dragged)
        emit messageClicked(messageAt(event->position()));
}

void ReplayCanvas::mouseDoubleClickEvent(QMouseEvent*)
{
    m_userZoomed = false;
    fitToView();
}

} // namespace coh::ui
