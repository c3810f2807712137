#pragma once
// What a real run's copies and decode steps cost, as it fitted them over every one it timed (BackendSummary::copyFit,
// hostCopyFit, attentionFit; docs/real-backend.md#the-runs-own-costs), in one sentence. cohsim and the desktop app
// both print it.
#include "core/net/backend_summary.h"

#include <string>

namespace coh::core {

// Empty for a run that fitted nothing (simulated, or stored before runs fitted their costs).
std::string describeOwnCosts(const BackendSummary& backend);

} // namespace coh::core
