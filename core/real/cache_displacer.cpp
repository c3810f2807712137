#include "core/real/cache_displacer.h"

#include "core/real/core_cache.h"

#include <algorithm>

namespace coh::core::real {

namespace {
// Where the reads' sum goes, so the reads are not optimised away.
volatile std::uint64_t g_displacedSink = 0;
constexpr std::size_t kWordsPerLine = 64 / sizeof(std::uint64_t);
} // namespace

std::size_t CacheDisplacer::defaultBytes()
{
    const std::size_t cache = coreCacheBytes();
    return cache > 0 ? 2 * cache : std::size_t{8} << 20;
}

CacheDisplacer::CacheDisplacer(std::size_t bytes)
{
    const std::size_t words = std::max<std::size_t>(1, (bytes > 0 ? bytes : defaultBytes()) / sizeof(std::uint64_t));
    m_here.words.assign(words, 1);
}

void CacheDisplacer::read(void* context)
{
    Side& side = *static_cast<Side*>(context);
    readWords(side, side.words.size());
}

void CacheDisplacer::readWords(Side& side, std::size_t words)
{
    words = std::min(words, side.words.size());
    std::uint64_t sum = 0;
    // One word per cache line brings the whole line in.
    for (std::size_t i = 0; i < words; i += kWordsPerLine)
        sum += side.words[i];
    g_displacedSink = sum;
    side.linesRead += (words + kWordsPerLine - 1) / kWordsPerLine;
    side.lastReader = std::this_thread::get_id();
}

void CacheDisplacer::here(std::size_t bytes)
{
    if (bytes > 0)
        readWords(m_here, bytes / sizeof(std::uint64_t));
}

void CacheDisplacer::on(NodeWorker& worker)
{
    // Made at the first call: a displacer used on the calling thread alone holds one memory.
    if (m_worker.words.empty())
        m_worker.words.assign(m_here.words.size(), 2);
    worker.runTimed(&CacheDisplacer::read, &m_worker);
}

} // namespace coh::core::real
