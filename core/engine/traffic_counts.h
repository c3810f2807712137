#pragma once
// One vocabulary for what a run sent, computed in one place: the CLI summary, `cohsim export`, the History
// and Compare views and the Replay legend all read these numbers, so they agree. docs/engine.md#traffic
// defines each word:
// - a *message* is one protocol message about one KV block (a message the engine sends for a group of
//   blocks counts once per block); a plain copy (KV-Data, Prefix-Load/Store) is one message. Every message is
//   counted, also one between two caches of the same node that crosses no link.
// - a *flow* is one transfer over the network: it carries one message for a group of blocks along a route.
//   Only flows that cross a link are flows (and records in the replay).
// - *data* messages carry block data, *control* messages do not; bytes are the messages' sizes.
// - a *write-back* is a message whose role is writeback: PutM, Update, ... and block data a cache sends to
//   the home under another name (counted as "<name> to home", see core/engine/message_kinds.h).
// - invalidations, bias flips and migrations are the messages of those roles.
#include "core/coherence/protocol_table.h"
#include "core/engine/run_result.h"

#include <array>
#include <cstdint>
#include <string_view>

namespace coh::core {

struct TrafficCounts {
    std::uint64_t messages = 0;
    std::uint64_t flows = 0;
    std::uint64_t dataMessages = 0, controlMessages = 0;
    double dataBytes = 0, controlBytes = 0;
    std::array<std::uint64_t, coherence::kMessageRoles> messagesByRole{}; // indexed by coherence::MessageRole
    std::uint64_t writebacks = 0, invalidations = 0, biasFlips = 0, migrations = 0;

    std::uint64_t messagesOf(coherence::MessageRole role) const
    {
        return messagesByRole[static_cast<std::size_t>(role)];
    }
};

// The role a stored MessageKindStats::role names ("bias-flip", ...); an unknown name is Other.
coherence::MessageRole messageRoleFromName(std::string_view name);

TrafficCounts trafficCounts(const RunSummary& summary);

} // namespace coh::core
