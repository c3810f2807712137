#pragma once
// What a real run's decode K/V pools came to, in one sentence (docs/real-backend.md#decode-steps, step 4): how large
// they were made and grew, how far they could grow, and, where one ran out of free blocks and lent some, how large a
// pool would have held every sequence's blocks. cohsim and the desktop app both print it.
#include "core/net/backend_summary.h"

#include <string>

namespace coh::core {

// Empty for a run without decode pools (simulated, or no decode step ran for real).
std::string describeKvPools(const BackendSummary& backend);

} // namespace coh::core
