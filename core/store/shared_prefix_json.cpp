#include "core/store/shared_prefix_json.h"

#include "core/store/summary_json_fields.h"

namespace coh::core {

nlohmann::ordered_json toJson(const SharedPrefixSummary& s)
{
    return {{"block_tokens", s.blockTokens},
            {"blocks", s.blocks},
            {"shared_tokens", s.sharedTokens},
            {"writes", s.writes},
            {"writes_skipped", s.writesSkipped},
            {"acquires", s.acquires},
            {"acquire_hits", s.acquireHits},
            {"reads", s.reads},
            {"read_misses", s.readMisses},
            {"stale_reads", s.staleReads},
            {"peak_holders", s.peakHolders},
            {"capacity_blocks", s.capacityBlocks},
            {"evictions", s.evictions},
            {"transfers", s.transfers},
            {"bytes", s.bytes}};
}

SharedPrefixSummary sharedPrefixFromJson(const nlohmann::ordered_json& j)
{
    SharedPrefixSummary s;
    s.enabled = true;
    s.blockTokens = static_cast<std::uint32_t>(countField(j, "block_tokens"));
    s.blocks = countField(j, "blocks");
    s.sharedTokens = countField(j, "shared_tokens");
    s.writes = countField(j, "writes");
    s.writesSkipped = countField(j, "writes_skipped");
    s.acquires = countField(j, "acquires");
    s.acquireHits = countField(j, "acquire_hits");
    s.reads = countField(j, "reads");
    s.readMisses = countField(j, "read_misses");
    s.staleReads = countField(j, "stale_reads");
    s.peakHolders = countField(j, "peak_holders");
    s.capacityBlocks = countField(j, "capacity_blocks");
    s.evictions = countField(j, "evictions");
    s.transfers = countField(j, "transfers");
    if (const auto it = j.find("bytes"); it != j.end() && it->is_number())
        s.bytes = it->get<double>();
    return s;
}

} // namespace coh::core
