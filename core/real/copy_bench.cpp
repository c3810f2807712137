#include "core/real/copy_bench.h"

#include "core/real/arena_slots.h"
#include "core/real/bench_clock.h"
#include "core/real/cache_displacer.h"
#include "core/real/node_worker.h"
#include "core/real/payload_checksum.h"

#include <algorithm>
#include <chrono>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

namespace coh::core::real {

namespace {

// Where the plain side's seals go: computed for what reading the source does to the caches, not for their value.
volatile std::uint32_t g_sealSink = 0;

void checkBenchCopy(const CopyResult& result, std::size_t bytes, bool sealHeld)
{
    if (result.firstBad >= 0 || !result.stampOk || !sealHeld)
        throw std::runtime_error("bench copy: a copy of " + std::to_string(bytes) +
                                 " B does not hold what was sent; its time is no figure");
}

// A message of `bytes` as the backend copies it: pieces of `pieceBytes` in slots taken in turn on both sides, or (no
// slots) one region at `offset` on both sides.
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

} // namespace

std::vector<CopyBenchRow> runCopyRows(const CopyBenchOptions& options, std::size_t arena, const CopyBenchSides& sides)
{
    std::unique_ptr<ArenaSlots> slots;
    if (options.descriptorBytes > 0 && options.descriptorBytes < arena)
        slots = std::make_unique<ArenaSlots>(arena, options.descriptorBytes, 4);
    std::vector<CopyBenchRow> rows;
    std::uint64_t message = 0;
    std::vector<CopyPiece> pieces;
    for (const std::size_t bytes : options.sizes) {
        std::vector<double> plainNs, copyNs, messageNs;
        std::size_t offset = 0;
        for (int round = 0; round < std::max(1, options.rounds); ++round) {
            plainNs.push_back(std::max(1.0, sides.plain(offset, bytes, ++message)));
            benchPieces(pieces, slots.get(), options.descriptorBytes, offset, bytes);
            CopyStamp stamp{.message = ++message, .src = 0, .dst = 1, .bytes = bytes};
            sides.seal(pieces, stamp);
            const auto start = BenchClock::now();
            const CopyResult result = sides.copy(pieces, stamp);
            messageNs.push_back(nsSince(start));
            checkBenchCopy(result, bytes, sides.landed(pieces) == stamp.checksum);
            copyNs.push_back(static_cast<double>(std::max<std::int64_t>(1, result.ns)));
            offset = nextOffset(offset, bytes, arena);
        }
        const std::size_t descriptors = slots ? (bytes + options.descriptorBytes - 1) / options.descriptorBytes : 1;
        rows.push_back({bytes, median(plainNs), median(copyNs), median(messageNs), descriptors});
    }
    return rows;
}

std::vector<CopyBenchRow> runCopyBench(const CopyBenchOptions& options)
{
    // Each side reads and writes memories of its own (CopyBenchSides).
    NodeArena plainSrc(options.arenaBytes, 4);
    NodeArena plain(options.arenaBytes, 2);
    NodeArena src(options.arenaBytes, 1);
    NodeWorker worker(options.arenaBytes, 3);
    std::optional<CacheDisplacer> displacer;
    if (options.leaveCaches)
        displacer.emplace();
    CopyBenchSides sides;
    sides.plain = [&](std::size_t offset, std::size_t bytes, std::uint64_t) {
        const CopyPiece whole{offset, offset, bytes};
        g_sealSink = payloadChecksum(plainSrc, std::span(&whole, 1), CopySide::Source);
        if (displacer)
            displacer->here();
        const auto start = BenchClock::now();
        copyRegion(plainSrc, plain, offset, bytes);
        return nsSince(start);
    };
    sides.seal = [&](std::span<const CopyPiece> pieces, CopyStamp& stamp) {
        stamp.checksum = payloadChecksum(src, pieces, CopySide::Source);
        src.stamp(pieces.front().srcOffset, stamp, pieces.front().bytes);
        if (displacer) {
            displacer->here();
            displacer->on(worker);
        }
    };
    sides.copy = [&](std::span<const CopyPiece> pieces, const CopyStamp& stamp) {
        return worker.copyFrom(src, pieces, stamp);
    };
    // The worker is idle between copies: its memory is the caller's to read.
    sides.landed = [&](std::span<const CopyPiece> pieces) {
        return payloadChecksum(worker.arena(), pieces, CopySide::Destination);
    };
    return runCopyRows(options, src.size(), sides);
}

} // namespace coh::core::real
