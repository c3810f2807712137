#include "ui/sequence_chart.h"

#include "core/coherence/protocol_table.h"
#include "ui/lab_model.h"
#include "ui/message_roles.h"
#include "ui/qt_text.h"

#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>

#include <algorithm>
#include <cmath>

namespace coh::ui {

namespace co = core::coherence;

namespace {

constexpr int kHeader = 36;
constexpr int kRow = 34;
constexpr int kMargin = 44; // step numbers on the left
constexpr int kMinColumn = 120;
constexpr qreal kHitDistance = 6;

QColor roleColor(co::MessageRole role)
{
    return messageRoleColor(messageRoleFromName(co::messageRoleName(role)));
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

int SequenceChart::lifelines() const
{
    return m_lab->caches() + 1;
}

qreal SequenceChart::lifelineX(int lifeline) const
{
    const qreal column = std::max<qreal>(kMinColumn, (width() - kMargin) / static_cast<qreal>(lifelines()));
    return kMargin + column * (lifeline + 0.5);
}

int SequenceChart::rowY(int step) const
{
    return kHeader + kRow * step + kRow / 2;
}

QSize SequenceChart::sizeHint() const
{
    return {kMargin + kMinColumn * lifelines(), rowY(m_lab->stepCount()) + kRow};
}

void SequenceChart::reload()
{
    m_flows = buildMessageFlows(m_lab->protocol(), m_lab->caches(), m_lab->run().steps);
    setMinimumSize(sizeHint());
    layoutArrows();
    update();
}

void SequenceChart::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    layoutArrows();
}

void SequenceChart::layoutArrows()
{
    const int current = m_lab->currentStep();
    m_arrows.clear();
    for (const MessageFlow& flow : m_flows) {
        if (flow.sentAt > current)
            continue;
        Arrow a;
        a.flow = flow;
        a.inFlight = flow.deliveredAt < 0 || flow.deliveredAt > current;
        a.emphasised = flow.sentAt == current || flow.deliveredAt == current;
        // In flight: the arrow stops just under the current row, pointing at where it will land.
        const qreal endY = a.inFlight ? rowY(current) + kRow * 0.45 : rowY(flow.deliveredAt);
        a.line = QLineF(lifelineX(flow.from), rowY(flow.sentAt), lifelineX(flow.to), endY);
        m_arrows.push_back(a);
    }
}

void SequenceChart::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    const int current = m_lab->currentStep();
    const int bottom = rowY(m_lab->stepCount()) + kRow;

    // Current row band.
    p.fillRect(QRectF(0, rowY(current) - kRow / 2.0, width(), kRow), palette().color(QPalette::AlternateBase));

    // Lifelines and their names.
    for (int l = 0; l < lifelines(); ++l) {
        const qreal x = lifelineX(l);
        p.setPen(QPen(palette().color(QPalette::Mid), 1, Qt::DashLine));
        p.drawLine(QPointF(x, kHeader), QPointF(x, bottom));
        const QString name =
            l == m_lab->caches() ? toQString(co::homeName(m_lab->protocol().home)) : QStringLiteral("P%1").arg(l);
        QRectF box(x - 30, 6, 60, kHeader - 12);
        p.setPen(palette().color(QPalette::Text));
        p.setBrush(palette().color(QPalette::Button));
        p.drawRoundedRect(box, 4, 4);
        p.drawText(box, Qt::AlignCenter, name);
    }

    // Step numbers (future steps faint, still clickable), and processor ops as boxes on their lifeline.
    for (int s = 1; s <= m_lab->stepCount(); ++s) {
        const co::StepRecord& step = m_lab->step(s);
        p.setPen(palette().color(s <= current ? QPalette::Text : QPalette::PlaceholderText));
        QFont font = p.font();
        font.setBold(s == current);
        p.setFont(font);
        p.drawText(QRectF(2, rowY(s) - kRow / 2.0, kMargin - 6, kRow), Qt::AlignRight | Qt::AlignVCenter,
                   QString::number(s));
        font.setBold(false);
        p.setFont(font);
        if (step.op.empty() || s > current)
            continue;
        const qreal x = lifelineX(lifelineOf(step.actor, m_lab->caches()));
        QRectF box(x - 26, rowY(s) - 11, 52, 22);
        p.setPen(QPen(palette().color(QPalette::Text), s == current ? 2 : 1));
        p.setBrush(palette().color(QPalette::Window));
        p.drawRect(box);
        p.drawText(box, Qt::AlignCenter, toQString(step.event));
    }

    // Messages, the current step's last so they sit on top.
    for (int pass = 0; pass < 2; ++pass) {
        for (const Arrow& a : m_arrows) {
            if (a.emphasised != (pass == 1))
                continue;
            const QColor color = roleColor(a.flow.role);
            QPen pen(color, a.emphasised ? 3 : 1.5, a.inFlight ? Qt::DashLine : Qt::SolidLine);
            p.setPen(pen);
            p.drawLine(a.line);
            // Arrow head.
            const qreal angle = std::atan2(a.line.dy(), a.line.dx());
            const QPointF tip = a.line.p2();
            const qreal size = a.emphasised ? 11 : 8;
            QPainterPath head(tip);
            head.lineTo(tip - QPointF(size * std::cos(angle - 0.4), size * std::sin(angle - 0.4)));
            head.lineTo(tip - QPointF(size * std::cos(angle + 0.4), size * std::sin(angle + 0.4)));
            head.closeSubpath();
            p.fillPath(head, color);
            QFont font = p.font();
            font.setBold(a.emphasised);
            p.setFont(font);
            const QString label =
                a.flow.detail.isEmpty() ? a.flow.kind : QStringLiteral("%1 (%2)").arg(a.flow.kind, a.flow.detail);
            const QPointF mid = a.line.center();
            p.setPen(color.darker(130));
            p.drawText(QRectF(mid.x() - 90, mid.y() - 16, 180, 14), Qt::AlignCenter, label);
            font.setBold(false);
            p.setFont(font);
        }
    }
}

void SequenceChart::mousePressEvent(QMouseEvent* event)
{
    const QPointF pos = event->position();
    // An arrow takes the click before the row under it: it selects the step that delivers the message.
    for (auto it = m_arrows.rbegin(); it != m_arrows.rend(); ++it) {
        if (distanceToSegment(it->line, pos) <= kHitDistance) {
            emit stepActivated(it->inFlight ? it->flow.sentAt : it->flow.deliveredAt);
            return;
        }
    }
    const int step = static_cast<int>(std::floor((pos.y() - kHeader) / kRow));
    if (step >= 0 && step <= m_lab->stepCount())
        emit stepActivated(step);
}

} // namespace coh::ui
