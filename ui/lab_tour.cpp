#include "ui/lab_tour.h"

#include "core/coherence/protocol_table.h"
#include "ui/qt_text.h"

#include <QCoreApplication>

namespace coh::ui {

namespace {

QString tr(const char* text)
{
    return QCoreApplication::translate("LabTour", text);
}

QString controls()
{
    return tr("<p><b>Controls.</b> Right and Left (or the step buttons) move one step; Home and End jump to the "
              "start and the end. Click an arrow to go to the step that delivered it, or a row to go to that step. "
              "On the <b>Play</b> tab, issue your own ops per cache; tick <i>Deliver messages by hand</i> to choose "
              "which message in flight arrives next and stage races.</p>");
}

} // namespace

QString tourIntroduction(const core::coherence::Protocol& protocol, int caches, const QString& ops, int steps)
{
    return tr("<h3>Walk-through: %1</h3><p>%2</p>"
              "<p><b>What you will see.</b> %3 caches and the directory share one block. The walk-through issues "
              "the ops %4: a read miss, an upgrade to write, a read of the dirty block, a second reader, a write "
              "with sharers, a read of the new writer's block, then evictions. Every op issue and every message "
              "delivery is a step, %5 in all; you start at step 1, the first op.</p>"
              "<p>The chart has one lifeline per cache and the directory. An op is a box on its cache's lifeline; "
              "a message is an arrow from the step that sent it to the step that delivered it, dashed with an "
              "open head while it is still in flight. The state table shows every controller after the step, "
              "changed cells highlighted; the transition table marks the rule the step took.</p>")
               .arg(toQString(protocol.title).toHtmlEscaped(), toQString(protocol.summary).toHtmlEscaped())
               .arg(caches)
               .arg(ops.split(QLatin1Char(',')).join(QStringLiteral(", ")).toHtmlEscaped()) // may wrap
               .arg(steps) +
           controls();
}

QString playIntroduction(const core::coherence::Protocol& protocol)
{
    return tr("<h3>Free play: %1</h3><p>%2</p><p>Issue ops on the <b>Play</b> tab and watch their messages; or "
              "pick a lesson above.</p>")
               .arg(toQString(protocol.title).toHtmlEscaped(), toQString(protocol.summary).toHtmlEscaped()) +
           controls();
}

} // namespace coh::ui
