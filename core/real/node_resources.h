#pragma once
// What plays a topology node on a real backend (docs/real-backend.md#what-each-node-runs-on-the-mapping): its memory,
// the engine that copies a message into it, and the kernel its decode steps run. real-cpu gives each node a worker
// thread and an arena (NodeWorkers); real-cuda a partition of a GPU: its own device memory and stream (GpuNodes).
// The copy transport and the measured compute ask only this, so both backends share them and everything above.
#include "core/gpu/kv_rows.h"
#include "core/net/backend_summary.h"
#include "core/real/landed_kv_rows.h"
#include "core/real/node_arena.h"
#include "core/real/node_worker.h"
#include "core/real/paged_attention.h"
#include "core/real/payload_checksum.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace coh::core::real {

struct RealCpuOptions {
    std::size_t arenaBytes = std::size_t{64} << 20; // per node: larger than a last-level cache, so copies reach DRAM
    std::uint32_t layers = 1; // decode attention layers run for real per step; the step's time scales to the model's
    // A message is copied in pieces of this many bytes, each to its own place on each side, as a copy engine takes
    // one descriptor per piece of a paged cache; 0: a message is one contiguous region. A run takes one layer's K and
    // V of a block (descriptorBytesFor) unless told otherwise.
    std::size_t descriptorBytes = 0;
    // After each decode step, sum every block it read against its stamp's seal (docs/real-backend.md#what-the-blocks-
    // hold). The sums read the blocks again, which keeps them in the caches for the next step and makes its measured
    // attention faster than a cache that reads its blocks once; a run whose times are compared turns it off and
    // checks the stamps alone.
    bool sumSeals = true;
    // A decode node's K/V pool starts at arenaBytes and, when a step needs more blocks than its free list holds,
    // grows (at least doubling, off the step's clock) up to this many bytes; at that size its sequences borrow blocks
    // as a full pool's do. At most arenaBytes: it never grows. kPoolAsMemoryAllows: as large as the memory it lives
    // in leaves room for (this machine's; on real-cuda one GPU's), which makeNodeResources works out
    // (real::largestPoolBytes); a NodeResources made without it keeps the pool at arenaBytes.
    static constexpr std::size_t kPoolAsMemoryAllows = ~std::size_t{0};
    std::size_t poolMaxBytes = kPoolAsMemoryAllows;
    // Compare every row a decode pool takes from the bytes a transfer landed with the sequence's values before it
    // writes them (real::notTheSequences), and stop the run if one differs: tests turn it on, to check where the rows
    // are read from; a run need not, since the landing already checked them.
    bool checkLandedRows = false;
    // A decode step whose layer reads at most this many K and V bytes is fitted apart, as one that found them in the
    // core's cache (BackendSummary::attentionWarmFit); none: the pool's own (NodeAttention::warmBytes: this
    // machine's core cache on real-cpu); 0: none apart. Tests set it, to have steps of both kinds on any machine.
    std::optional<std::size_t> warmBytes;
};

// The K/V element a backend holds a model's cache in, given the model's element size (its dtype bytes): real-cuda's
// kernel reads fp16; real-cpu's fp16 for a model of 2 bytes or fewer (fp16; bf16, the same size; fp8 widened, so
// twice its bytes) and fp32 for more (fp32; any other size is read as fp32).
inline std::size_t kvElementBytes(const std::string& backend, std::size_t modelElementBytes)
{
    return backend == "real-cuda" || modelElementBytes <= 2 ? 2 : 4;
}

// A node's memory as its mapping says it: MiB, or KiB below one.
inline std::string memorySize(std::size_t bytes)
{
    return bytes >= (std::size_t{1} << 20) ? fmt::format("{} MiB", bytes >> 20)
                                           : fmt::format("{} KiB", (bytes + 1023) >> 10);
}

// A node's K and V pool and the kernel that attends over it, on the node's own resource.
class NodeAttention {
  public:
    virtual ~NodeAttention() = default;
    virtual const PagedKvShape& shape() const = 0;
    virtual std::uint32_t blocks() const = 0;
    // Bytes per K or V element: 2 (fp16) or 4 (fp32); see kvElementBytes.
    virtual std::size_t elementBytes() const = 0;
    // The most K and V bytes a layer of a step may read and find them still in the caches at the next step, which
    // reads them again (real-cpu: the core's own cache, coreCacheBytes); 0: not told apart (real-cuda).
    virtual std::size_t warmBytes() const { return 0; }
    // The K and V bytes one layer of the kernel reads for `tokens` cached tokens.
    double kvBytes(std::uint64_t tokens) const { return shape().kvBytes(tokens, static_cast<double>(elementBytes())); }
    std::size_t poolBytes() const { return 2 * std::size_t{blocks()} * shape().blockFloats() * elementBytes(); }
    // Runs the kernel `layers` times over the sequences (block tables into this pool) and returns the time of all of
    // them, measured where they ran, in ns; `out` ([sequences][queryHeads][headDim]) gets their output.
    virtual std::int64_t run(std::span<const float> q, std::span<const PagedSequence> sequences, float scale,
                             std::uint32_t layers, std::span<float> out) = 0;
    // Lands a step's writes (core/gpu/kv_rows.h) in the pool where it lives: rows' K and V values and blocks' stamps,
    // a block named by one write at most (SequenceBlocks::writes() joins them). A write's landed rows are taken from
    // `landed` (KvRowWrite::landedAt), in the pool's element; the rest are computed. Off the step's clock. Throws
    // std::invalid_argument for a write past the pool, its block or `landed` (real-cuda: or two writes of one block).
    virtual void write(std::span<const KvRowWrite> writes, std::span<const std::byte> landed) = 0;
    // Every block's stamp as the pool's memory holds it now; each starts freed. Valid until the next call.
    virtual std::span<const BlockStamp> stamps() = 0;
    // Each of `blocks`' checksum (kv_rows.h) over the rows its stamp says are written, as the pool's memory holds
    // them now, in the order given: what a read compares with the stamp's seal. Off the step's clock. Valid until the
    // next call. Throws std::invalid_argument for a block past the pool.
    virtual std::span<const std::uint32_t> checksums(std::span<const std::uint32_t> blocks) = 0;
    // Flips a byte of `block`'s first K row and leaves its seal as it was (ReadFault::CorruptedRow: a stray write or
    // a flipped bit in memory).
    virtual void flipByte(std::uint32_t block) = 0;
    // Makes the pool `blocks` blocks long where it lives, off the step's clock: every block's rows and stamp kept, the
    // new blocks freed and holding grownBlockValue (kv_rows.h). Throws std::invalid_argument for fewer blocks than it
    // has; std::bad_alloc (real-cpu) or GpuOutOfMemory (real-cuda) when its memory cannot hold them, the pool then
    // keeping its blocks.
    virtual void grow(std::uint32_t blocks) = 0;
};

