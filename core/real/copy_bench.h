#pragma once
// `cohsim bench copy`: the real-cpu backend's copies against plain memcpy on this machine, side by side in one run
// (alternating, medians), so the ratio holds however the machine's speed drifts (docs/real-backend.md#copy-speed).
#include "core/real/node_arena.h"
#include "core/real/node_worker.h"

#include <cstddef>
#include <vector>

namespace coh::core::real {

struct CopyBenchOptions {
    std::vector<std::size_t> sizes{64, 4096, 64 << 10, 1 << 20, 16 << 20, 64 << 20};
    int rounds = 15;                                 // per size, each a plain copy then a backend copy
    std::size_t arenaBytes = std::size_t{128} << 20; // the walked memory: past the last-level cache
    // The backend copies in pieces of this size scattered over both arenas, as a run does (RealCpuOptions); 0: as one
    // region. memcpy always copies one region: the difference is what the descriptors cost.
    std::size_t descriptorBytes = 0;
};

struct CopyBenchRow {
    std::size_t bytes = 0;
    double plainNs = 0;   // median: memcpy on the calling thread
    double copyNs = 0;    // median: the backend's copy as its worker timed it (what a run's clock gets)
    double messageNs = 0; // median: the whole message as the sender waits for it (hand-over, copy, check, wake-up)
    std::size_t descriptors = 1; // pieces the backend copied it in
    double plainGBps() const { return static_cast<double>(bytes) / plainNs; }
    double copyGBps() const { return static_cast<double>(bytes) / copyNs; }
    double ratio() const { return plainNs / copyNs; } // backend bandwidth / memcpy bandwidth
};

std::vector<CopyBenchRow> runCopyBench(const CopyBenchOptions& options);

// A bench copy that does not hold what was sent is not a figure: throws std::runtime_error naming its size.
void checkBenchCopy(const CopyResult& result, std::size_t bytes);

class ArenaSlots;
// A bench message of `bytes` as the backend copies it: pieces of `pieceBytes` in slots taken in turn on both sides,
// or (no slots) one region at `offset` on both sides. Returns the pieces into `out`.
void benchPieces(std::vector<CopyPiece>& out, ArenaSlots* slots, std::size_t pieceBytes, std::size_t offset,
                 std::size_t bytes);

} // namespace coh::core::real
