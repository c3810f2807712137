#pragma once
// The message kinds a protocol's traffic is counted and recorded under: one per message type of the table, plus
// "<name> to home" (role writeback) for each message of the data role, because block data a cache sends to the
// home in answer to a forward *is* a write-back (MSI's Data to the directory on a downgrade). So the writeback
// role of the legend, the run's write-back count and the replay's colours all read one definition.
#include "core/coherence/block_system.h"
#include "core/coherence/protocol_table.h"
#include "core/engine/run_result.h"

#include <cstdint>
#include <string>
#include <vector>

namespace coh::core {

class ProtocolKinds {
  public:
    // `prefix` goes before every name ("pool " for the prefix pool's protocol).
    explicit ProtocolKinds(const coherence::Protocol& protocol, const std::string& prefix = {});

    // The kind `message` is counted and recorded as (an index into kinds()). Inline: every message sent and
    // every message recorded asks.
    std::uint8_t kindOf(const coherence::Message& m) const
    {
        // A type without a "to home" kind is its own kind whatever its direction (m_homeKind[type] == type).
        const bool dataGoingHome = m.hasData && m.dst == coherence::kDirNode && m.src != coherence::kDirNode;
        return dataGoingHome ? m_homeKind[m.type] : m.type;
    }
    // Counts one message about `blocks` blocks of `bytes` in total under its kind; returns that kind.
    std::uint8_t count(const coherence::Message& message, std::uint64_t blocks, double bytes)
    {
        const std::uint8_t kind = kindOf(message);
        m_kinds[kind].count += blocks;
        m_kinds[kind].bytes += bytes;
        return kind;
    }

    const std::vector<MessageKindStats>& kinds() const { return m_kinds; }

  private:
    std::vector<MessageKindStats> m_kinds;
    std::vector<std::uint8_t> m_homeKind; // per message type: its kind when it carries data home
};

} // namespace coh::core
