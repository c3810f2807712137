#pragma once
// Each decode sequence's own blocks in a node's K/V pool (docs/real-backend.md#decode-steps), as a paged KV cache
// keeps them: a sequence takes blocks from the free list when its context first needs them and reads the same ones
// at every later step, and gives them back when it leaves its instance's batch (finished, or moved to another tier).
// The free list starts shuffled, so tables come out scattered over the pool as they do in a pool that has served a
// while. When the pool has no free block left, a sequence borrows one another holds (in block order), and the count
// of such blocks says so: the pool bounds the memory, not the batch. A block goes back to the free list only when no
// table holds it any more.
//
// What the blocks hold follows the tables: a step queues the writes (core/gpu/kv_rows.h) that put each sequence's
// tokens into the blocks it holds alone, the rows of its context at its first step and one more row as it appends,
// and a freed stamp into each block given back. After they land, every read of a block a sequence holds alone checks
// the block's stamp, and the stamp's seal against the checksum of the rows the block holds. A borrowed block is read as
// it is, neither written nor checked, until the others holding it give it back: then its rows are written again for the
// one left, and checked from then on.
#include "core/gpu/kv_rows.h"

#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

namespace coh::core::real {

// A read whose block does not hold what the sequence's table expects.
struct BadBlockRead {
    std::uint32_t sequence = 0;
    std::uint32_t index = 0;        // in the sequence's table
    std::uint32_t block = 0;        // in the pool
    BlockStamp expected, found;     // expected's checksum is not known: only found's seal and what the rows hold
    std::uint32_t heldChecksum = 0; // the checksum of the rows found's stamp counts, as the block holds them
};
// What is wrong, from the two stamps, e.g. "holds sequence 4's tokens: ...".
std::string describeBadRead(const BadBlockRead& read);

// A decode read that does not hold what it expects: the run stops with this, naming the sequence and the block.
class BlockReadError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

// The failures of a paged KV cache that real engines have shipped, played on the next step for the checks to catch: a
// block freed while a table still names it, an append whose write never lands, and a row changed in memory after it
// was written (a stray write, a flipped bit), its seal left as it was.
enum class ReadFault { None, FreedBlock, LostAppend, CorruptedRow };

struct BlockReadCheck {
    std::uint64_t checked = 0;       // block reads whose stamp was checked
    std::uint64_t borrowed = 0;      // block reads of borrowed blocks, not checked
    std::uint64_t summed = 0;        // of the checked, those whose rows were summed against their stamp's seal
    std::optional<BadBlockRead> bad; // the first that failed, in batch and table order
};

class SequenceBlocks {
  public:
    // A pool of `poolBlocks` (at least 1) blocks of `blockTokens` rows each, its free list shuffled from `seed`.
    SequenceBlocks(std::uint32_t poolBlocks, std::uint32_t blockTokens, std::uint32_t seed);

    // Starts a step of the instance `owner` whose batch is `batch` (sequence ids): the owner's sequences not in it
    // give their blocks back first, so the ones that join can take them. The step's writes start empty.
    void beginStep(const std::string& owner, std::span<const std::uint32_t> batch);
    // The sequence's block table for this step, as many blocks as `contextTokens` needs: its earlier ones kept, new
    // ones taken from the free list; one that needs fewer gives the rest back. Queues the writes of the tokens it has
    // not written yet. The span stays valid until the next hold() of the same sequence or the next beginStep().
    std::span<const std::uint32_t> hold(std::uint32_t sequence, std::uint32_t contextTokens);
    // How many more blocks than the free list holds the batch's sequences (`batch`, their `contexts`) would take at
    // this step, before any of them is held: what a pool must grow by for none of them to borrow a block.
    std::uint32_t shortfall(std::span<const std::uint32_t> batch, std::span<const std::uint32_t> contexts) const;
    // The pool grew to `poolBlocks` blocks (NodeAttention::grow): the new ones join the free list, shuffled, after the
    // blocks already free. Fewer than the pool has: nothing changes.
    void grow(std::uint32_t poolBlocks);
    // The step's writes, each block's once: a freed stamp that a sequence's write follows in the same step is
    // dropped, since the block is that sequence's now; two of one sequence's writes into a block are joined. Each
    // block written counts one more version (its stamp's), once a step however often this is asked.
    std::span<const KvRowWrite> writes();
    // Plays `fault` on this step's writes, once they are complete: FreedBlock frees the first block the step's first
    // sequence holds alone (its stamp says freed, its table still names it); LostAppend drops the step's first append
    // into a block already written; CorruptedRow names that sequence's first block with rows as corruptedBlock(), for
    // the pool to flip a byte of once the writes land. False when the step has nothing to play it on.
    bool injectFault(ReadFault fault);
    // The block this step's CorruptedRow fault changes once the writes land, if it plays one.
    std::optional<std::uint32_t> corruptedBlock() const { return m_corrupted; }

