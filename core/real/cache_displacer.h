#pragma once
// Leaves a core's own caches holding other memory, as a run's traffic leaves them: a run's copy finds its source and
// destination in the shared cache or in memory, seldom in the copying core's own cache, which other nodes' steps and
// copies on that core have filled since (docs/real-backend.md#copies-as-a-runs-traffic-leaves-the-caches). A copy
// bench that does not do this measures copies faster than a run's, by as much as where its threads happened to run.
#include "core/real/node_worker.h"

#include <cstddef>
#include <cstdint>
#include <thread>
#include <vector>

namespace coh::core::real {

class CacheDisplacer {
  public:
    // Reads `bytes` of memory of its own on each call, a line at a time; 0: defaultBytes().
    explicit CacheDisplacer(std::size_t bytes = 0);
    // Twice this machine's core cache (coreCacheBytes), or 8 MiB where it is not told: what the least-recently-used
    // lines of a core's cache are all replaced by.
    static std::size_t defaultBytes();
    std::size_t bytes() const { return m_here.words.size() * sizeof(std::uint64_t); }

    // On the calling thread's core: all of its memory, or its first `bytes` (0: none).
    void here() { read(&m_here); }
    void here(std::size_t bytes);
    // On the worker's core, as a job of its own.
    void on(NodeWorker& worker);

    // What each side has read so far, in cache lines, and the thread that read last (for the tests).
    struct Side {
        std::vector<std::uint64_t> words;
        std::uint64_t linesRead = 0;
        std::thread::id lastReader;
    };
    const Side& hereSide() const { return m_here; }
    const Side& workerSide() const { return m_worker; }

  private:
    static void read(void* side);
    static void readWords(Side& side, std::size_t words);
    Side m_here, m_worker;
};

} // namespace coh::core::real
