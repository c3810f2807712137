#include "ui/replay_message_details.h"

#include "core/coherence/table_markdown.h"
#include "ui/message_roles.h"
#include "ui/qt_text.h"
#include "ui/replay_tooltips.h"
#include "ui/timeline_bar.h"

#include <QCoreApplication>

namespace coh::ui {
namespace {

namespace co = core::coherence;

QString tr(const char* text)
{
    return QCoreApplication::translate("MessageDetails", text);
}

// The table's explanation names the actors of one block system ({self}, {req}, ...); a record keeps no system
// state, so they become words, the sender by its node.
QString explanationInWords(const std::string& text, const QString& self)
{
    QString out = toQString(text);
    out.replace(QStringLiteral("{self}"), self);
    out.replace(QStringLiteral("{req}"), tr("the requester"));
    out.replace(QStringLiteral("{src}"), tr("the sender"));
    out.replace(QStringLiteral("{owner}"), tr("the owner"));
    out.replace(QStringLiteral("{others}"), tr("the other sharers"));
    out.replace(QStringLiteral("{acks}"), tr("as many acks as there are other sharers"));
    if (!out.isEmpty())
        out[0] = out[0].toUpper();
    return out;
}

QString nodeId(const ReplayModel& model, std::uint32_t node)
{
    return node < model.scene().nodes.size() ? model.scene().nodes[node].id : QStringLiteral("#%1").arg(node);
}

QString row(const QString& key, const QString& value)
{
    return QStringLiteral("<tr><td><b>%1</b></td><td>%2</td></tr>").arg(key.toHtmlEscaped(), value.toHtmlEscaped());
}

} // namespace

MessageTransition messageTransition(const ReplayModel& model, std::uint32_t message)
{
    MessageTransition out;
    const core::MessageRecord& m = model.run()->messages[message];
    const co::Protocol* protocol = model.protocol(m.protocol);
    if (m.sender == core::MessageSender::None || !protocol)
        return out;
    const bool home = m.sender == core::MessageSender::Home;
    const co::ControllerTable& table = home ? protocol->directory : protocol->cache;
    // A damaged or foreign record must not index past the table.
    if (table.events.empty() || m.transition >= table.transitions.size() || m.fromState >= table.states.size() ||
        m.toState >= table.states.size())
        return out;
    const int state = m.transition / static_cast<int>(table.events.size());
    const int event = m.transition % static_cast<int>(table.events.size());
    out.known = true;
    out.controller = !home ? tr("cache") : protocol->home == co::Home::Bus ? tr("bus") : tr("directory");
    out.state = toQString(table.states[static_cast<std::size_t>(state)].name);
    out.trigger = toQString(table.events[static_cast<std::size_t>(event)].name);
    out.actions = toQString(co::transitionCell(*protocol, table, state, event));
    out.nextState = toQString(table.states[m.toState].name);
    out.explanation = explanationInWords(table.explanations[m.transition],
                                         tr("the %1 at %2").arg(out.controller, nodeId(model, m.src)));
    return out;
}

QString messageDetailsHtml(const ReplayModel& model, std::uint32_t message)
{
    const core::RunResult& run = *model.run();
    const core::MessageRecord& m = run.messages[message];
    const bool known = m.kind < run.summary.messagesByKind.size();
    const QString kind = known ? toQString(run.summary.messagesByKind[m.kind].name) : tr("kind %1").arg(m.kind);
    const MessageRole role = model.role(message);

    // The protocol step first, compactly: it is what the pane is for, and a short pane shows it without scrolling.
    const QString para = QStringLiteral("<p style='margin-top:0; margin-bottom:4px'>%1</p>");
    QString html;
    const MessageTransition t = messageTransition(model, message);
    if (!t.known) {
        html += para.arg(m.sender == core::MessageSender::None
                             ? tr("Plain copy, no protocol: no table sent it.").toHtmlEscaped()
                             : tr("Sent by a protocol this run's record does not describe.").toHtmlEscaped());
    } else {
        // The KV path's protocol is in the tab's header; the prefix pool's may be another, so it is named.
        const QString sender = tr("%1 sent by the %2 of %3").arg(kind, t.controller, nodeId(model, m.src));
        const QString title = m.protocol == core::MessageProtocol::PrefixPool
                                  ? tr("%1 (prefix pool, %2):").arg(sender, toQString(model.protocol(m.protocol)->name))
                                  : tr("%1:").arg(sender);
        html += para.arg(QStringLiteral("<b>%1</b>").arg(title.toHtmlEscaped()));
        html += QStringLiteral("<table cellspacing='1' style='margin-bottom:4px'>");
        html += row(tr("Step"), tr("%1 → %2, on %3").arg(t.state, t.nextState, t.trigger));
        html += row(tr("Table cell"), t.actions);
        html += QStringLiteral("</table>");
        html += para.arg(t.explanation.toHtmlEscaped());
    }

    html += QStringLiteral("<table cellspacing='2'>");
    html += row(tr("Kind"), kind);
    html += row(tr("Role"), messageRoleLabel(role) + QStringLiteral(": ") + messageRoleMeaning(role));
    html += row(tr("Request"), QString::number(m.request));
    html += row(tr("Blocks"), m.blockCount == 1 ? tr("block %1").arg(m.firstBlock)
                                                : tr("%1 blocks, from block %2").arg(m.blockCount).arg(m.firstBlock));
    html += row(tr("Route"), tr("%1 → %2").arg(nodeId(model, m.src), nodeId(model, m.dst)));
    if (m.path < run.paths.size()) {
        QStringList hops;
        for (std::uint32_t link : run.paths[m.path].links)
            hops << (link < model.scene().links.size() ? model.scene().links[link].id : QString::number(link));
        html += row(tr("Links"), hops.join(QStringLiteral(", ")));
    }
    html += row(tr("Bytes"), formatBytes(m.bytes));
    html += row(tr("Start"), TimelineBar::formatTime(m.start));
    html +=
        row(tr("End"),
            tr("%1 (%2 on the wire)").arg(TimelineBar::formatTime(m.end), TimelineBar::formatTime(m.end - m.start)));
    html += QStringLiteral("</table>");
    return html;
}

} // namespace coh::ui
