#include "core/real/copy_bench.h"

#include "core/real/bench_clock.h"

#include "core/real/node_worker.h"

#include <algorithm>
#include <chrono>

namespace coh::core::real {

std::vector<CopyBenchRow> runCopyBench(const CopyBenchOptions& options)
{
    NodeArena src(options.arenaBytes, 1);
    NodeArena plain(options.arenaBytes, 2);
    NodeWorker worker(options.arenaBytes, 3);
    const std::size_t arena = src.size();
    std::vector<CopyBenchRow> rows;
    std::uint64_t message = 0;
    for (const std::size_t bytes : options.sizes) {
        std::vector<double> plainNs, copyNs, messageNs;
        std::size_t offset = 0;
        for (int round = 0; round < std::max(1, options.rounds); ++round) {
            // Both copy the same region; the next round walks on, so large copies come from memory, not a cache.
            auto start = BenchClock::now();
            copyRegion(src, plain, offset, bytes);
            plainNs.push_back(std::max(1.0, nsSince(start)));

            const CopyStamp stamp{.message = ++message, .src = 0, .dst = 1, .bytes = bytes};
            src.stamp(offset, stamp, bytes);
            start = BenchClock::now();
            const CopyResult result = worker.copyFrom(src, offset, bytes, stamp);
            messageNs.push_back(nsSince(start));
            copyNs.push_back(static_cast<double>(std::max<std::int64_t>(1, result.ns)));
            offset = nextOffset(offset, bytes, arena);
        }
        rows.push_back({bytes, median(plainNs), median(copyNs), median(messageNs)});
    }
    return rows;
}

} // namespace coh::core::real
