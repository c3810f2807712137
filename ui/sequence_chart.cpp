#include "ui/sequence_chart.h"

#include "core/coherence/protocol_table.h"
#include "ui/lab_model.h"
#include "ui/message_roles.h"
#include "ui/qt_text.h"
#include "ui/theme.h"

#include <QEvent>
#include <QFontMetricsF>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>

#include <algorithm>
#include <cmath>

namespace coh::ui {

namespace co = core::coherence;

namespace {

constexpr int kHeader = 8; // the names are in SequenceChartHeader
constexpr int kRow = 34;
constexpr int kMargin = 36;       // step numbers on the left
constexpr int kMinColumn = 64;    // below this the op boxes and names no longer fit
constexpr int kIdealColumn = 120; // what sizeHint asks for
constexpr qreal kHitDistance = 6;

QColor roleColor(co::MessageRole role)
{
    return messageRoleColor(messageRoleOf(role));
}

qreal distanceToSegment(const QLineF& line, const QPointF& p)
{
    const QPointF d = line.p2() - line.p1();
    const qreal len2 = d.x() * d.x() + d.y() * d.y();
    qreal t = len2 > 0 ? QPointF::dotProduct(p - line.p1(), d) / len2 : 0;
    t = std::clamp<qreal>(t, 0, 1);
    const QPointF q = line.p1() + t * d;
    return std::hypot(p.x() - q.x(), p.y() - q.y());
}

qreal overlapArea(const QRectF& r, const std::vector<QRectF>& taken)
{
    qreal area = 0;
    for (const QRectF& t : taken) {
        const QRectF i = r.intersected(t);
        area += i.isEmpty() ? 0 : i.width() * i.height();
    }
    return area;
}

} // namespace

SequenceChart::SequenceChart(LabModel* lab, QWidget* parent)
    : QWidget(parent)
    , m_lab(lab)
{
    setBackgroundRole(QPalette::Base);
    setAutoFillBackground(true);
    connect(m_lab, &LabModel::changed, this, &SequenceChart::reload);
    reload();
}

int SequenceChart::lifelineCount() const
{
    return m_lab->caches() + 1;
}

QString SequenceChart::lifelineName(int lifeline) const
{
    return lifeline == m_lab->caches() ? toQString(co::homeName(m_lab->protocol().home))
                                       : QStringLiteral("P%1").arg(lifeline);
}

qreal SequenceChart::column() const
{
    return std::max<qreal>(kMinColumn, (width() - kMargin) / static_cast<qreal>(lifelineCount()));
}

qreal SequenceChart::lifelineX(int lifeline) const
{
    return kMargin + column() * (lifeline + 0.5);
}

qreal SequenceChart::nameWidth() const
{
    return std::min<qreal>(60, column() - 8);
}

int SequenceChart::rowY(int step) const
{
    return kHeader + kRow * step + kRow / 2;
}

QRectF SequenceChart::opBox(int step) const
{
    const co::StepRecord& s = m_lab->step(step);
    const qreal x = lifelineX(lifelineOf(s.actor, m_lab->caches()));
    const qreal w = std::min<qreal>(52, column() - 12);
    return {x - w / 2, rowY(step) - 11.0, w, 22};
}

QSize SequenceChart::sizeHint() const
{
    return {kMargin + kIdealColumn * lifelineCount(), rowY(m_lab->stepCount()) + kRow};
}

QSize SequenceChart::minimumSizeHint() const
{
    return {kMargin + kMinColumn * lifelineCount(), rowY(m_lab->stepCount()) + kRow};
}

void SequenceChart::reload()
{
    m_flows = buildMessageFlows(m_lab->protocol(), m_lab->caches(), m_lab->run().steps);
    // Height grows with the run; the width follows the scroll area's viewport down to the minimum.
    setMinimumSize(minimumSizeHint());
    layoutArrows();
    update();
}

void SequenceChart::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    layoutArrows();
}

void SequenceChart::changeEvent(QEvent* event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::FontChange)
        layoutArrows();
}

void SequenceChart::layoutArrows()
{
    const int current = m_lab->currentStep();
    m_arrows.clear();
    int flightIndex = 0;
    for (const MessageFlow& flow : m_flows) {
        if (flow.sentAt > current)
            continue;
        Arrow a;
        a.flow = flow;
        a.inFlight = flow.deliveredAt < 0 || flow.deliveredAt > current;
        a.emphasised = flow.sentAt == current || flow.deliveredAt == current;
        // Messages in flight keep their send order in core's network, so the k-th one here is the lab's #k.
        if (a.inFlight && !m_lab->isTrace())
            a.flightIndex = flightIndex++;
        // In flight: the arrow stops just under the current row, pointing at where it will land.
        const qreal endY = a.inFlight ? rowY(current) + kRow * 0.45 : rowY(flow.deliveredAt);
        a.line = QLineF(lifelineX(flow.from), rowY(flow.sentAt), lifelineX(flow.to), endY);
        a.label = flow.detail.isEmpty() ? flow.kind : QStringLiteral("%1 (%2)").arg(flow.kind, flow.detail);
        if (a.flightIndex >= 0)
            a.label = QStringLiteral("#%1 %2").arg(a.flightIndex).arg(a.label);
        m_arrows.push_back(a);
    }
    placeLabels();
}

