#include "core/engine/traffic_counts.h"

namespace coh::core {

coherence::MessageRole messageRoleFromName(std::string_view name)
{
    for (int r = 0; r < coherence::kMessageRoles; ++r)
        if (name == coherence::messageRoleName(static_cast<coherence::MessageRole>(r)))
            return static_cast<coherence::MessageRole>(r);
    return coherence::MessageRole::Other;
}

TrafficCounts trafficCounts(const RunSummary& summary)
{
    using coherence::MessageRole;
    TrafficCounts c;
    c.flows = summary.flows;
    for (const MessageKindStats& kind : summary.messagesByKind) {
        c.messages += kind.count;
        (kind.data ? c.dataMessages : c.controlMessages) += kind.count;
        (kind.data ? c.dataBytes : c.controlBytes) += kind.bytes;
        c.messagesByRole[static_cast<std::size_t>(messageRoleFromName(kind.role))] += kind.count;
    }
    c.writebacks = c.messagesOf(MessageRole::Writeback);
    c.invalidations = c.messagesOf(MessageRole::Invalidation);
    c.biasFlips = c.messagesOf(MessageRole::BiasFlip);
    c.migrations = c.messagesOf(MessageRole::Migration);
    return c;
}

} // namespace coh::core
