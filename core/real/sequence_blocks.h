#pragma once
// Each decode sequence's own blocks in a node's K/V pool (docs/real-backend.md#decode-steps), as a paged KV cache
// keeps them: a sequence takes blocks from the free list when its context first needs them and reads the same ones
// at every later step, and gives them back when it leaves its instance's batch (finished, or moved to another tier).
// The free list starts shuffled, so tables come out scattered over the pool as they do in a pool that has served a
// while. When the pool has no free block left, a sequence shares one another holds (in block order), and the count
// of such blocks says so: the pool bounds the memory, not the batch. A block goes back to the free list only when no
// table holds it any more.
#include <cstdint>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

namespace coh::core::real {

class SequenceBlocks {
  public:
    // A pool of `poolBlocks` (at least 1) blocks, its free list shuffled from `seed`.
    SequenceBlocks(std::uint32_t poolBlocks, std::uint32_t seed);

    // Starts a step of the instance `owner` whose batch is `batch` (sequence ids): the owner's sequences not in it
    // give their blocks back first, so the ones that join can take them.
    void beginStep(const std::string& owner, std::span<const std::uint32_t> batch);
    // The sequence's block table for this step: as many blocks as `blocks`, its earlier ones kept, new ones taken from
    // the free list; one that needs fewer gives the rest back. The span stays valid until the next hold() of the
    // same sequence or the next beginStep().
    std::span<const std::uint32_t> hold(std::uint32_t sequence, std::uint32_t blocks);

    // The i-th block the free list would hand out next: what no sequence holds, its bytes a freed block's. Once
    // the free list runs out, blocks sequences hold, in the order sharing takes them.
    std::uint32_t unheld(std::size_t i) const;

    std::uint32_t poolBlocks() const { return m_poolBlocks; }
    std::uint32_t freeBlocks() const { return static_cast<std::uint32_t>(m_free.size()); }
    // Blocks handed to a sequence while another held them (the pool was full), over the run.
    std::uint64_t sharedBlocks() const { return m_shared; }

  private:
    struct Table {
        std::string owner;
        std::uint64_t step = 0; // the last step whose batch named it
        std::vector<std::uint32_t> blocks;
    };
    std::uint32_t take(); // a free block, or a shared one
    void giveBack(std::uint32_t block);

    std::uint32_t m_poolBlocks;
    std::vector<std::uint32_t> m_free;    // handed out from the back
    std::vector<std::uint32_t> m_holders; // per block: the tables that hold it
    std::unordered_map<std::uint32_t, Table> m_tables;
    std::string m_owner;
    std::uint64_t m_step = 0;
    std::uint32_t m_shareCursor = 0;
    std::uint64_t m_shared = 0;
};

} // namespace coh::core::real
