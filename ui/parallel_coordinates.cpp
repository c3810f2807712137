#include "ui/parallel_coordinates.h"

#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QToolTip>

#include <algorithm>
#include <cmath>
#include <limits>

namespace coh::ui {

namespace {

constexpr double kPickPixels = 5;  // how near the cursor a line must pass to be picked
constexpr double kAxisPixels = 10; // how near an axis a press starts a brush
constexpr double kClickPixels = 3; // a drag shorter than this is a click

double distanceToSegment(const QPointF& p, const QPointF& a, const QPointF& b)
{
    const QPointF ab = b - a;
    const double length2 = QPointF::dotProduct(ab, ab);
    const double t = length2 > 0 ? std::clamp(QPointF::dotProduct(p - a, ab) / length2, 0.0, 1.0) : 0.0;
    const QPointF nearest = a + t * ab;
    return std::hypot(p.x() - nearest.x(), p.y() - nearest.y());
}

// Drawn last (on top) and picked first: the front, then the points meeting the constraints.
int rank(ParallelLine::Kind kind)
{
    return kind == ParallelLine::Kind::Front ? 2 : kind == ParallelLine::Kind::Feasible ? 1 : 0;
}

QString compact(double v)
{
    if (v != 0 && (std::abs(v) >= 1e5 || std::abs(v) < 1e-3))
        return QString::number(v, 'g', 3);
    return QString::number(v, 'f', std::abs(v) >= 100 ? 0 : std::abs(v) >= 10 ? 1 : 2);
}

} // namespace

ParallelCoordinatesView::ParallelCoordinatesView(QWidget* parent)
    : QWidget(parent)
{
    setMouseTracking(true);
    setAttribute(Qt::WA_OpaquePaintEvent, false);
}

void ParallelCoordinatesView::setData(std::vector<ParallelAxis> axes, std::vector<ParallelLine> lines)
{
    std::vector<std::optional<std::pair<double, double>>> brushes(axes.size());
    for (std::size_t i = 0; i < axes.size(); ++i)
        for (std::size_t j = 0; j < m_axes.size() && j < m_brushes.size(); ++j)
            if (m_axes[j].title == axes[i].title)
                brushes[i] = m_brushes[j];
    m_axes = std::move(axes);
    m_lines = std::move(lines);
    m_brushes = std::move(brushes);
    m_hover = -1;
    updateRanges();
    update();
    emit brushesChanged(passingCount());
}

void ParallelCoordinatesView::setKindColors(const QColor& front, const QColor& feasible)
{
    m_front = front;
    m_feasible = feasible;
    update();
}

void ParallelCoordinatesView::updateRanges()
{
    m_ranges.assign(m_axes.size(), {0.0, 0.0});
    for (std::size_t a = 0; a < m_axes.size(); ++a) {
        double lo = std::numeric_limits<double>::infinity(), hi = -lo;
        for (const ParallelLine& line : m_lines)
            if (a < line.values.size() && std::isfinite(line.values[a])) {
                lo = std::min(lo, line.values[a]);
                hi = std::max(hi, line.values[a]);
            }
        m_ranges[a] = std::isfinite(lo) ? std::pair{lo, hi} : std::pair{0.0, 0.0};
    }
}

void ParallelCoordinatesView::setBrush(int axis, std::optional<std::pair<double, double>> range)
{
    if (axis < 0 || axis >= static_cast<int>(m_brushes.size()))
        return;
    if (range && range->first > range->second)
        std::swap(range->first, range->second);
    m_brushes[static_cast<std::size_t>(axis)] = range;
    update();
    emit brushesChanged(passingCount());
}

std::optional<std::pair<double, double>> ParallelCoordinatesView::brush(int axis) const
{
    return axis >= 0 && axis < static_cast<int>(m_brushes.size()) ? m_brushes[static_cast<std::size_t>(axis)]
                                                                  : std::nullopt;
}

void ParallelCoordinatesView::clearBrushes()
{
    std::fill(m_brushes.begin(), m_brushes.end(), std::nullopt);
    update();
    emit brushesChanged(passingCount());
}

bool ParallelCoordinatesView::passes(int line) const
{
    for (std::size_t a = 0; a < m_brushes.size(); ++a) {
        if (!m_brushes[a])
            continue;
        const double f = fraction(static_cast<int>(a), m_lines[static_cast<std::size_t>(line)].values[a]);
        if (!(f >= m_brushes[a]->first && f <= m_brushes[a]->second))
            return false; // NaN (no value) never passes a brush
    }
    return true;
}

int ParallelCoordinatesView::passingCount() const
{
    int n = 0;
    for (int i = 0; i < static_cast<int>(m_lines.size()); ++i)
        n += passes(i);
    return n;
}

QRectF ParallelCoordinatesView::plotRect() const
{
    const QFontMetrics fm(font());
    // Titles (two lines) and the top values above, the bottom values below; at the sides room for the end axes'
    // titles and category labels.
    const double top = (oneLineTitles() ? 2.2 : 3.6) * fm.height() + 6,
                 bottom = (oneLineTitles() ? 1.2 : 1.6) * fm.height();
    const double side = std::clamp(width() / 12.0, 48.0, 110.0);
    return QRectF(side, top, width() - 2 * side - 40, height() - top - bottom);
}

double ParallelCoordinatesView::axisX(int axis) const
{
    const QRectF r = plotRect();
    const int n = static_cast<int>(m_axes.size());
    return n <= 1 ? r.center().x() : r.left() + r.width() * axis / (n - 1);
}

double ParallelCoordinatesView::fraction(int axis, double value) const
{
    if (!std::isfinite(value))
        return std::numeric_limits<double>::quiet_NaN();
    const ParallelAxis& a = m_axes[static_cast<std::size_t>(axis)];
    double f = 0.5;
    if (!a.categories.isEmpty()) {
        f = (value + 0.5) / a.categories.size();
    } else {
        const auto [lo, hi] = m_ranges[static_cast<std::size_t>(axis)];
        if (a.logScale && lo > 0 && value > 0 && hi > lo)
            f = std::log(value / lo) / std::log(hi / lo);
        else if (hi > lo)
            f = (value - lo) / (hi - lo);
    }
    return a.smallerAtTop ? 1.0 - f : f;
}

double ParallelCoordinatesView::fractionAtY(double y) const
{
    const QRectF r = plotRect();
    return r.height() > 0 ? std::clamp((r.bottom() - y) / r.height(), 0.0, 1.0) : 0.0;
}

QPointF ParallelCoordinatesView::pointOf(int line, int axis) const
{
    const QRectF r = plotRect();
    const double f = fraction(axis, m_lines[static_cast<std::size_t>(line)].values[static_cast<std::size_t>(axis)]);
    return {axisX(axis), r.bottom() - f * r.height()};
}

int ParallelCoordinatesView::axisNear(double x) const
{
    for (int a = 0; a < static_cast<int>(m_axes.size()); ++a)
        if (std::abs(axisX(a) - x) <= kAxisPixels)
            return a;
    return -1;
}

int ParallelCoordinatesView::lineAt(const QPointF& at) const
{
    int best = -1;
    double bestDistance = kPickPixels;
    int bestRank = -1;
    for (int i = 0; i < static_cast<int>(m_lines.size()); ++i) {
        if (!passes(i))
            continue;
        double d = std::numeric_limits<double>::infinity();
        for (int a = 0; a + 1 < static_cast<int>(m_axes.size()); ++a) {
            const QPointF p = pointOf(i, a), q = pointOf(i, a + 1);
            if (std::isfinite(p.y()) && std::isfinite(q.y()))
                d = std::min(d, distanceToSegment(at, p, q));
        }
        const int r = rank(m_lines[static_cast<std::size_t>(i)].kind);
        if (d <= kPickPixels && (r > bestRank || (r == bestRank && d < bestDistance))) {
            best = i;
            bestRank = r;
            bestDistance = d;
        }
    }
    return best;
}

QString ParallelCoordinatesView::valueText(int axis, double value) const
{
    if (!std::isfinite(value))
        return tr("none");
    const ParallelAxis& a = m_axes[static_cast<std::size_t>(axis)];
    if (!a.categories.isEmpty()) {
        const int index = static_cast<int>(value);
        return index >= 0 && index < a.categories.size() ? a.categories[index] : QString::number(value);
    }
    return compact(value);
}

void ParallelCoordinatesView::paintAxis(QPainter& painter, int axis) const
{
    const QRectF r = plotRect();
    const double x = axisX(axis);
    const ParallelAxis& a = m_axes[static_cast<std::size_t>(axis)];
    const QColor text = palette().color(QPalette::Text);
    painter.setPen(QPen(text, 1.2));
    painter.drawLine(QPointF(x, r.top()), QPointF(x, r.bottom()));
    const QFontMetrics fm(font());
    const double slot = m_axes.size() > 1 ? r.width() / static_cast<double>(m_axes.size() - 1) : r.width();
    const double labelWidth = std::min(std::max(60.0, slot - 6), width() - 4.0);
    // Centred on its axis, but kept inside the widget (the end axes' titles would be cut).
    const double left = std::clamp(x - labelWidth / 2, 2.0, width() - 2.0 - labelWidth);
    if (oneLineTitles()) { // one line, elided: the plot keeps its height
        painter.drawText(QRectF(left, 2, labelWidth, fm.height()), Qt::AlignHCenter | Qt::AlignBottom,
                         fm.elidedText(a.title, Qt::ElideMiddle, static_cast<int>(labelWidth)));
    } else {
        painter.drawText(QRectF(left, 2, labelWidth, 2.4 * fm.height()),
                         Qt::AlignHCenter | Qt::AlignBottom | Qt::TextWrapAnywhere, a.title);
    }
    const auto at = [&](double f) { return r.bottom() - f * r.height(); };
    QColor backing = palette().color(QPalette::Base);
    backing.setAlpha(200);
    const auto label = [&](double f, const QString& s) {
        // On a wash of the background: the lines under a label stay visible, the label stays readable.
        const QRectF box(x + 4, at(f) - fm.height() / 2.0, fm.horizontalAdvance(s) + 4, fm.height());
        painter.fillRect(box, backing);
        painter.drawText(box, Qt::AlignLeft | Qt::AlignVCenter, s);
    };
    if (!a.categories.isEmpty()) {
        for (int c = 0; c < a.categories.size(); ++c) {
            const double f = fraction(axis, c);
            painter.drawLine(QPointF(x - 3, at(f)), QPointF(x + 3, at(f)));
            label(f, fm.elidedText(a.categories[c], Qt::ElideRight, static_cast<int>(slot * 0.45)));
        }
    } else {
        const auto [lo, hi] = m_ranges[static_cast<std::size_t>(axis)];
        const QString top = compact(a.smallerAtTop ? lo : hi), bottom = compact(a.smallerAtTop ? hi : lo);
        painter.drawText(QRectF(x - 40, r.top() - fm.height() - 1, 80, fm.height()), Qt::AlignCenter, top);
        painter.drawText(QRectF(x - 40, r.bottom() + 2, 80, fm.height()), Qt::AlignCenter, bottom);
    }
    if (const auto& b = m_brushes[static_cast<std::size_t>(axis)]) {
        QColor fill = palette().color(QPalette::Highlight);
        fill.setAlpha(70);
        painter.setPen(QPen(palette().color(QPalette::Highlight), 1));
        painter.setBrush(fill);
        painter.drawRect(QRectF(x - 7, at(b->second), 14, at(b->first) - at(b->second)));
        painter.setBrush(Qt::NoBrush);
    }
}

void ParallelCoordinatesView::paintEvent(QPaintEvent*)
{
    QPainter painter(this);
    painter.setRenderHint(QPainter::Antialiasing);
    painter.fillRect(rect(), palette().color(QPalette::Base));
    if (m_axes.empty() || m_lines.empty()) {
        painter.setPen(palette().color(QPalette::PlaceholderText));
        painter.drawText(rect(), Qt::AlignCenter | Qt::TextWordWrap,
                         tr("Run a study: each point becomes a line across its fields and objectives."));
        return;
    }
    QColor text = palette().color(QPalette::Text);
    QColor other = text, dimmed = text;
    other.setAlpha(70);
    dimmed.setAlpha(18);
    const QColor feasible = m_feasible, front = m_front;
    // Lines out of the brushes first, then in rank order, so what matters is drawn on top.
    std::vector<int> order(m_lines.size());
    for (std::size_t i = 0; i < order.size(); ++i)
        order[i] = static_cast<int>(i);
    std::vector<char> in(m_lines.size());
    for (std::size_t i = 0; i < in.size(); ++i)
        in[i] = passes(static_cast<int>(i));
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
        const auto key = [&](int i) {
            return std::pair(in[static_cast<std::size_t>(i)] ? 1 : 0, rank(m_lines[static_cast<std::size_t>(i)].kind));
        };
        return key(a) < key(b);
    });
    for (const int i : order) {
        const ParallelLine& line = m_lines[static_cast<std::size_t>(i)];
        QColor color = !in[static_cast<std::size_t>(i)]            ? dimmed
                       : line.kind == ParallelLine::Kind::Front    ? front
                       : line.kind == ParallelLine::Kind::Feasible ? feasible
                                                                   : other;
        double width = line.kind == ParallelLine::Kind::Front && in[static_cast<std::size_t>(i)] ? 2.2 : 1.2;
        if (i == m_hover) {
            color.setAlpha(255);
            width += 1.5;
        }
        painter.setPen(QPen(color, width));
        QPainterPath path;
        bool open = false;
        for (int a = 0; a < static_cast<int>(m_axes.size()); ++a) {
            const QPointF p = pointOf(i, a);
            if (!std::isfinite(p.y())) {
                open = false;
                continue;
            }
            open ? path.lineTo(p) : path.moveTo(p);
            open = true;
        }
        painter.drawPath(path);
    }
    for (int a = 0; a < static_cast<int>(m_axes.size()); ++a)
        paintAxis(painter, a);
}

