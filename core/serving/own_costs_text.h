#pragma once
// What a real run's copies and decode steps cost, as it fitted them over every one it timed (BackendSummary::copyFit,
// hostCopyFit, attentionFit; docs/real-backend.md#the-runs-own-costs), in one sentence. cohsim and the desktop app
// both print it.
#include "core/net/backend_summary.h"

#include <cstdint>
#include <string>

namespace coh::core {

// Empty for a run that fitted nothing (simulated, or stored before runs fitted their costs).
std::string describeOwnCosts(const BackendSummary& backend);
// The run's decode steps by the K/V bytes a layer read (BackendSummary::attentionBySize), each size's bandwidth and
// steps: "1-2 MiB at 7.1 GB/s (185 steps), 2-4 MiB at 6.2 GB/s (93), ...". Empty where no step ran for real.
std::string describeAttentionBySize(const BackendSummary& backend);
// Its steps out of the core's cache by the bytes copied anywhere since the same node's step before
// (BackendSummary::attentionByTraffic): "a layer out of the core's cache, by the bytes copied since its node's step
// before: none at 5.9 GB/s (120 steps), 16 MiB to 32 MiB at 4.1 GB/s (30), ..."; empty for none.
std::string describeAttentionByTraffic(const BackendSummary& backend);
// A step size's bound as those name it: B below a KiB, KiB below a MiB, MiB from there (powers of two, so whole).
std::string stepSizeBound(std::uint64_t bytes);

} // namespace coh::core
