#include "ui/lab_message_flow.h"

#include "ui/qt_text.h"

#include <QStringList>

namespace coh::ui {

namespace co = core::coherence;

namespace {

bool sameMessage(const co::MessageView& a, const co::MessageView& b)
{
    return a.kind == b.kind && a.from == b.from && a.to == b.to && a.data == b.data && a.ackCount == b.ackCount;
}

} // namespace

int lifelineOf(const std::string& node, int caches)
{
    if (node.size() > 1 && node[0] == 'P') {
        bool ok = false;
        const int i = toQString(node.substr(1)).toInt(&ok);
        if (ok && i >= 0 && i < caches)
            return i;
    }
    return caches;
}

std::vector<MessageFlow> buildMessageFlows(const co::Protocol& protocol, int caches,
                                           const std::vector<co::StepRecord>& steps)
{
    std::vector<MessageFlow> flows;
    std::vector<co::MessageView> views; // parallel to flows
    for (std::size_t s = 0; s < steps.size(); ++s) {
        const co::StepRecord& step = steps[s];
        const int index = static_cast<int>(s) + 1;
        if (step.message) {
            for (std::size_t f = 0; f < flows.size(); ++f) {
                if (flows[f].deliveredAt < 0 && sameMessage(views[f], *step.message)) {
                    flows[f].deliveredAt = index;
                    break;
                }
            }
        }
        for (const co::MessageView& m : step.sent) {
            MessageFlow flow;
            flow.kind = toQString(m.kind);
            flow.from = lifelineOf(m.from, caches);
            flow.to = lifelineOf(m.to, caches);
            flow.sentAt = index;
            const int type = protocol.findMessage(m.kind);
            if (type >= 0)
                flow.role = protocol.messages[static_cast<std::size_t>(type)].role;
            QStringList detail;
            if (m.data)
                detail << QStringLiteral("data=%1").arg(*m.data);
            if (m.ackCount != 0)
                detail << QStringLiteral("acks=%1").arg(m.ackCount);
            flow.detail = detail.join(QLatin1Char(' '));
            flows.push_back(flow);
            views.push_back(m);
        }
    }
    return flows;
}

} // namespace coh::ui