void ParallelCoordinatesView::mousePressEvent(QMouseEvent* event)
{
    if (event->button() != Qt::LeftButton)
        return;
    m_pressAt = event->position();
    const QRectF r = plotRect().adjusted(0, -4, 0, 4);
    m_dragAxis = r.contains(m_pressAt) ? axisNear(m_pressAt.x()) : -1;
    m_dragFrom = fractionAtY(m_pressAt.y());
}

void ParallelCoordinatesView::mouseMoveEvent(QMouseEvent* event)
{
    const QPointF at = event->position();
    if (m_dragAxis >= 0 && (event->buttons() & Qt::LeftButton)) {
        if (std::abs(at.y() - m_pressAt.y()) >= kClickPixels)
            setBrush(m_dragAxis, std::pair{m_dragFrom, fractionAtY(at.y())});
        return;
    }
    const int hover = lineAt(at);
    if (hover != m_hover) {
        m_hover = hover;
        update();
    }
    if (hover < 0) {
        QToolTip::hideText();
        return;
    }
    QStringList rows;
    const ParallelLine& line = m_lines[static_cast<std::size_t>(hover)];
    for (int a = 0; a < static_cast<int>(m_axes.size()); ++a)
        rows << QStringLiteral("%1: %2").arg(m_axes[static_cast<std::size_t>(a)].title,
                                             valueText(a, line.values[static_cast<std::size_t>(a)]));
    if (line.runId > 0)
        rows << tr("click to open run %1").arg(line.runId);
    QToolTip::showText(event->globalPosition().toPoint(), rows.join(QLatin1Char('\n')), this);
}

void ParallelCoordinatesView::mouseReleaseEvent(QMouseEvent* event)
{
    if (event->button() != Qt::LeftButton)
        return;
    const QPointF at = event->position();
    const bool click = std::hypot(at.x() - m_pressAt.x(), at.y() - m_pressAt.y()) < kClickPixels;
    if (m_dragAxis >= 0) {
        if (click)
            setBrush(m_dragAxis, std::nullopt); // a click on an axis clears its range
        m_dragAxis = -1;
        return;
    }
    if (click) {
        const int line = lineAt(at);
        if (line >= 0 && m_lines[static_cast<std::size_t>(line)].runId > 0)
            emit lineClicked(m_lines[static_cast<std::size_t>(line)].runId);
    }
}

void ParallelCoordinatesView::leaveEvent(QEvent*)
{
    if (m_hover >= 0) {
        m_hover = -1;
        update();
    }
}

} // namespace coh::ui
