#pragma once
// The thread that plays one topology node on the real-cpu backend: it owns the node's arena (and touched it
// first), performs the copies into it and runs the node's compute, timing each with the steady clock. Jobs reach
// it through a lock-free single-producer queue and it signals completion through an atomic, so handing one over
// costs no lock; the time measured is the job alone, not the hand-over.
#include "core/real/node_arena.h"

#include <boost/lockfree/spsc_queue.hpp>

#include <atomic>
#include <cstdint>
#include <exception>
#include <memory>
#include <optional>
#include <span>
#include <thread>
#include <utility>

namespace coh::core::real {

// What a copy does wrong on purpose (fault injection), one per failure class real KV engines have shipped: the
// checks must catch each on the bytes and name it (copy_check.h). The worker plays the first two, the transport the
// rest.
enum class CopyFault : std::uint8_t {
    None,
    FlipByte,       // one byte of the destination flipped after the copy
    PartialWrite,   // the first cache line never written: the destination keeps what it held before
    FreedSource,    // the sender released the region before the copy read it: a freed buffer is copied
    ExpiredLease,   // served from a copy whose lease had expired: it holds the version before the latest
    LostCompletion, // copied, but the completion never reaches the receiver's owner
    TornSource,     // the sender writes into its payload's last byte after sealing it, before the copy reads it
    WrongBlocks,    // the sender's descriptors name another sequence's blocks: a faithful copy of the wrong K/V rows
};

// How the worker's faults play on a message's pieces, in any memory of `size` bytes (real-cpu's arena, real-cuda's
// device memory), so both backends fail alike:
// - the part of the first piece a copy writes: all of it, or under PartialWrite all but its first cache line;
CopyPiece writtenPart(const CopyPiece& first, CopyFault fault);
// - where FlipByte flips: the message's middle byte, wherever its piece landed (none for an empty message);
std::optional<std::size_t> flippedByte(std::span<const CopyPiece> pieces, std::size_t size);
// - where the receiver's stamp is read back: the first piece's start, as much of the stamp as the piece and the
//   memory's end leave (offset, bytes).
std::pair<std::size_t, std::size_t> heldStamp(const CopyPiece& first, std::size_t size);

struct CopyResult {
    std::int64_t ns = 0; // measured time of the copy
    // The first byte of the destination that differs from the source, -1: none or not compared. The transport compares
    // only a copy whose stamp or seal failed (NodeResources::firstDifference), to name what went wrong.
    std::int64_t firstBad = -1;
    CopyStamp held;             // what the destination's first bytes hold where the stamp should be
    std::size_t stampBytes = 0; // how much of the stamp the message covers (a short message holds part of it)
    bool stampOk = true;        // those bytes are the message's stamp
    // What landed matches the stamp's checksum (the transport checks it after the copy; payload_checksum.h).
    bool checksumOk = true;
    std::uint32_t checksum = 0; // the payload's CRC-32 as the receiver holds it
};

class NodeWorker {
  public:
    // Starts the thread, which allocates and fills the arena before this returns.
    NodeWorker(std::size_t arenaBytes, std::uint64_t seed);
    ~NodeWorker();
    NodeWorker(const NodeWorker&) = delete;
    NodeWorker& operator=(const NodeWorker&) = delete;

    NodeArena& arena() { return *m_arena; }

    // Runs `task(context)` on the worker thread and waits; returns its measured time in ns.
    std::int64_t runTimed(void (*task)(void*), void* context);

    // Copies a message's pieces from `src` into this node's arena on the worker thread, checks them and waits. The
    // first piece starts with the stamp. One thread posts to a worker at a time, and waits for each job.
    CopyResult copyFrom(const NodeArena& src, std::span<const CopyPiece> pieces, const CopyStamp& stamp,
                        CopyFault fault = CopyFault::None);

  private:
    struct Job {
        const NodeArena* src = nullptr; // a copy from here, or
        void (*task)(void*) = nullptr;  // a task to time; neither: stop
        void* context = nullptr;
        std::span<const CopyPiece> pieces; // the poster's, alive until the job is done
        CopyStamp stamp;
        CopyFault fault = CopyFault::None;
    };
    void loop(std::size_t arenaBytes, std::uint64_t seed);
    CopyResult copy(const Job& job);
    CopyResult post(const Job& job); // hands the job over and waits for its result

    std::unique_ptr<NodeArena> m_arena;
    boost::lockfree::spsc_queue<Job, boost::lockfree::capacity<8>> m_jobs;
    std::atomic<std::uint64_t> m_posted{0}, m_done{0};
    CopyResult m_result;        // written by the worker before m_done moves
    std::exception_ptr m_error; // likewise: what the job (or making the arena) threw
    std::thread m_thread;
};

} // namespace coh::core::real
