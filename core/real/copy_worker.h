#pragma once
// The thread that plays one topology node on the real-cpu backend: it owns the node's arena (and touched it
// first) and performs the copies into it, timing each with the steady clock. Jobs reach it through a lock-free
// single-producer queue and it signals completion through an atomic, so handing a copy over costs no lock; the
// time measured is the copy alone, not the hand-over.
#include "core/real/node_arena.h"

#include <boost/lockfree/spsc_queue.hpp>

#include <atomic>
#include <cstdint>
#include <memory>
#include <thread>

namespace coh::core::real {

struct CopyResult {
    std::int64_t ns = 0;        // measured time of the copy
    std::int64_t firstBad = -1; // the first byte of the destination that differs from the source, -1: none
    bool stampOk = true;        // the destination's first bytes hold the message's stamp
};

class CopyWorker {
  public:
    // Starts the thread, which allocates and fills the arena before this returns.
    CopyWorker(std::size_t arenaBytes, std::uint64_t seed);
    ~CopyWorker();
    CopyWorker(const CopyWorker&) = delete;
    CopyWorker& operator=(const CopyWorker&) = delete;

    NodeArena& arena() { return *m_arena; }

    // Copies the stamped region of `src` into this node's arena on the worker thread, checks it and waits for it.
    // `corrupt` flips a byte of the destination after the copy (fault injection: the check must catch it).
    CopyResult copyFrom(const NodeArena& src, std::size_t offset, std::size_t bytes, const CopyStamp& stamp,
                        bool corrupt);

  private:
    struct Job {
        const NodeArena* src = nullptr; // null: stop
        std::size_t offset = 0, bytes = 0;
        CopyStamp stamp;
        bool corrupt = false;
    };
    void loop(std::size_t arenaBytes, std::uint64_t seed);
    CopyResult run(const Job& job);

    std::unique_ptr<NodeArena> m_arena;
    boost::lockfree::spsc_queue<Job, boost::lockfree::capacity<8>> m_jobs;
    std::atomic<std::uint64_t> m_posted{0}, m_done{0};
    CopyResult m_result; // written by the worker before m_done moves
    std::thread m_thread;
};

} // namespace coh::core::real
