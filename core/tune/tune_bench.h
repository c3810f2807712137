#pragma once
// `cohsim bench tune`: a study's throughput on one thread and on several, side by side in one process
// (alternating rounds, medians), so the speed-up is measured on the same machine at the same time.
#include "core/tune/study_spec.h"

#include <cstdint>
#include <string>
#include <vector>

namespace coh::core {

struct TuneBenchRow {
    unsigned threads = 1;
    std::vector<double> wallSeconds; // one per round
    std::uint64_t runs = 0;          // runs one round made (every point, nothing cached)
    double medianSeconds() const;
    double runsPerSecond() const;
};

struct TuneBenchOptions {
    std::vector<unsigned> threads = {1, 0}; // 0: one per core
    int rounds = 3;
    bool store = true;  // each round stores into a fresh database in `folder`, as `cohsim tune` does
    std::string folder; // for those databases (removed after each round)
};

// Runs the whole study once per round and thread count, alternating thread counts within each round.
std::vector<TuneBenchRow> runTuneBench(const StudySpec& study, const TuneBenchOptions& options);

} // namespace coh::core
