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
QString html(const std::string& text)
{
    return toQString(text).toHtmlEscaped();
}
} // namespace

QString backendDescription(const core::BackendSummary& b)
{
    if (!b.real()) {
        QString text = tr("<b>Simulated</b>: messages are flows of the max-min fair network, compute is the roofline.");
        if (!b.scaledDown.empty())
            text += QStringLiteral("<br>") + html(b.scaledDown);
        return text;
    }
    using core::MetricUnit;
    const QLocale locale;
    QString text = tr("<b>%1</b>: %2 copies of %3 in %4 descriptors, %5 measured, each checked against its "
                      "stamp and the CRC-32 it seals (%6 passed)")
                       .arg(html(b.name), locale.toString(static_cast<qulonglong>(b.copies)),
                            formatMetric(b.bytesCopied, MetricUnit::Bytes),
                            locale.toString(static_cast<qulonglong>(b.descriptors)),
                            formatMetric(b.copyMs, MetricUnit::Milliseconds),
                            locale.toString(static_cast<qulonglong>(b.verified)));
    if (b.copiesQueued > 0)
        text += tr("; %1 waited for their pair's earlier copies, %2 in all")
                    .arg(locale.toString(static_cast<qulonglong>(b.copiesQueued)),
                         formatMetric(b.copyWaitMs, MetricUnit::Milliseconds));
    if (b.kvTransfersChecked > 0)
        text += tr("<br>K/V carried: %1 transfers carried their sequence's first-layer K/V rows for %2 of the %3 "
                   "tokens they moved (as many as fit in the message and its memory at once), each checked on landing "
                   "against "
                   "the sequence's values")
                    .arg(locale.toString(static_cast<qulonglong>(b.kvTransfersChecked)),
                         locale.toString(static_cast<qulonglong>(b.kvRowsCarried)),
                         locale.toString(static_cast<qulonglong>(b.kvRowsOffered)));
    if (b.decodeSteps > 0)
        text += tr("<br>Decode attention: %1 steps ran here, %2 of K/V read in %3; %4 block reads checked against "
                   "their stamps%7, %5 K/V rows written (%6 appends, %8 taken from the bytes their transfers landed "
                   "in the node's memory)")
                    .arg(locale.toString(static_cast<qulonglong>(b.decodeSteps)),
                         formatMetric(b.attentionBytes, MetricUnit::Bytes),
                         formatMetric(b.attentionMs, MetricUnit::Milliseconds),
                         locale.toString(static_cast<qulonglong>(b.blockReadsChecked)),
                         locale.toString(static_cast<qulonglong>(b.kvRowsWritten)),
                         locale.toString(static_cast<qulonglong>(b.kvRowsAppended)),
                         b.blockReadsChecked == 0 ? QString()
                         : b.blockSealsSummed == b.blockReadsChecked
                             ? tr(" and seals")
                             : tr(" (%1 of them summed against their seals: unsummed, a block is read once, so the "
                                  "sums do not change the attention's times)")
                                   .arg(locale.toString(static_cast<qulonglong>(b.blockSealsSummed))),
                         locale.toString(static_cast<qulonglong>(b.kvRowsLanded)));
    if (b.blockReadsBorrowed > 0)
        text += tr("; %1 more reads of borrowed blocks, unchecked (the pool was full)")
                    .arg(locale.toString(static_cast<qulonglong>(b.blockReadsBorrowed)));
    if (const std::string pools = core::describeKvPools(b); !pools.empty())
        text += tr("<br>K/V pools: %1").arg(html(pools));
    if (const std::string costs = core::describeOwnCosts(b); !costs.empty())
        text += tr("<br>Own costs: %1").arg(html(costs));
    if (!b.staleReads.empty()) {
        std::vector<double> relL2;
        for (const auto& r : b.staleReads)
            relL2.push_back(r.relL2);
        const auto d = core::distributionOf(relL2);
        text += tr("<br>Stale reads: %1 decode reads of stale blocks, attention output error (relative L2) p50 %2, "
                   "max %3")
                    .arg(locale.toString(static_cast<qulonglong>(b.staleReads.size())), locale.toString(d.p50, 'g', 3),
                         locale.toString(d.max, 'g', 3));
    }
    if (!b.mapping.empty()) {
        text += tr("<br><br>Each node ran on:<table>");
        for (const auto& m : b.mapping)
            text += QStringLiteral("<tr><td>%1&nbsp;&nbsp;</td><td>%2</td></tr>").arg(html(m.node), html(m.resource));
        text += QStringLiteral("</table>");
    }
    if (!b.scaledDown.empty())
        text += tr("<br>Scaled down: %1").arg(html(b.scaledDown));
    if (!b.faultNotPlayed.empty())
        text += tr("<br>Injected: %1").arg(html(b.faultNotPlayed));
    return text;
}

} // namespace coh::ui
