#include "core/real/copy_worker.h"

#include <chrono>
#include <cstring>

namespace coh::core::real {

namespace {
// Spins briefly before sleeping: a hand-over takes a microsecond or two, a futex sleep and wake-up ten times that,
// and the sender waits for every copy.
void spinThenWait(const std::atomic<std::uint64_t>& value, std::uint64_t old)
{
    for (int i = 0; i < 4096; ++i) {
        if (value.load(std::memory_order_acquire) != old)
            return;
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#endif
    }
    value.wait(old, std::memory_order_acquire);
}
} // namespace

CopyWorker::CopyWorker(std::size_t arenaBytes, std::uint64_t seed)
    : m_thread([this, arenaBytes, seed] { loop(arenaBytes, seed); })
{
    m_done.wait(0); // the arena is ready
}

CopyWorker::~CopyWorker()
{
    m_jobs.push(Job{});
    m_posted.fetch_add(1, std::memory_order_release);
    m_posted.notify_one();
    m_thread.join();
}

CopyResult CopyWorker::copyFrom(const NodeArena& src, std::size_t offset, std::size_t bytes, const CopyStamp& stamp,
                                bool corrupt)
{
    const std::uint64_t done = m_done.load(std::memory_order_acquire);
    m_jobs.push(Job{&src, offset, bytes, stamp, corrupt});
    m_posted.fetch_add(1, std::memory_order_release);
    m_posted.notify_one();
    spinThenWait(m_done, done);
    return m_result;
}

void CopyWorker::loop(std::size_t arenaBytes, std::uint64_t seed)
{
    m_arena = std::make_unique<NodeArena>(arenaBytes, seed);
    m_done.store(1, std::memory_order_release);
    m_done.notify_one();
    std::uint64_t seen = 0;
    for (;;) {
        spinThenWait(m_posted, seen);
        seen = m_posted.load(std::memory_order_acquire);
        Job job;
        while (m_jobs.pop(job)) {
            if (!job.src)
                return;
            m_result = run(job);
            m_done.fetch_add(1, std::memory_order_release);
            m_done.notify_one();
        }
    }
}

CopyResult CopyWorker::run(const Job& job)
{
    using Clock = std::chrono::steady_clock;
    const auto start = Clock::now();
    copyRegion(*job.src, *m_arena, job.offset, job.bytes);
    const auto end = Clock::now();
    if (job.corrupt && job.bytes > 0)
        m_arena->data()[(job.offset + job.bytes / 2) % m_arena->size()] ^= std::byte{0x5a};
    CopyResult result;
    result.ns = std::chrono::duration_cast<std::chrono::nanoseconds>(end - start).count();
    result.firstBad = firstDifference(*job.src, *m_arena, job.offset, job.bytes);
    CopyStamp held;
    const std::size_t n = std::min({job.bytes, sizeof held, m_arena->size() - job.offset});
    std::memcpy(&held, m_arena->data() + job.offset, n);
    result.stampOk = std::memcmp(&held, &job.stamp, n) == 0;
    return result;
}

} // namespace coh::core::real