void SequenceChart::placeLabels()
{
    // Labels are placed in send order, so a label never moves when later steps are shown. Each takes the first
    // free place along its arrow, above or below it; op boxes and the lifeline names count as taken.
    QFont bold = font();
    bold.setBold(true);
    const QFontMetricsF metrics(bold);
    std::vector<QRectF> taken;
    for (int s = 1; s <= m_lab->currentStep(); ++s)
        if (!m_lab->step(s).op.empty())
            taken.push_back(opBox(s));
    // Nearest the arrow first (just above or below it, anywhere along it), then a line further out, and so on.
    static constexpr qreal kAlong[] = {0.5, 0.3, 0.7, 0.15, 0.85, 0.4, 0.6};
    static constexpr int kLevels[] = {-1, 1, -2, 2, -3, 3};
    for (Arrow& a : m_arrows) {
        const qreal w = metrics.horizontalAdvance(a.label) + 6;
        const qreal h = metrics.height();
        QRectF best;
        qreal bestOverlap = -1;
        for (int level : kLevels) {
            for (qreal t : kAlong) {
                const QPointF at = a.line.pointAt(t);
                const qreal x = std::clamp<qreal>(at.x() - w / 2, 0, std::max<qreal>(0, width() - w));
                const qreal y = level < 0 ? at.y() - 1 - h * -level : at.y() + 1 + h * (level - 1);
                const QRectF r(x, std::max<qreal>(0, y), w, h);
                const qreal overlap = overlapArea(r, taken);
                if (bestOverlap < 0 || overlap < bestOverlap) {
                    best = r;
                    bestOverlap = overlap;
                }
                if (overlap == 0)
                    break;
            }
            if (bestOverlap == 0)
                break;
        }
        a.labelRect = best;
        taken.push_back(best);
    }
    emit laidOut();
}

void SequenceChart::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    const QPalette pal = palette();
    const QColor base = pal.color(QPalette::Base);
    const int current = m_lab->currentStep();
    const int bottom = rowY(m_lab->stepCount()) + kRow;

    // Current row band.
    p.fillRect(QRectF(0, rowY(current) - kRow / 2.0, width(), kRow), pal.color(QPalette::AlternateBase));

    // Lifelines (their names are in the header above the scroll area).
    p.setPen(QPen(pal.color(QPalette::Mid), 1, Qt::DashLine));
    for (int l = 0; l < lifelineCount(); ++l)
        p.drawLine(QPointF(lifelineX(l), 0), QPointF(lifelineX(l), bottom));

    // Step numbers (future steps faint, still clickable), and processor ops as boxes on their lifeline.
    for (int s = 1; s <= m_lab->stepCount(); ++s) {
        const co::StepRecord& step = m_lab->step(s);
        p.setPen(s <= current ? pal.color(QPalette::Text) : toneColor(Tone::Muted, pal, base));
        QFont font = p.font();
        font.setBold(s == current);
        p.setFont(font);
        p.drawText(QRectF(2, rowY(s) - kRow / 2.0, kMargin - 6, kRow), Qt::AlignRight | Qt::AlignVCenter,
                   QString::number(s));
        font.setBold(false);
        p.setFont(font);
        if (step.op.empty() || s > current)
            continue;
        p.setPen(QPen(pal.color(QPalette::Text), s == current ? 2 : 1));
        p.setBrush(pal.color(QPalette::Window));
        p.drawRect(opBox(s));
        p.setPen(pal.color(QPalette::WindowText));
        p.drawText(opBox(s), Qt::AlignCenter, toQString(step.event));
    }

    // Messages, the current step's last so they sit on top; labels after all lines, so no line crosses a label.
    for (int pass = 0; pass < 2; ++pass) {
        for (const Arrow& a : m_arrows) {
            if (a.emphasised != (pass == 1))
                continue;
            const QColor color = roleColor(a.flow.role);
            p.setPen(QPen(color, a.emphasised ? 3 : 1.5, a.inFlight ? Qt::DashLine : Qt::SolidLine));
            p.drawLine(a.line);
            // A delivered message has a filled head; one still in flight an open one, as it has not landed.
            const qreal angle = std::atan2(a.line.dy(), a.line.dx());
            const QPointF tip = a.line.p2();
            const qreal size = a.emphasised ? 11 : 8;
            QPainterPath head(tip - QPointF(size * std::cos(angle - 0.4), size * std::sin(angle - 0.4)));
            head.lineTo(tip);
            head.lineTo(tip - QPointF(size * std::cos(angle + 0.4), size * std::sin(angle + 0.4)));
            if (a.inFlight) {
                p.setPen(QPen(color, a.emphasised ? 2.5 : 1.5, Qt::SolidLine));
                p.setBrush(Qt::NoBrush);
                p.drawPath(head);
            } else {
                head.closeSubpath();
                p.fillPath(head, color);
            }
        }
    }
    for (const Arrow& a : m_arrows) {
        QColor behind = base;
        behind.setAlpha(225);
        p.fillRect(a.labelRect, behind);
        QFont font = p.font();
        font.setBold(a.emphasised);
        p.setFont(font);
        p.setPen(readableOn(roleColor(a.flow.role), base));
        p.drawText(a.labelRect, Qt::AlignCenter, a.label);
    }
}

void SequenceChart::mousePressEvent(QMouseEvent* event)
{
    const QPointF pos = event->position();
    // An arrow takes the click before the row under it: it selects the step that delivers the message.
    for (auto it = m_arrows.rbegin(); it != m_arrows.rend(); ++it) {
        if (distanceToSegment(it->line, pos) <= kHitDistance || it->labelRect.contains(pos)) {
            emit stepActivated(it->inFlight ? it->flow.sentAt : it->flow.deliveredAt);
            return;
        }
    }
    const int step = static_cast<int>(std::floor((pos.y() - kHeader) / kRow));
    if (step >= 0 && step <= m_lab->stepCount())
        emit stepActivated(step);
}

} // namespace coh::ui
