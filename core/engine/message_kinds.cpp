#include "core/engine/message_kinds.h"

namespace coh::core {

ProtocolKinds::ProtocolKinds(const coherence::Protocol& protocol, const std::string& prefix)
{
    for (const auto& m : protocol.messages)
        m_kinds.push_back({prefix + m.name, m.carriesData, 0, 0, coherence::messageRoleName(m.role)});
    // The extra kinds follow the table's, so a MessageRecord::kind of a table message stays its type.
    for (std::size_t type = 0; type < protocol.messages.size(); ++type) {
        const auto& m = protocol.messages[type];
        // Only the role that answers with the block: a write-through's Write is a request that carries data.
        const bool needsHomeKind = m.carriesData && m.role == coherence::MessageRole::Data;
        m_homeKind.push_back(static_cast<std::uint8_t>(needsHomeKind ? m_kinds.size() : type));
        if (needsHomeKind)
            m_kinds.push_back({prefix + m.name + " to home", true, 0, 0,
                               coherence::messageRoleName(coherence::MessageRole::Writeback)});
    }
}

} // namespace coh::core
