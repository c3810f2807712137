#pragma once
// Turns per-request timestamps into the run's distributions, throughput and goodput.
#include "core/engine/latency_histogram.h"
#include "core/engine/run_result.h"
#include "core/scenario/scenario.h"

#include <vector>

namespace coh::core {

// Percentiles by linear interpolation between closest ranks (numpy's default); values in any unit.
Distribution distributionOf(std::vector<double> values);

// Fills the latency, throughput and SLO parts of `summary` from the completed requests.
void summarizeRequests(const std::vector<RequestMetrics>& requests, const SloSpec& slo,
                       const LatencyHistogram& interTokenGaps, RunSummary& summary);

// Whether a request met both SLOs (a one-token answer has no TPOT and meets that SLO trivially).
bool meetsSlo(const RequestMetrics& r, const SloSpec& slo);

} // namespace coh::core
