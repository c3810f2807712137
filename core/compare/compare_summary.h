#pragma once
// The plain-language opening of a run comparison, computed from its numbers: how each run stands against the
// first on latency, traffic, staleness and failures, then which run is the better choice here and why.
// E.g. "lazy-causal against msi-directory: the same TTFT and TPOT (p50 and p99 within 1%); 12× messages, 2.6×
// data bytes; 0.31% stale reads." and "msi-directory is the cheaper choice here: the same latency with the
// fewest messages and data bytes, and no stale reads."
#include <string>
#include <vector>

namespace coh::core {

struct RunComparison;

std::vector<std::string> summarizeComparison(const RunComparison& comparison);

} // namespace coh::core
