// What a CoherentKv message carries, for a real backend to put the sequence's rows in it (FlowEndpoint::payloadOf).
#include "core/engine/coherent_kv.h"

#include <algorithm>

namespace coh::core {

std::optional<KvPayload> CoherentKv::payloadOf(std::uint64_t tag) const
{
    const auto request = static_cast<std::uint32_t>(tag >> 32);
    const auto group = static_cast<std::size_t>((tag >> 16) & 0xffff);
    if (request >= m_sequences.size() || group >= m_sequences[request].groups.size())
        return std::nullopt;
    const Sequence& seq = m_sequences[request];
    const Group& g = seq.groups[group];
    const int i = g.driver.arrivals.inFlight(g.system, static_cast<std::uint16_t>(tag & 0xffff));
    const std::uint32_t first = seq.sharedTokens + g.firstBlock * m_blockTokens;
    if (i < 0 || !g.system.message(i).hasData || !g.oneRun || seq.tokens <= first)
        return std::nullopt;
    return KvPayload{.sequence = request,
                     .firstToken = first,
                     .tokens = std::min(g.blocks * m_blockTokens, seq.tokens - first),
                     .shard = 0,
                     .shards = 1};
}

} // namespace coh::core
