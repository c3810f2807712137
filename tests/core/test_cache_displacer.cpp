// A copy bench that leaves the caches as a run's traffic does (docs/real-backend.md#copies-as-a-runs-traffic-leaves-
// the-caches): the displacer reads its memory a line at a time on each thread a copy involves.
#include "core/real/cache_displacer.h"
#include "core/real/calibration.h"
#include "core/real/copy_bench.h"
#include "core/real/core_cache.h"

#include <gtest/gtest.h>

#include <thread>

using namespace coh::core;

TEST(CacheDisplacer, ReadsTwiceTheCoresCacheALineAtATime)
{
    const std::size_t cache = real::coreCacheBytes();
    EXPECT_EQ(real::CacheDisplacer::defaultBytes(), cache > 0 ? 2 * cache : std::size_t{8} << 20);
    real::CacheDisplacer displacer(1 << 20);
    EXPECT_EQ(displacer.bytes(), std::size_t{1} << 20);
    displacer.here();
    displacer.here();
    // 1 MiB is 16,384 lines of 64 B, read once a call.
    EXPECT_EQ(displacer.hereSide().linesRead, 2u * 16384u);
    EXPECT_EQ(displacer.hereSide().lastReader, std::this_thread::get_id());
    EXPECT_EQ(displacer.workerSide().linesRead, 0u);
    // Or as much of it as asked: 64 KiB is 1,024 lines; none for 0; no more than it holds.
    displacer.here(64 << 10);
    EXPECT_EQ(displacer.hereSide().linesRead, 2u * 16384u + 1024u);
    displacer.here(0);
    EXPECT_EQ(displacer.hereSide().linesRead, 2u * 16384u + 1024u);
    displacer.here(std::size_t{8} << 20);
    EXPECT_EQ(displacer.hereSide().linesRead, 3u * 16384u + 1024u);
}

TEST(CacheDisplacer, ReadsOnTheWorkersThreadWhatTheWorkersCoreCaches)
{
    real::CacheDisplacer displacer(64 << 10);
    real::NodeWorker worker(1 << 20, 1);
    displacer.on(worker);
    EXPECT_EQ(displacer.workerSide().linesRead, 1024u);
    EXPECT_NE(displacer.workerSide().lastReader, std::thread::id{});
    EXPECT_NE(displacer.workerSide().lastReader, std::this_thread::get_id());
    EXPECT_EQ(displacer.hereSide().linesRead, 0u);
}

TEST(CacheDisplacer, CalibrationCopiesAfterLeavingTheCachesAndTheBenchOnlyWhenAsked)
{
    EXPECT_TRUE(real::CalibrationOptions().copy.leaveCaches);
    EXPECT_FALSE(real::CopyBenchOptions().leaveCaches);
    // Left so, every copy still holds what was sent (the bench throws on one that does not).
    real::CopyBenchOptions options;
    options.sizes = {4096, 100000};
    options.rounds = 2;
    options.arenaBytes = 1 << 20;
    options.descriptorBytes = 16 << 10;
    options.leaveCaches = true;
    const auto rows = real::runCopyBench(options);
    ASSERT_EQ(rows.size(), 2u);
    EXPECT_EQ(rows[1].descriptors, 7u); // 100,000 B in pieces of 16 KiB
    for (const auto& row : rows)
        EXPECT_GE(row.messageNs, row.copyNs);
}
