#pragma once
// `cohsim bench copy`: the real-cpu backend's copies against plain memcpy on this machine, side by side in one run
// (alternating, medians), so the ratio holds however the machine's speed drifts (docs/real-backend.md#copy-speed).
#include "core/real/node_arena.h"
#include "core/real/node_worker.h"

#include <cstddef>
#include <functional>
#include <span>
#include <vector>

namespace coh::core::real {

struct CopyBenchOptions {
    std::vector<std::size_t> sizes{64, 4096, 64 << 10, 1 << 20, 16 << 20, 64 << 20};
    int rounds = 15;                                 // per size, each a plain copy then a backend copy
    std::size_t arenaBytes = std::size_t{128} << 20; // the walked memory: past the last-level cache
    // The backend copies in pieces of this size scattered over both arenas, as a run does (RealCpuOptions); 0: as one
    // region. memcpy always copies one region: the difference is what the descriptors cost.
    std::size_t descriptorBytes = 0;
    // real-cpu: before each copy, after its seal, the threads that seal and copy it each read other memory of twice
    // their core's cache (CacheDisplacer), so the copy finds its bytes where a run's copies find theirs: in the shared
    // cache or in memory, not in one core's own. Calibration copies so; real-cuda's device memory ignores it.
    bool leaveCaches = false;
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

// The two sides a copy bench alternates, on either real backend. Each copies between memories of its own, and each
// reads its source once off the clock before its copy, as a run's sender does to seal it: each side then finds in the
// caches what the other would, and neither what the other just read.
struct CopyBenchSides {
    // The plain copy of the region at `offset` (memcpy; one device copy on a GPU), its source read once before it
    // off the clock: its time in ns.
    std::function<double(std::size_t offset, std::size_t bytes, std::uint64_t message)> plain;
    // Off the clock, what a run's sender does before its copy (CopyTransport::send): seals the payload (its checksum,
    // into `stamp`) and writes the stamp into the sender's memory where the first piece starts.
    std::function<void(std::span<const CopyPiece> pieces, CopyStamp& stamp)> seal;
    // The backend's copy of the message's pieces, made and checked as a run makes it.
    std::function<CopyResult(std::span<const CopyPiece> pieces, const CopyStamp& stamp)> copy;
    // Off the clock, what a run's receiver does after a copy: the checksum of the payload that landed.
    std::function<std::uint32_t(std::span<const CopyPiece> pieces)> landed;
};
// Per size and round, the plain copy and then the backend's (in descriptors scattered over slots of both memories of
// `arena` bytes, or as the same region of its own memories), sealed and checked as a run does, the offset walking on
// so large copies come from memory. A backend copy that does not hold what was sent is no figure: throws
// std::runtime_error naming its size.
std::vector<CopyBenchRow> runCopyRows(const CopyBenchOptions& options, std::size_t arena, const CopyBenchSides& sides);

} // namespace coh::core::real
