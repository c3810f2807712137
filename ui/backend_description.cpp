#include "ui/backend_description.h"

#include "core/engine/run_summary.h"
#include "core/serving/kv_pool_text.h"
#include "core/serving/own_costs_text.h"
#include "ui/metric_format.h"
#include "ui/qt_text.h"

#include <QCoreApplication>
#include <QLocale>

#include <vector>

namespace coh::ui {

namespace {
QString tr(const char* text)
{
    return QCoreApplication::translate("BackendDescription", text);
}
} // namespace

BackendFacts backendFacts(const core::BackendSummary& b)
{
    BackendFacts f;
    f.name = toQString(b.name);
    if (!b.real()) {
        f.name = tr("Simulated");
        f.headline = b.calibratedProfile.empty()
                         ? tr("messages are flows of the max-min fair network, compute is the roofline.")
                         : tr("its copies and decode attention cost what a calibrated profile of this machine's %1 "
                              "measured (below); the rest of its compute is the roofline.")
                               .arg(toQString(b.calibratedProfile));
        if (!b.scaledDown.empty())
            f.after.append({QString(), toQString(b.scaledDown)});
        // On a profile, its steps by the traffic before them, as a real run's are kept: the two side by side.
        if (const std::string traffic = core::describeAttentionByTraffic(b); !traffic.empty())
            f.lines.append({tr("Attention after traffic"), toQString(traffic)});
        return f;
    }
    using core::MetricUnit;
    const QLocale locale;
    f.headline = b.copies == 0 ? tr("no copies, every message staying on its node")
                               : tr("%1 copies of %2 in %3 descriptors, %4 measured, each checked against its stamp "
                                    "and the CRC-32 it seals (%5 passed)")
                                     .arg(locale.toString(static_cast<qulonglong>(b.copies)),
                                          formatMetric(b.bytesCopied, MetricUnit::Bytes),
                                          locale.toString(static_cast<qulonglong>(b.descriptors)),
                                          formatMetric(b.copyMs, MetricUnit::Milliseconds),
                                          locale.toString(static_cast<qulonglong>(b.verified)));
    if (b.copiesQueued > 0)
        f.headline += tr("; %1 shared their pair with other copies in flight, landing %2 later in all")
                          .arg(locale.toString(static_cast<qulonglong>(b.copiesQueued)),
                               formatMetric(b.copyWaitMs, MetricUnit::Milliseconds));
    if (b.kvTransfersChecked > 0)
        f.lines.append({tr("K/V carried"),
                        tr("%1 transfers carried their sequence's first-layer K/V rows for %2 of the %3 tokens they "
                           "moved (as many as fit in the message and its memory at once), each checked on landing "
                           "against the sequence's values")
                            .arg(locale.toString(static_cast<qulonglong>(b.kvTransfersChecked)),
                                 locale.toString(static_cast<qulonglong>(b.kvRowsCarried)),
                                 locale.toString(static_cast<qulonglong>(b.kvRowsOffered)))});
    if (b.decodeSteps > 0) {
        QString attention =
            tr("%1 steps ran here, %2 of K/V read in %3; %4 block reads checked against their stamps%7, %5 K/V rows "
               "written (%6 appends, %8 taken from the bytes their transfers landed in the node's memory)")
                .arg(locale.toString(static_cast<qulonglong>(b.decodeSteps)),
                     formatMetric(b.attentionBytes, MetricUnit::Bytes),
                     formatMetric(b.attentionMs, MetricUnit::Milliseconds),
                     locale.toString(static_cast<qulonglong>(b.blockReadsChecked)),
                     locale.toString(static_cast<qulonglong>(b.kvRowsWritten)),
                     locale.toString(static_cast<qulonglong>(b.kvRowsAppended)),
                     b.blockReadsChecked == 0 ? QString()
                     : b.blockSealsSummed == b.blockReadsChecked
                         ? tr(" and seals")
                         : tr(" (%1 of them summed against their seals: unsummed, a block is read once, so the sums "
                              "do not change the attention's times)")
                               .arg(locale.toString(static_cast<qulonglong>(b.blockSealsSummed))),
                     locale.toString(static_cast<qulonglong>(b.kvRowsLanded)));
        if (b.blockReadsBorrowed > 0)
            attention += tr("; %1 more reads of borrowed blocks, unchecked (the pool was full)")
                             .arg(locale.toString(static_cast<qulonglong>(b.blockReadsBorrowed)));
        f.lines.append({tr("Decode attention"), attention});
    }
    if (const std::string pools = core::describeKvPools(b); !pools.empty())
        f.lines.append({tr("K/V pools"), toQString(pools)});
    if (const std::string costs = core::describeOwnCosts(b); !costs.empty())
        f.lines.append({tr("Own costs"), toQString(costs)});
    if (const std::string sizes = core::describeAttentionBySize(b); !sizes.empty())
        f.lines.append({tr("Attention by step size"), toQString(sizes)});
    if (const std::string traffic = core::describeAttentionByTraffic(b); !traffic.empty())
        f.lines.append({tr("Attention after traffic"), toQString(traffic)});
    if (!b.staleReads.empty()) {
        std::vector<double> relL2;
        for (const auto& r : b.staleReads)
            relL2.push_back(r.relL2);
        const auto d = core::distributionOf(relL2);
        f.lines.append({tr("Stale reads"), tr("%1 decode reads of stale blocks, attention output error (relative L2) "
                                              "p50 %2, max %3")
                                               .arg(locale.toString(static_cast<qulonglong>(b.staleReads.size())),
                                                    locale.toString(d.p50, 'g', 3), locale.toString(d.max, 'g', 3))});
    }
    for (const auto& m : b.mapping)
        f.mapping.append({toQString(m.node), toQString(m.resource)});
    if (!b.scaledDown.empty())
        f.after.append({tr("Scaled down"), toQString(b.scaledDown)});
    if (!b.faultNotPlayed.empty())
        f.after.append({tr("Injected"), toQString(b.faultNotPlayed)});
    return f;
}

QString backendDescription(const core::BackendSummary& b)
{
    const BackendFacts f = backendFacts(b);
    QString text = QStringLiteral("<b>%1</b>: %2").arg(f.name.toHtmlEscaped(), f.headline.toHtmlEscaped());
    const auto line = [&](const QPair<QString, QString>& l) {
        text += l.first.isEmpty() ? QStringLiteral("<br>%1").arg(l.second.toHtmlEscaped())
                                  : QStringLiteral("<br>%1: %2").arg(l.first.toHtmlEscaped(), l.second.toHtmlEscaped());
    };
    for (const auto& l : f.lines)
        line(l);
    if (!f.mapping.isEmpty()) {
        text += tr("<br><br>Each node ran on:<table>");
        for (const auto& m : f.mapping)
            text += QStringLiteral("<tr><td>%1&nbsp;&nbsp;</td><td>%2</td></tr>")
                        .arg(m.first.toHtmlEscaped(), m.second.toHtmlEscaped());
        text += QStringLiteral("</table>");
    }
    for (const auto& l : f.after)
        line(l);
    return text;
}

} // namespace coh::ui