class NodeResources {
  public:
    virtual ~NodeResources() = default;
    // The backend's name, as the run store records it ("real-cpu", "real-cuda").
    virtual std::string name() const = 0;
    virtual const RealCpuOptions& options() const = 0;

    // The size of the node's memory, made now if it had none.
    virtual std::size_t memoryBytes(std::uint32_t node) = 0;
    // The writes into a node's memory. Each tells landedRows() which bytes it wrote, so the rows that landed there are
    // lost with them, whoever writes; the backend's own (the protected ones below) do the writing.
    //
    // Writes (as much of) the stamp as `bytes` covers at `offset` of the node's memory.
    void stamp(std::uint32_t node, std::size_t offset, const CopyStamp& stamp, std::size_t bytes)
    {
        m_landedRows.overwritten(node, offset, std::min(bytes, sizeof stamp));
        stampMemory(node, offset, stamp, bytes);
    }
    // Copies a message's pieces from `src`'s memory into `dst`'s as `dst`'s resource copies, reads back the stamp that
    // landed against `stamp` (the first piece starts with it), and waits; `fault` plays a copy gone wrong (the worker's
    // classes: FlipByte, PartialWrite).
    CopyResult copy(std::uint32_t src, std::uint32_t dst, std::span<const CopyPiece> pieces, const CopyStamp& stamp,
                    CopyFault fault)
    {
        const std::size_t size = memoryBytes(dst);
        for (const CopyPiece& piece : pieces)
            forContiguousRuns(size, piece, piece.bytes, [&](std::size_t, std::size_t at, std::size_t n) {
                m_landedRows.overwritten(dst, at, n);
            });
        return copyPieces(src, dst, pieces, stamp, fault);
    }
    // Flips the byte at `offset` of the node's memory (CopyFault::TornSource: a write into a region being copied).
    void flipByte(std::uint32_t node, std::size_t offset)
    {
        m_landedRows.overwritten(node, offset, 1);
        flipMemoryByte(node, offset);
    }
    // Host bytes into the node's memory at `offset`, and back out, `offset + size` within its memory: what a sender's
    // prefill left in a message's payload (its K/V rows, kv_payload_rows.h) and what the receiver reads back to check.
    // Off the clock.
    void writeBytes(std::uint32_t node, std::size_t offset, std::span<const std::byte> bytes)
    {
        m_landedRows.overwritten(node, offset, bytes.size());
        writeMemory(node, offset, bytes);
    }
    virtual void readBytes(std::uint32_t node, std::size_t offset, std::span<std::byte> out) = 0;
    // The CRC-32 of a message's payload (payload_checksum.h) as the node's memory holds it, on `side` of `pieces`:
    // the sender's seal before it stamps, the receiver's check after the copy.
    virtual std::uint32_t payloadChecksum(std::uint32_t node, std::span<const CopyPiece> pieces, CopySide side) = 0;
    // The first byte of a message's pieces (each up to one memory's worth, in message order) where `dst`'s memory
    // differs from `src`'s, -1 when none does: what tells a corrupted copy from a torn source once the seal failed.
    virtual std::int64_t firstDifference(std::uint32_t src, std::uint32_t dst, std::span<const CopyPiece> pieces) = 0;

    // The node's K/V pool of this shape, of the element the backend holds a model of `modelElementBytes` in
    // (kvElementBytes), made (or made again for another shape or element) now, filled where it lives.
    virtual NodeAttention& attention(std::uint32_t node, const PagedKvShape& shape, std::size_t modelElementBytes) = 0;

    // The nodes that have a resource, in topology order, and what plays each.
    virtual std::vector<BackendNodeMapping> mapping() const = 0;

    // The K/V rows transfers landed in the nodes' memories, still there: the copy transport records each landing, every
    // write above loses what it wrote over, and a decode pool takes its sequences' context rows from what is left.
    LandedKvRows& landedRows() { return m_landedRows; }

  protected:
    // The backend's writes, as the public ones above say; a resource may call them itself (a fault of its own).
    virtual void stampMemory(std::uint32_t node, std::size_t offset, const CopyStamp& stamp, std::size_t bytes) = 0;
    virtual CopyResult copyPieces(std::uint32_t src, std::uint32_t dst, std::span<const CopyPiece> pieces,
                                  const CopyStamp& stamp, CopyFault fault) = 0;
    virtual void flipMemoryByte(std::uint32_t node, std::size_t offset) = 0;
    virtual void writeMemory(std::uint32_t node, std::size_t offset, std::span<const std::byte> bytes) = 0;

  private:
    LandedKvRows m_landedRows;
};

} // namespace coh::core::real
