#include "core/real/node_worker.h"

#include <algorithm>
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

CopyResult NodeWorker::copyFrom(const NodeArena& src, std::span<const CopyPiece> pieces, const CopyStamp& stamp,
                                CopyFault fault)
{
    return post(Job{&src, nullptr, nullptr, pieces, stamp, fault});
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

CopyPiece writtenPart(const CopyPiece& first, CopyFault fault)
{
    // A partial write leaves the first cache line as it was (or the whole of a shorter first piece).
    const std::size_t skip = fault == CopyFault::PartialWrite ? std::min(first.bytes, NodeArena::kAlign) : 0;
    return {first.srcOffset + skip, first.dstOffset + skip, first.bytes - skip};
}

std::optional<std::size_t> flippedByte(std::span<const CopyPiece> pieces, std::size_t size)
{
    std::size_t total = 0;
    for (const CopyPiece& p : pieces)
        total += p.bytes;
    std::size_t at = total / 2;
    for (const CopyPiece& p : pieces) {
        if (at < p.bytes)
            return (p.dstOffset + at) % size;
        at -= p.bytes;
    }
    return std::nullopt;
}

std::pair<std::size_t, std::size_t> heldStamp(const CopyPiece& first, std::size_t size)
{
    const std::size_t at = first.dstOffset % size;
    return {at, std::min({first.bytes, sizeof(CopyStamp), size - at})};
}

CopyResult NodeWorker::copy(const Job& job)
{
    using Clock = std::chrono::steady_clock;
    CopyResult result;
    if (job.pieces.empty())
        return result;
    const CopyPiece& first = job.pieces.front();
    const auto start = Clock::now();
    copyPiece(*job.src, *m_arena, writtenPart(first, job.fault));
    for (std::size_t i = 1; i < job.pieces.size(); ++i)
        copyPiece(*job.src, *m_arena, job.pieces[i]);
    const auto end = Clock::now();
    if (job.fault == CopyFault::FlipByte)
        if (const auto at = flippedByte(job.pieces, m_arena->size()))
            m_arena->flip(*at);
    result.ns = std::chrono::duration_cast<std::chrono::nanoseconds>(end - start).count();
    const auto [at, stampBytes] = heldStamp(first, m_arena->size());
    result.stampBytes = stampBytes;
    std::memcpy(&result.held, m_arena->data() + at, result.stampBytes);
    result.stampOk = std::memcmp(&result.held, &job.stamp, result.stampBytes) == 0;
    return result;
}

} // namespace coh::core::real
