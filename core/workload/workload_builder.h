#pragma once
// Turns a scenario's WorkloadSpec into the requests of a run: synthetic generation or trace replay.
#include "core/scenario/workload_spec.h"
#include "core/workload/request.h"

#include <cstdint>
#include <string>

namespace coh::core {

// Synthetic workloads draw from `seed` (the scenario seed); traces ignore it. Trace paths use
// spec.trace.resolvedPath when the scenario loader filled it, else spec.trace.path as given.
// Throws InputError for specs or trace files that cannot be turned into requests; a synthetic workload's problems
// name `scenarioFile` (the scenario's sourcePath), a trace's the trace.
Workload buildWorkload(const WorkloadSpec& spec, std::uint64_t seed, const std::string& scenarioFile = {});

// A command line's request limit (`--max-requests N`): a synthetic workload keeps at most N requests; a trace
// replays its first N, and N = 0 lifts the scenario's own limit (the whole trace).
void limitRequests(WorkloadSpec& spec, std::uint32_t maxRequests);

} // namespace coh::core
