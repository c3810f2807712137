#pragma once
// The prefix pool's protocol of a stored run. Summaries stored before PrefixPoolSummary::protocol existed do not
// say it; the run's own scenario, stored with it, does: the engine chose it from there (prefixPoolProtocol).
#include "core/engine/run_result.h"

#include <string>

namespace coh::core {

// Fills an empty `pool.protocol`: "direct" when the run had no pool, else what `scenarioJson` (the run's stored
// scenario) names for it. Left empty (not known) when that scenario does not parse in this build.
void completePoolProtocol(PrefixPoolSummary& pool, const std::string& scenarioJson);

} // namespace coh::core
