#pragma once
// The K/V rows a transfer carries on a real backend (docs/real-backend.md#what-a-transfer-carries). A message that
// holds a sequence's K/V (KvPayload) starts its payload, right after its stamp, with the first layer's rows of the
// tokens it carries: the sequence's values (kvRowValue) in the element the receiver's pool holds, laid out block by
// block as that pool lays a block out (K [head][row][dimension], then V). The sender writes them before it seals the
// message, as prefill would have left them; the receiver reads them back once the copy checks out and compares them
// with the sequence's, so a copy of the wrong blocks, faithful to its source, still shows. The other layers' bytes
// stay the sender's filler: they would be the first layer's values computed again.
#include "core/net/transport.h"
#include "core/real/node_arena.h"
#include "core/real/payload_checksum.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace coh::core::real {

struct KvRowsLayout {
    std::uint32_t kvHeads = 1; // the model's
    std::uint32_t headDim = 1;
    std::uint32_t blockTokens = 1;
    std::size_t elementBytes = 2; // the receiver's element (kvElementBytes): 2 (fp16) or 4 (fp32)
};

// The KV heads a shard holds: an even split; with more shards than heads, one each, neighbouring shards sharing it
// (decodeAttentionShape gives each node at least one).
struct KvHeadRange {
    std::uint32_t from = 0, count = 1;
};
KvHeadRange headsOf(const KvRowsLayout& layout, std::uint32_t shard, std::uint32_t shards);

// One block of the shard's rows, K and V, in bytes.
std::size_t blockRowsBytes(const KvRowsLayout& layout, const KvPayload& payload);
// The payload's tokens whose rows fit in `room` bytes, in whole blocks (the last may be partly filled).
std::uint32_t tokensCarried(const KvRowsLayout& layout, const KvPayload& payload, std::size_t room);
// The rows of the payload's first `tokens` tokens, as `sequence`'s values (the payload's own, unless a fault says
// another's), whole blocks, rows past the last token zero.
void composeRows(const KvRowsLayout& layout, const KvPayload& payload, std::uint32_t tokens, std::uint32_t sequence,
                 std::vector<std::byte>& out);

// The first element of `landed` that differs from `expected` (composeRows's for the payload), by where it sits.
struct KvRowMismatch {
    std::uint32_t token = 0, kvHead = 0, dim = 0;
    bool isV = false;
    float found = 0, expected = 0;
};
std::optional<KvRowMismatch> firstRowMismatch(const KvRowsLayout& layout, const KvPayload& payload,
                                              std::span<const std::byte> expected, std::span<const std::byte> landed);
// "token 3's K at KV head 1, dimension 0 holds 0.25 where sequence 7's is -0.5"
std::string describeRowMismatch(const KvPayload& payload, const KvRowMismatch& m);

// The payload's bytes (after the stamp, payload_checksum.h) on `side` of the pieces, as runs in the memory of `size`
// bytes: f(memory offset, offset in the payload, bytes). Stops after `limit` bytes of the payload.
template <class F>
void forPayloadBytes(std::size_t size, std::span<const CopyPiece> pieces, CopySide side, std::size_t limit, F&& f)
{
    std::size_t at = 0;
    forPayloadRuns(size, pieces, side, [&](std::size_t offset, std::size_t n) {
        if (at < limit)
            f(offset, at, std::min(n, limit - at));
        at += n;
    });
}
// How many payload bytes the pieces hold apart from one another (forPayloadRuns's).
std::size_t payloadRoom(std::size_t size, std::span<const CopyPiece> pieces);

} // namespace coh::core::real
