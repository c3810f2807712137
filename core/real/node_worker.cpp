#include "core/real/node_worker.h"

#include <chrono>
#include <cstring>
#include <utility>

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

NodeWorker::NodeWorker(std::size_t arenaBytes, std::uint64_t seed)
    : m_thread([this, arenaBytes, seed] { loop(arenaBytes, seed); })
{
    m_done.wait(0); // the arena is ready, or could not be made
    if (m_error) {
        m_thread.join();
        std::rethrow_exception(m_error);
    }
}

NodeWorker::~NodeWorker()
{
    m_jobs.push(Job{});
    m_posted.fetch_add(1, std::memory_order_release);
    m_posted.notify_one();
    m_thread.join();
}

CopyResult NodeWorker::copyFrom(const NodeArena& src, std::size_t offset, std::size_t bytes, const CopyStamp& stamp,
                                CopyFault fault)
{
    return post(Job{&src, nullptr, nullptr, offset, bytes, stamp, fault});
}

std::int64_t NodeWorker::runTimed(void (*task)(void*), void* context)
{
    return post(Job{nullptr, task, context}).ns;
}

CopyResult NodeWorker::post(const Job& job)
{
    const std::uint64_t done = m_done.load(std::memory_order_acquire);
    m_jobs.push(job);
    m_posted.fetch_add(1, std::memory_order_release);
    m_posted.notify_one();
    spinThenWait(m_done, done);
    if (m_error)
        std::rethrow_exception(std::exchange(m_error, nullptr));
    return m_result;
}

void NodeWorker::loop(std::size_t arenaBytes, std::uint64_t seed)
{
    try {
        m_arena = std::make_unique<NodeArena>(arenaBytes, seed);
    } catch (...) {
        m_error = std::current_exception();
    }
    m_done.store(1, std::memory_order_release);
    m_done.notify_one();
    if (!m_arena)
        return;
    std::uint64_t seen = 0;
    for (;;) {
        spinThenWait(m_posted, seen);
        seen = m_posted.load(std::memory_order_acquire);
        Job job;
        while (m_jobs.pop(job)) {
            if (job.task) {
                const auto start = std::chrono::steady_clock::now();
                try {
                    job.task(job.context);
                } catch (...) {
                    m_error = std::current_exception();
                }
                m_result = CopyResult{};
                m_result.ns =
                    std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start)
                        .count();
            } else if (job.src) {
                m_result = copy(job);
            } else {
                return;
            }
            m_done.fetch_add(1, std::memory_order_release);
            m_done.notify_one();
        }
    }
}

CopyResult NodeWorker::copy(const Job& job)
{
    using Clock = std::chrono::steady_clock;
    // A partial write leaves the first cache line as it was (or the whole of a shorter message).
    const std::size_t skip =
        job.fault == CopyFault::PartialWrite ? std::min(job.bytes, NodeArena::kAlign) : std::size_t{0};
    const auto start = Clock::now();
    copyRegion(*job.src, *m_arena, (job.offset + skip) % m_arena->size(), job.bytes - skip);
    const auto end = Clock::now();
    if (job.fault == CopyFault::FlipByte && job.bytes > 0)
        m_arena->data()[(job.offset + job.bytes / 2) % m_arena->size()] ^= std::byte{0x5a};
    CopyResult result;
    result.ns = std::chrono::duration_cast<std::chrono::nanoseconds>(end - start).count();
    result.firstBad = firstDifference(*job.src, *m_arena, job.offset, job.bytes);
    result.stampBytes = std::min({job.bytes, sizeof result.held, m_arena->size() - job.offset});
    std::memcpy(&result.held, m_arena->data() + job.offset, result.stampBytes);
    result.stampOk = std::memcmp(&result.held, &job.stamp, result.stampBytes) == 0;
    return result;
}

} // namespace coh::core::real