    // The blocks whose reads checkReads() checks for the step's sequences (`batch`, as given to beginStep), in the
    // order it checks them: each block a sequence holds alone, in batch and table order.
    std::span<const std::uint32_t> blocksToCheck(std::span<const std::uint32_t> batch);
    // Checks the reads of the step's sequences against `stamps`, every block's as the pool holds it once the writes
    // landed, and `checksums`, blocksToCheck()'s as the pool holds their rows: each block a sequence holds alone must
    // carry its id, its rows and the version its writes made, and its rows must still sum to the stamp's seal. Empty
    // `checksums` check the stamps alone (RealCpuOptions::sumSeals off). Throws std::invalid_argument when they are
    // neither empty nor one per block checked.
    BlockReadCheck checkReads(std::span<const std::uint32_t> batch, std::span<const BlockStamp> stamps,
                              std::span<const std::uint32_t> checksums) const;

    // The i-th block the free list would hand out next: what no sequence holds, its bytes a freed block's. Once
    // the free list runs out, blocks sequences hold, in the order sharing takes them.
    std::uint32_t unheld(std::size_t i) const;

    std::uint32_t poolBlocks() const { return m_poolBlocks; }
    std::uint32_t blockTokens() const { return m_blockTokens; }
    std::uint32_t freeBlocks() const { return static_cast<std::uint32_t>(m_free.size()); }
    // Blocks handed to a sequence while another held them (the pool was full), over the run.
    std::uint64_t sharedBlocks() const { return m_shared; }
    // The most blocks the tables held at once, a block held by two tables counted twice: the pool it takes for no
    // block to be shared.
    std::uint64_t peakHeldBlocks() const { return m_peakHeld; }
    // Token rows the writes put into the pool over the run, and those of them that were appends (a row after the ones
    // a sequence had written at an earlier step).
    std::uint64_t rowsWritten() const { return m_rowsWritten; }
    std::uint64_t rowsAppended() const { return m_rowsAppended; }

  private:
    struct Table {
        std::string owner;
        std::uint64_t step = 0;    // the last step whose batch named it
        std::uint32_t written = 0; // tokens its writes have covered
        std::vector<std::uint32_t> blocks;
        std::vector<std::uint8_t> alone; // per block: taken from the free list, so only this table writes it
    };
    std::size_t blocksFor(std::uint32_t contextTokens) const
    {
        return (std::size_t{contextTokens} + m_blockTokens - 1) / m_blockTokens;
    }
    std::uint32_t take(std::uint32_t sequence, bool& alone); // a free block, or a borrowed one
    void giveBack(std::uint32_t block, std::uint32_t sequence);
    // The one table left holding `block` now holds it alone: its rows there are written again, and checked from now.
    void holdAlone(std::uint32_t block, std::uint32_t sequence);
    void queueRows(std::uint32_t sequence, Table& t, std::uint32_t contextTokens);
    // Calls f(sequence, index in its table, pool block, held alone) for each read of the batch's sequences, in batch
    // and table order.
    template <class F> void forEachRead(std::span<const std::uint32_t> batch, F&& f) const;

    std::uint32_t m_poolBlocks;
    std::uint32_t m_blockTokens;
    std::vector<std::uint32_t> m_free;                 // handed out from the back
    std::vector<std::vector<std::uint32_t>> m_holders; // per block: the sequences whose tables hold it
    std::unordered_map<std::uint32_t, Table> m_tables;
    std::string m_owner;
    std::uint64_t m_step = 0;
    std::uint32_t m_shareCursor = 0;
    std::uint64_t m_shared = 0;
    std::uint64_t m_held = 0, m_peakHeld = 0; // table entries, now and at most
    std::vector<KvRowWrite> m_writes, m_compact;
    std::vector<std::uint32_t> m_lastWrite;     // per block: its last write's index in m_writes this step (writes())
    std::vector<std::uint32_t> m_versions;      // per block: the writes the tables made to it, as its stamp counts them
    std::vector<std::uint64_t> m_versionStep;   // per block: the step whose write m_versions counted last
    std::optional<std::uint32_t> m_firstHeld;   // the step's first sequence
    std::optional<std::uint32_t> m_firstAppend; // the block of the step's first append
    std::optional<std::uint32_t> m_corrupted;   // the block the step's CorruptedRow fault changes
    std::vector<std::uint32_t> m_toCheck;       // blocksToCheck()'s
    std::uint64_t m_rowsWritten = 0;
    std::uint64_t m_rowsAppended = 0;
    std::uint32_t m_seed; // the free list's shuffle, and each growth's
};

} // namespace coh::core::real
