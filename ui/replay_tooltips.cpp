#include "ui/replay_tooltips.h"

#include "ui/replay_state_style.h"
#include "ui/timeline_bar.h"

#include <QCoreApplication>
#include <QStringList>

#include <cmath>

namespace coh::ui {
namespace {

QString tr(const char* text)
{
    return QCoreApplication::translate("ReplayToolTip", text);
}

QString nodeName(const ReplayModel& model, std::uint32_t node)
{
    return node < model.scene().nodes.size() ? model.scene().nodes[node].id : QStringLiteral("#%1").arg(node);
}

// What failed: the node's id, or the link's.
QString failedName(const ReplayModel& model, const ReplayModel::Failure& failure)
{
    return failure.link >= 0 ? model.scene().links[static_cast<std::size_t>(failure.link)].id
                             : nodeName(model, failure.node);
}

} // namespace

QString formatBytes(double bytes)
{
    const double a = std::abs(bytes);
    if (a < 1e3)
        return tr("%1 B").arg(bytes, 0, 'f', 0);
    if (a < 1e6)
        return tr("%1 kB").arg(bytes / 1e3, 0, 'f', 2);
    if (a < 1e9)
        return tr("%1 MB").arg(bytes / 1e6, 0, 'f', 2);
    return tr("%1 GB").arg(bytes / 1e9, 0, 'f', 2);
}

QString nodeToolTip(const ReplayModel& model, std::uint32_t node, qint64 t)
{
    const ReplayNode& n = model.scene().nodes[node];
    QStringList lines{tr("%1 (%2)").arg(n.id, n.kind.isEmpty() ? tr("node") : n.kind)};
    if (const ReplayModel::Failure* failure = model.nodeFailureAt(node, t))
        lines << downText(*failure, t);
    const auto blocks = model.nodeBlocks(node, t);
    if (!model.run()->nodeBlocks.empty()) {
        if (blocks.empty())
            lines << tr("Holds no KV blocks at %1").arg(TimelineBar::formatTime(t));
        else
            lines << (model.exactNodeBlocks() ? tr("KV blocks held at %1:").arg(TimelineBar::formatTime(t))
                                              : tr("KV blocks held (average of this time bucket):"));
        for (const auto& b : blocks)
            lines << QStringLiteral("  %1 %2 — %3")
                         .arg(b.state)
                         .arg(b.blocks, 0, 'f', model.exactNodeBlocks() ? 0 : 1)
                         .arg(b.info ? blockStateDescription(*b.info) : QString());
    }
    return lines.join(QLatin1Char('\n'));
}

QString downText(const ReplayModel::Failure& failure, qint64 t)
{
    const QString failed = TimelineBar::formatTime(failure.failed);
    const QString detected = TimelineBar::formatTime(failure.detected);
    QString since;
    if (failure.detectedAt(t))
        since = tr("Down since %1, detected at %2").arg(failed, detected);
    else if (failure.repaired >= 0 && failure.detected >= failure.repaired)
        since = tr("Down since %1, back before the monitor notices").arg(failed);
    else
        since = tr("Down since %1, not detected yet (the monitor declares it dead at %2)").arg(failed, detected);
    return failure.repaired >= 0 ? tr("%1; back at %2").arg(since, TimelineBar::formatTime(failure.repaired))
                                 : tr("%1; not back in this run").arg(since);
}

QString failureToolTip(const ReplayModel& model, const ReplayModel::Failure& failure)
{
    QStringList lines{failure.repaired >= 0
                          ? tr("%1 down from %2 to %3")
                                .arg(failedName(model, failure), TimelineBar::formatTime(failure.failed),
                                     TimelineBar::formatTime(failure.repaired))
                          : tr("%1 down from %2 to the end of the run")
                                .arg(failedName(model, failure), TimelineBar::formatTime(failure.failed))};
    lines << (failure.repaired >= 0 && failure.detected >= failure.repaired
                  ? tr("Back before the monitor noticed")
                  : tr("Detected at %1 (%2 after it failed)")
                        .arg(TimelineBar::formatTime(failure.detected),
                             TimelineBar::formatTime(failure.detected - failure.failed)));
    const auto& records = model.run()->summary.failures.failures;
    if (failure.link >= 0) {
        lines << tr("Its messages wait, then go around it once detected, or over it once it is back");
    } else if (failure.record < records.size()) {
        const core::FailureRecord& r = records[failure.record];
        QStringList instances;
        for (const auto& i : r.instances)
            instances << QString::fromStdString(i);
        if (!instances.isEmpty())
            lines << tr("Instances: %1").arg(instances.join(QStringLiteral(", ")));
        lines << tr("Requests it took: %1").arg(r.requestsLost);
    }
    return lines.join(QLatin1Char('\n'));
}

QString linkToolTip(const ReplayModel& model, int link, qint64 t)
{
    const ReplayLink& l = model.scene().links[static_cast<std::size_t>(link)];
    const auto& nodes = model.scene().nodes;
    const QString a = l.a >= 0 ? nodes[static_cast<std::size_t>(l.a)].id : QStringLiteral("?");
    const QString b = l.b >= 0 ? nodes[static_cast<std::size_t>(l.b)].id : QStringLiteral("?");
    QStringList lines{tr("%1: %2 ↔ %3").arg(l.id, a, b)};
    if (!l.kind.isEmpty() || !l.bandwidth.isEmpty())
        lines << tr("%1, %2 per direction").arg(l.kind.isEmpty() ? tr("link") : l.kind, l.bandwidth);
    if (const ReplayModel::Failure* failure = model.linkFailureAt(link, t))
        lines << downText(*failure, t);
    const core::RunResult& run = *model.run();
    const auto bucket = run.linkInterval > 0 && t >= 0 ? static_cast<std::size_t>(t / run.linkInterval) : 0;
    for (bool forward : {true, false}) {
        const QString direction = forward ? tr("%1 → %2").arg(a, b) : tr("%1 → %2").arg(b, a);
        const core::LinkSeries* series = nullptr;
        for (const auto& s : run.linkSeries)
            if (s.link == static_cast<std::uint32_t>(link) && s.forward == forward)
                series = &s;
        if (!series) {
            lines << tr("%1: nothing in this run").arg(direction);
            continue;
        }
        const double now = bucket < series->bytesPerBucket.size() ? series->bytesPerBucket[bucket] : 0;
        const double capacity = series->bandwidthBytesPerSec * core::toSeconds(run.linkInterval);
        lines << tr("%1: %2 in this %3 bucket (%4 % busy), %5 in the run")
                     .arg(direction, formatBytes(now), TimelineBar::formatTime(run.linkInterval))
                     .arg(capacity > 0 ? 100 * now / capacity : 0, 0, 'f', 1)
                     .arg(formatBytes(series->totalBytes));
    }
    return lines.join(QLatin1Char('\n'));
}

QString messageToolTip(const ReplayModel& model, std::uint32_t message)
{
    const core::RunResult& run = *model.run();
    const core::MessageRecord& m = run.messages[message];
    const QString kind = m.kind < run.summary.messagesByKind.size()
                             ? QString::fromStdString(run.summary.messagesByKind[m.kind].name)
                             : tr("kind %1").arg(m.kind);
    return tr("%1 %2 → %3, request %4, %5 (click for details)")
        .arg(kind, nodeName(model, m.src), nodeName(model, m.dst))
        .arg(m.request)
        .arg(formatBytes(m.bytes));
}

} // namespace coh::ui
