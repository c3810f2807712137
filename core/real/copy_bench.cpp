#include "core/real/copy_bench.h"

#include "core/real/arena_slots.h"
#include "core/real/bench_clock.h"
#include "core/real/node_worker.h"

#include <algorithm>
#include <chrono>
#include <memory>
#include <stdexcept>
#include <string>

namespace coh::core::real {

void checkBenchCopy(const CopyResult& result, std::size_t bytes)
{
    if (result.firstBad >= 0 || !result.stampOk)
        throw std::runtime_error("bench copy: a copy of " + std::to_string(bytes) +
                                 " B does not hold what was sent; its time is no figure");
}

void benchPieces(std::vector<CopyPiece>& out, ArenaSlots* slots, std::size_t pieceBytes, std::size_t offset,
                 std::size_t bytes)
{
    out.clear();
    if (!slots) {
        out.push_back({offset, offset, bytes});
        return;
    }
    for (std::size_t at = 0; at < bytes; at += pieceBytes)
        out.push_back({slots->next(), slots->next(), std::min(pieceBytes, bytes - at)});
}

std::vector<CopyBenchRow> runCopyBench(const CopyBenchOptions& options)
{
    NodeArena src(options.arenaBytes, 1);
    NodeArena plain(options.arenaBytes, 2);
    NodeWorker worker(options.arenaBytes, 3);
    const std::size_t arena = src.size();
    std::vector<CopyBenchRow> rows;
    std::uint64_t message = 0;
    std::unique_ptr<ArenaSlots> slots;
    if (options.descriptorBytes > 0 && options.descriptorBytes < arena)
        slots = std::make_unique<ArenaSlots>(arena, options.descriptorBytes, 4);
    std::vector<CopyPiece> pieces;
    for (const std::size_t bytes : options.sizes) {
        std::vector<double> plainNs, copyNs, messageNs;
        std::size_t offset = 0;
        for (int round = 0; round < std::max(1, options.rounds); ++round) {
            // Both copy the same region; the next round walks on, so large copies come from memory, not a cache.
            auto start = BenchClock::now();
            copyRegion(src, plain, offset, bytes);
            plainNs.push_back(std::max(1.0, nsSince(start)));

            // The backend's copy: in descriptors scattered over slots on both sides, or as the same region.
            benchPieces(pieces, slots.get(), options.descriptorBytes, offset, bytes);
            const CopyStamp stamp{.message = ++message, .src = 0, .dst = 1, .bytes = bytes};
            src.stamp(pieces.front().srcOffset, stamp, pieces.front().bytes);
            start = BenchClock::now();
            const CopyResult result = worker.copyFrom(src, pieces, stamp);
            checkBenchCopy(result, bytes);
            messageNs.push_back(nsSince(start));
            copyNs.push_back(static_cast<double>(std::max<std::int64_t>(1, result.ns)));
            offset = nextOffset(offset, bytes, arena);
        }
        const std::size_t descriptors = slots ? (bytes + options.descriptorBytes - 1) / options.descriptorBytes : 1;
        rows.push_back({bytes, median(plainNs), median(copyNs), median(messageNs), descriptors});
    }
    return rows;
}

} // namespace coh::core::real
