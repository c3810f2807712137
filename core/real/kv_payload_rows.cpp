#include "core/real/kv_payload_rows.h"

#include "core/gpu/kv_rows.h"
#include "core/real/half.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

namespace coh::core::real {

namespace {

float elementAt(const std::byte* at, std::size_t elementBytes)
{
    if (elementBytes == sizeof(Half)) {
        Half h;
        std::memcpy(&h, at, sizeof h);
        return toFloat(h);
    }
    float f;
    std::memcpy(&f, at, sizeof f);
    return f;
}

// As the decode pool of that element holds it (fromFloat).
void putElement(std::byte* at, std::size_t elementBytes, float value)
{
    if (elementBytes == sizeof(Half)) {
        const Half h = fromFloat<Half>(value);
        std::memcpy(at, &h, sizeof h);
    } else {
        std::memcpy(at, &value, sizeof value);
    }
}

} // namespace

KvHeadRange headsOf(const KvRowsLayout& layout, std::uint32_t shard, std::uint32_t shards)
{
    const std::uint32_t heads = std::max(1u, layout.kvHeads);
    shards = std::max(1u, shards);
    if (heads < shards) // more shards than heads: each holds one, neighbours sharing it
        return {static_cast<std::uint32_t>(std::uint64_t{shard} * heads / shards), 1};
    const std::uint32_t count = heads / shards;
    return {std::min(shard * count, heads - count), count};
}

std::size_t blockRowsBytes(const KvRowsLayout& layout, const KvPayload& payload)
{
    return 2 * std::size_t{headsOf(layout, payload.shard, payload.shards).count} * layout.blockTokens * layout.headDim *
           layout.elementBytes;
}

std::uint32_t tokensCarried(const KvRowsLayout& layout, const KvPayload& payload, std::size_t room)
{
    const std::size_t block = blockRowsBytes(layout, payload);
    if (block == 0)
        return 0;
    const std::size_t blocks = room / block;
    return static_cast<std::uint32_t>(std::min<std::size_t>(payload.tokens, blocks * layout.blockTokens));
}

void composeRows(const KvRowsLayout& layout, const KvPayload& payload, std::uint32_t tokens, std::uint32_t sequence,
                 std::vector<std::byte>& out)
{
    const KvHeadRange heads = headsOf(layout, payload.shard, payload.shards);
    const std::uint32_t bt = layout.blockTokens;
    const std::size_t e = layout.elementBytes;
    const std::size_t half = std::size_t{heads.count} * bt * layout.headDim * e; // K (or V) of one block
    const std::uint32_t blocks = (tokens + bt - 1) / bt;
    out.assign(2 * half * blocks, std::byte{0});
    for (std::uint32_t b = 0; b < blocks; ++b)
        for (std::uint32_t row = 0; row < bt && b * bt + row < tokens; ++row) {
            const std::uint32_t token = payload.firstToken + b * bt + row;
            for (std::uint32_t h = 0; h < heads.count; ++h) {
                std::byte* k = out.data() + 2 * half * b + ((std::size_t{h} * bt + row) * layout.headDim) * e;
                for (std::uint32_t d = 0; d < layout.headDim; ++d) {
                    putElement(k + d * e, e, kvRowValue(sequence, token, heads.from + h, d, false));
                    putElement(k + half + d * e, e, kvRowValue(sequence, token, heads.from + h, d, true));
                }
            }
        }
}

std::optional<KvRowMismatch> firstRowMismatch(const KvRowsLayout& layout, const KvPayload& payload,
                                              std::span<const std::byte> expected, std::span<const std::byte> landed)
{
    const std::size_t n = std::min(expected.size(), landed.size());
    if (std::memcmp(expected.data(), landed.data(), n) == 0)
        return std::nullopt;
    const std::size_t e = layout.elementBytes;
    std::size_t at = 0;
    while (at + e <= n && std::memcmp(expected.data() + at, landed.data() + at, e) == 0)
        at += e;
    // Where element `at / e` sits: block, K or V, head, row, dimension.
    const KvHeadRange heads = headsOf(layout, payload.shard, payload.shards);
    const std::size_t element = at / e;
    const std::size_t perHalf = std::size_t{heads.count} * layout.blockTokens * layout.headDim;
    const std::size_t block = element / (2 * perHalf);
    const std::size_t inBlock = element % (2 * perHalf);
    const bool isV = inBlock >= perHalf;
    const std::size_t inHalf = inBlock % perHalf;
    KvRowMismatch m;
    m.isV = isV;
    m.dim = static_cast<std::uint32_t>(inHalf % layout.headDim);
    const std::size_t row = inHalf / layout.headDim % layout.blockTokens;
    m.kvHead = heads.from + static_cast<std::uint32_t>(inHalf / layout.headDim / layout.blockTokens);
    m.token = payload.firstToken + static_cast<std::uint32_t>(block * layout.blockTokens + row);
    m.found = elementAt(landed.data() + at, e);
    m.expected = elementAt(expected.data() + at, e);
    return m;
}

std::string describeRowMismatch(const KvPayload& payload, const KvRowMismatch& m)
{
    return fmt::format("token {}'s {} at KV head {}, dimension {} holds {:.6g} where sequence {}'s is {:.6g}", m.token,
                       m.isV ? "V" : "K", m.kvHead, m.dim, m.found, payload.sequence, m.expected);
}

std::size_t payloadRoom(std::size_t size, std::span<const CopyPiece> pieces)
{
    std::size_t room = 0;
    forPayloadRuns(size, pieces, CopySide::Destination, [&](std::size_t, std::size_t n) { room += n; });
    return room;
}

} // namespace coh::core::real
