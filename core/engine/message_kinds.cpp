#include "core/engine/message_kinds.h"

namespace coh::core {

ProtocolKinds::ProtocolKinds(const coherence::Protocol& protocol, const std::string& prefix)
{
    for (const auto& m : protocol.messages)
        m_kinds.push_back({prefix + m.name, m.carriesData, 0, 0, coherence::messageRoleName(m.role)});
    // The extra kinds follow the table's, so a MessageRecord::kind of a table message stays its type.
    for (const auto& m : protocol.messages) {
        // Only the role that answers with the block: a write-through's Write is a request that carries data.
        const bool needsHomeKind = m.carriesData && m.role == coherence::MessageRole::Data;
        m_toHome.push_back(needsHomeKind ? static_cast<int>(m_kinds.size()) : -1);
        if (needsHomeKind)
            m_kinds.push_back({prefix + m.name + " to home", true, 0, 0,
                               coherence::messageRoleName(coherence::MessageRole::Writeback)});
    }
}

std::uint8_t ProtocolKinds::kindOf(const coherence::Message& m) const
{
    const bool dataGoingHome = m.hasData && m.src != coherence::kDirNode && m.dst == coherence::kDirNode;
    if (dataGoingHome && m_toHome[m.type] >= 0)
        return static_cast<std::uint8_t>(m_toHome[m.type]);
    return m.type;
}

std::uint8_t ProtocolKinds::count(const coherence::Message& message, std::uint64_t blocks, double bytes)
{
    const std::uint8_t kind = kindOf(message);
    m_kinds[kind].count += blocks;
    m_kinds[kind].bytes += bytes;
    return kind;
}

} // namespace coh::core
