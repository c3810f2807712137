#pragma once
// What a decode sequence writes into a node's K/V pool (docs/real-backend.md#decode-steps), the same on the CPU and on
// a GPU: each token's K and V rows, whose values follow from (sequence, token, KV head, dimension) alone, and each
// block's stamp, which says whose tokens its rows are and how many are written. A read checks the stamp it expects;
// attention's output can be checked against a reference computed from kvRowValue.
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
    std::uint32_t tokens = 0; // rows written, from the block's first
};
constexpr std::uint32_t kFreeBlock = 0xffffffffu;

inline bool operator==(const BlockStamp& a, const BlockStamp& b)
{
    return a.sequence == b.sequence && a.tokens == b.tokens;
}

// One write into a pool: rows [fromRow, toRow) of `block` get `sequence`'s tokens firstToken + row (every KV head, K
// and V), and its stamp becomes {sequence, toRow}. A sequence of kFreeBlock writes no row, only the freed stamp; a
// write with fromRow == toRow only sets the stamp (a sequence cut back within the block).
struct KvRowWrite {
    std::uint32_t block = 0;
    std::uint32_t sequence = 0;
    std::uint32_t firstToken = 0; // the token of the block's row 0
    std::uint32_t fromRow = 0;
    std::uint32_t toRow = 0;
};

// Whether a write fits a pool of `blocks` blocks of `blockTokens` rows; both backends refuse one that does not.
inline bool writeFits(const KvRowWrite& w, std::uint32_t blocks, std::uint32_t blockTokens)
{
    return w.block < blocks && w.fromRow <= w.toRow && w.toRow <= blockTokens;
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

} // namespace coh::core
