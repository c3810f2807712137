#pragma once
// Generates the requests of a synthetic workload: an arrival process plus prompt and output length
// distributions, deterministic for a seed on every compiler and standard library.
#include "core/scenario/workload_spec.h"
#include "core/workload/request.h"

#include <cstdint>

namespace coh::core {

// The seeds of the three independent random streams of a synthetic workload, derived from the scenario
// seed with splitmix64, so changing one distribution never changes the draws of another.
struct SyntheticSeeds {
    std::uint64_t arrivals = 0;
    std::uint64_t prompts = 0;
    std::uint64_t outputs = 0;

    static SyntheticSeeds fromScenarioSeed(std::uint64_t seed);
};

// Throws InputError (field: JSON pointer under /workload) when the spec cannot be generated.
Workload generateSyntheticWorkload(const SyntheticWorkload& spec, std::uint64_t seed);

} // namespace coh::core
