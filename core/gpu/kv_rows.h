#pragma once
// What a decode sequence writes into a node's K/V pool (docs/real-backend.md#decode-steps), the same on the CPU and on
// a GPU: each token's K and V rows, whose values follow from (sequence, token, KV head, dimension) alone, and each
// block's stamp, which says whose tokens its rows are, how many are written, and seals them with a checksum. A read
// checks the stamp it expects and the seal against the rows its block holds; attention's output can be checked against
// a reference computed from kvRowValue.
//
// C++17 and free of CUDA types: the CUDA kernel that writes rows on a GPU (cuda_attention.cu) computes the same values.
#include <cstdint>

#ifdef __CUDACC__
#define COH_HOST_DEVICE __host__ __device__
#else
#define COH_HOST_DEVICE
#endif

namespace coh::core {

// What a block's memory says about its rows. A block no sequence holds carries kFreeBlock (written when it is given
// back), so a read through a table that still names it finds it freed.
struct BlockStamp {
    std::uint32_t sequence = 0xffffffffu;
    std::uint32_t tokens = 0;  // rows written, from the block's first
    std::uint32_t version = 0; // writes the block has had, one more at each (freed stamps included)
    // The seal: the checksum (kvUnitSum summed) of rows [0, tokens) as their writes left them: extended by each append,
    // cut with the rows a cut-back drops, never taken afresh from rows the write did not write. A read can therefore
    // tell rows that changed since they were written (a stray write, a flipped bit) from rows as written.
    std::uint32_t checksum = 0;
};
constexpr std::uint32_t kFreeBlock = 0xffffffffu;

inline bool operator==(const BlockStamp& a, const BlockStamp& b)
{
    return a.sequence == b.sequence && a.tokens == b.tokens && a.version == b.version && a.checksum == b.checksum;
}

// One write into a pool: rows [fromRow, toRow) of `block` get `sequence`'s tokens firstToken + row (every KV head, K
// and V), and its stamp becomes {sequence, toRow, its version + 1, its seal} (sealSource says from what). A sequence of
// kFreeBlock writes no row, only the freed stamp; a write with fromRow == toRow only sets the stamp (a sequence cut
// back within the block).
//
// The first `landedRows` of its rows are not computed but taken as they are from bytes a transfer landed in the node's
// memory (real/landed_kv_rows.h), handed to the write beside it: at byte `landedAt` of them, K [head][row][dimension]
// over those rows, then V the same, in the pool's element.
struct KvRowWrite {
    std::uint32_t block = 0;
    std::uint32_t sequence = 0;
    std::uint32_t firstToken = 0; // the token of the block's row 0
    std::uint32_t fromRow = 0;
    std::uint32_t toRow = 0;
    std::uint32_t landedRows = 0; // from fromRow; 0: every row computed
    std::uint64_t landedAt = 0;
    bool appended = false; // rows decode made at this step (the sequence had rows already): always computed
};

// Whether a write fits a pool of `blocks` blocks of `blockTokens` rows; both backends refuse one that does not.
inline bool writeFits(const KvRowWrite& w, std::uint32_t blocks, std::uint32_t blockTokens)
{
    return w.block < blocks && w.fromRow <= w.toRow && w.toRow <= blockTokens && w.landedRows <= w.toRow - w.fromRow;
}

// The landed bytes a write takes (its K and V of landedRows rows, every KV head), for a pool of `kvHeads` heads of
// `headDim` elements of `elementBytes` each.
inline std::uint64_t landedRowsBytes(const KvRowWrite& w, std::uint32_t kvHeads, std::uint32_t headDim,
                                     std::uint64_t elementBytes)
{
    return 2ull * kvHeads * w.landedRows * headDim * elementBytes;
}

// Whether a write's landed rows lie within the `landedBytes` handed to it, on an element's boundary; both backends
// refuse one that does not.
inline bool landedFits(const KvRowWrite& w, std::uint64_t landedBytes, std::uint32_t kvHeads, std::uint32_t headDim,
                       std::uint64_t elementBytes)
{
    return w.landedRows == 0 || (w.landedAt % elementBytes == 0 && w.landedAt <= landedBytes &&
                                 landedRowsBytes(w, kvHeads, headDim, elementBytes) <= landedBytes - w.landedAt);
}

// The K (isV false) or V value of a sequence's token at one KV head and dimension: uniform in [-1, 1) from a hash of
// the five, with 24 bits so that fp32 holds it exactly and fp16 rounds it the same way everywhere.
COH_HOST_DEVICE inline float kvRowValue(std::uint32_t sequence, std::uint32_t token, std::uint32_t kvHead,
                                        std::uint32_t dim, bool isV)
{
    std::uint64_t x = (std::uint64_t{sequence} << 32 | token) * 0x9e3779b97f4a7c15ull;
    x ^= (std::uint64_t{kvHead} << 33 | std::uint64_t{dim} << 1 | (isV ? 1u : 0u)) + 0x632be59bd9b4e019ull;
    // splitmix64's finaliser
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    x ^= x >> 31;
    return static_cast<float>(static_cast<std::uint32_t>(x >> 40)) * (1.0f / 8388608.0f) - 1.0f;
}

// What a block a pool grew by holds before any sequence writes it (NodeAttention::grow): the values of no sequence
// (kFreeBlock) keyed by the block and the element's place in it, so a grown block reads as a block from a pool that
// has served a while, the same on the CPU and on a GPU. `element` counts within one block's K (or V) elements.
COH_HOST_DEVICE inline float grownBlockValue(std::uint32_t block, std::uint32_t element, bool isV)
{
    return kvRowValue(kFreeBlock, block, 0, element, isV);
}

// A block's checksum is a sum, modulo 2^32, over the 4-byte units of its K and V rows (each row's bytes in memory
// order, little-endian, its last unit zero-padded) of kvUnitSum(place, unit). A sum, so rows can be added as they are
// appended (and taken off as a block is cut back), and a GPU's threads can add theirs in any order. Each unit's term
// is a full-avalanche bijection (lowbias32) of the unit keyed by its place in the block: one changed unit always
// changes the sum, a unit moved within the block changes it too, and changes to two units cancel only as often as two
// random 32-bit terms do. 32-bit arithmetic throughout, so the CPU's loop runs in vector lanes.
constexpr std::uint32_t kKvPlaceKey = 0x9e3779b9u;
COH_HOST_DEVICE inline std::uint32_t kvRowUnits(std::uint32_t rowBytes)
{
    return (rowBytes + 3) / 4;
}
// The place of unit `unit` of row `row` of one KV head's K (isV false) or V rows, in a block of `kvHeads` heads of
// `blockTokens` rows of `rowUnits` units.
COH_HOST_DEVICE inline std::uint32_t kvUnitPlace(bool isV, std::uint32_t kvHead, std::uint32_t row, std::uint32_t unit,
                                                 std::uint32_t kvHeads, std::uint32_t blockTokens,
                                                 std::uint32_t rowUnits)
{
    return (((isV ? kvHeads : 0u) + kvHead) * blockTokens + row) * rowUnits + unit;
}
// lowbias32 (Chris Wellons' hash-prospector): xor-shifts and odd multiplies, each step invertible.
COH_HOST_DEVICE inline std::uint32_t kvUnitMix(std::uint32_t x)
{
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}
COH_HOST_DEVICE inline std::uint32_t kvUnitSum(std::uint32_t place, std::uint32_t unit)
{
    return kvUnitMix(unit ^ (place + 1) * kKvPlaceKey);
}
// Unit `unit` of a row of `rowBytes` bytes, little-endian, zero past the row's end.
COH_HOST_DEVICE inline std::uint32_t kvRowUnit(const unsigned char* row, std::uint32_t rowBytes, std::uint32_t unit)
{
    const std::uint32_t at = unit * 4;
    const std::uint32_t n = rowBytes - at < 4 ? rowBytes - at : 4;
    std::uint32_t out = 0;
    for (std::uint32_t i = 0; i < n; ++i)
        out |= std::uint32_t{row[at + i]} << (8 * i);
    return out;
}

// How a write's seal follows from the stamp it finds (`before`): a write from row 0 seals what it wrote; a later
// write of the same sequence keeps the seal of the rows before it, less the rows it cuts (from toRow up to the
// stamp's tokens), plus the rows it wrote; a later write over another's stamp seals only the rows it wrote, so a read
// finds the rows it skipped unsealed. Each backend sums the rows (block_checksum.h, the CUDA kernel) and applies this.
struct SealSource {
    std::uint32_t kept = 0;               // the part of before's seal kept
    std::uint32_t cutFrom = 0, cutTo = 0; // rows whose sum is taken off it
    std::uint32_t addFrom = 0, addTo = 0; // rows whose sum is added
};
COH_HOST_DEVICE inline SealSource sealSource(const BlockStamp& before, const KvRowWrite& w)
{
    SealSource s;
    s.addFrom = w.fromRow;
    s.addTo = w.toRow;
    if (w.fromRow > 0 && before.sequence == w.sequence) {
        s.kept = before.checksum;
        if (before.tokens > w.toRow) {
            s.cutFrom = w.toRow;
            s.cutTo = before.tokens;
        }
    }
    return s;
}

} // namespace coh::core
