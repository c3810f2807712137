#pragma once
// Human-readable output shared by cohsim commands: number formatting, aligned tables, the run summary.
#include "core/engine/run_result.h"

#include <string>
#include <vector>

namespace coh::cli {

// One decimal for everyday magnitudes, three below 1 so sub-millisecond times still show; "-" when absent.
std::string number(double v, bool present = true);
// Large quantities with a decimal prefix: scaled(1.25e10, "B") is "12.5 GB".
std::string scaled(double v, const char* unit);
// Prints rows as columns; the first `leftColumns` columns are left-aligned, the rest right-aligned.
void printTable(const std::vector<std::vector<std::string>>& rows, std::size_t leftColumns);
// The summary block of `cohsim run` and `cohsim runs show`.
void printRunSummary(const core::RunSummary& summary);
// The blocks each node's caches held by protocol state (protocol runs only).
void printNodeBlocks(const std::vector<core::NodeBlocksSeries>& nodeBlocks, const std::vector<std::string>& nodeIds,
                     core::SimTime makespan, core::SimTime linkInterval);

} // namespace coh::cli
