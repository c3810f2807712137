#pragma once
// Where the K/V rows transfers carried (kv_payload_rows.h) lie in each node's memory, for as long as it still holds
// them (docs/real-backend.md#what-a-transfer-carries). A decode sequence's first step takes its context's rows from
// there into its pool's blocks, rather than computing them again: the bytes it attends over are the bytes that moved.
// Memory written again (a later copy landing there, a sender's stamp or rows) loses the rows that landed in the bytes
// it wrote, and no others, so a node's record never names more bytes than its memory holds.
#include "core/net/transport.h"
#include "core/real/kv_payload_rows.h"

#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

namespace coh::core::real {

class NodeResources;

class LandedKvRows {
  public:
    // A stretch of a landing's rows: `bytes` at `memory` in the node's memory hold the rows' bytes from `payload` on.
    struct Segment {
        std::size_t memory = 0, payload = 0, bytes = 0;
    };
    // What a node's pool asks for: `sequence`'s rows from `firstToken`, KV heads [0, kvHeads), in this element.
    struct RowsWanted {
        std::uint32_t sequence = 0, firstToken = 0, tokens = 0;
        std::uint32_t kvHeads = 1, headDim = 1;
        std::size_t elementBytes = 2;
    };

    // A copy into `node` landed the rows of `payload`'s first `tokens` tokens (laid out as `layout` says), at
    // `segments` (in payload order, together the rows' bytes from 0). Whatever was still recorded in those bytes is
    // dropped first (the copy wrote over it), so a node's segments never overlap.
    void landed(std::uint32_t node, const KvRowsLayout& layout, const KvPayload& payload, std::uint32_t tokens,
                std::vector<Segment> segments);
    // Bytes [offset, offset + bytes) of the node's memory were written: whatever landed there is gone.
    void overwritten(std::uint32_t node, std::size_t offset, std::size_t bytes);

    // How many of the wanted rows, from the first, landed in the node's memory and are still there whole (K and V),
    // every head's.
    std::uint32_t rowsHeld(std::uint32_t node, const RowsWanted& wanted) const;
    // Reads the first `rows` of them (at most rowsHeld()) from the node's memory, K [head][row][dimension] then V,
    // appended to `out`.
    void read(NodeResources& nodes, std::uint32_t node, const RowsWanted& wanted, std::uint32_t rows,
              std::vector<std::byte>& out) const;

    // Landings whose rows are still held, over every node.
    std::size_t held() const { return m_runs.size(); }

    // Rows that land in `node`'s memory are set aside for its decode pool, as a real engine lands a transfer in the
    // blocks its pool set aside for it: later messages place their pieces elsewhere (setAside) until the pool takes
    // the rows (taken). Past `budgetBytes` set aside there, the oldest landing goes back to being memory like any
    // other, so the node's messages always have room.
    void setAsideFor(std::uint32_t node, std::size_t budgetBytes);
    // Whether any of [offset, offset + bytes) of the node's memory holds rows set aside for its pool.
    bool setAside(std::uint32_t node, std::size_t offset, std::size_t bytes) const;
    // The node's pool took the sequence's rows (or will not): its landings there are set aside no longer.
    void taken(std::uint32_t node, std::uint32_t sequence);
    // The bytes set aside in the node's memory now.
    std::size_t setAsideBytes(std::uint32_t node) const { return node < m_aside.size() ? m_aside[node].bytes : 0; }

  private:
    struct Run {
        std::uint32_t node = 0;
        KvRowsLayout layout;
        KvPayload payload;
        std::uint32_t tokens = 0;
        KvHeadRange heads;
        std::vector<Segment> segments;
        bool setAside = false; // for the node's pool (setAsideFor)
    };
    // Per node: what may be set aside, what is, and the landings set aside, oldest first (some given back since).
    struct Aside {
        std::size_t budget = 0, bytes = 0;
        std::deque<std::uint64_t> order;
    };
    struct Extent {
        std::size_t end = 0;
        std::uint64_t run = 0;
    };
    // The run that holds `head` of the wanted rows' first token, newest first; null when none does.
    const Run* runFor(std::uint32_t node, const RowsWanted& wanted, std::uint32_t head) const;
    // Where the run's payload holds the wanted rows' `row` at `head` (its K; its V halfOf() further on).
    static std::size_t rowOffset(const Run& run, const RowsWanted& wanted, std::uint32_t head, std::uint32_t row,
                                 std::size_t rowBytes);
    static std::size_t halfOf(const Run& run); // K (or V) of one of its blocks
    // The segment that holds (or held, before a cut) the run's payload byte `payloadOffset`; end() when none starts
    // at or before it.
    static std::vector<Segment>::const_iterator segmentAt(const Run& run, std::size_t payloadOffset);
    // Whether the run's payload bytes [payloadOffset, + bytes) are all still in memory.
    static bool holds(const Run& run, std::size_t payloadOffset, std::size_t bytes);
    // Memory [from, to) of the node was written over, inside the extent that starts at `start`.
    void cut(std::uint32_t node, std::size_t start, const Extent& extent, std::size_t from, std::size_t to);
    // Copies `out.size()` bytes of the run's rows from `payloadOffset` on out of its node's memory.
    static void readRun(NodeResources& nodes, const Run& run, std::size_t payloadOffset, std::span<std::byte> out);
    void forget(std::uint64_t id);
    void ensureNode(std::uint32_t node);
    // The run is set aside no longer (its bytes stay recorded, until written over).
    void giveBack(Run& run);
    static std::size_t bytesOf(const Run& run);

    std::uint64_t m_next = 0;
    std::unordered_map<std::uint64_t, Run> m_runs;
    std::vector<std::map<std::size_t, Extent>> m_extents; // per node: its runs' segments by memory offset
    std::vector<Aside> m_aside;                           // per node
    // per node, per sequence: its runs, oldest first
    std::vector<std::unordered_map<std::uint32_t, std::vector<std::uint64_t>>> m_bySequence;
};

// Whether `read` (read()'s `rows` rows) holds the wanted sequence's values (kvRowValue, as a pool of that element holds
// them); else what differs first. A check of this file's own arithmetic (RealCpuOptions::checkLandedRows), not of the
// copy: that was checked on landing.
std::optional<std::string> notTheSequences(const LandedKvRows::RowsWanted& wanted, std::uint32_t rows,
                                           std::span<const std::byte> read);

} // namespace coh::core::real
