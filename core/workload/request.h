#pragma once
// The requests of one run, generated or replayed before the run starts.
#include "core/sim/time.h"

#include <cstdint>
#include <vector>

namespace coh::core {

struct Request {
    SimTime arrival = 0;
    std::uint32_t promptTokens = 0;
    std::uint32_t outputTokens = 0;
    // Mooncake traces name shared 512-token prefix blocks; they live in Workload::prefixHashes.
    std::uint32_t prefixOffset = 0;
    std::uint32_t prefixCount = 0;
};

struct Workload {
    std::vector<Request> requests; // sorted by arrival
    std::vector<std::uint32_t> prefixHashes;
};

} // namespace coh::core
