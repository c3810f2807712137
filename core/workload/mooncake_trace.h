#pragma once
// Reads a Mooncake (FAST'25) trace: JSON Lines of {"timestamp": ms, "input_length", "output_length",
// "hash_ids": [ids of shared 512-token prefix blocks]}; the hash ids go into Workload::prefixHashes.
#include "core/workload/request.h"

#include <cstdint>
#include <string>

namespace coh::core {

// timeScale multiplies inter-arrival times; maxRequests keeps the first N (0 = all); the first request
// arrives at 0. Throws InputError naming the file, line and key of the first bad value.
Workload readMooncakeTrace(const std::string& path, double timeScale, std::uint32_t maxRequests);

} // namespace coh::core
