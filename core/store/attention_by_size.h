#pragma once
// compare-real's ATTENTION BY STEP SIZE: the real runs' decode steps by the K and V bytes one layer read
// (BackendSummary::attentionBySize), their measured time per layer, and what the simulator's attention cost on the
// profile they were set against predicts for the same steps. The simulator's own runs batch other steps (their
// transfers land at other times), so this checks the attention's cost model alone, size by size, apart from
// scheduling (docs/real-backend.md#attention-by-step-size).
#include "core/net/step_size_buckets.h"
#include "core/real/hardware_profile.h"

#include <cstdint>
#include <vector>

namespace coh::core {

struct AttentionSizeRow {
    std::uint64_t fromBytes = 0; // steps whose layer read fromBytes to twice that
    bool inCache = false;        // of them, those that read from the core's cache (StepSizeBucket::inCache)
    std::uint64_t steps = 0;
    double bytes = 0;     // K and V a layer read, summed over the steps
    double realNs = 0;    // one layer's measured time, summed
    double profileNs = 0; // the profile's prediction for the same steps, summed
    // The same on the line each run fitted over its own steps (BackendSummary::attentionFit and attentionWarmFit, as
    // real::ownCostProfile takes them, without its curve), over ownLineSteps of the steps: all of them, or the column
    // is not shown (a run that fitted none).
    double ownLineNs = 0;
    std::uint64_t ownLineSteps = 0;
    double realGBps() const { return realNs > 0 ? bytes / realNs : 0; }
    double profileErrorPct() const { return realNs > 0 ? 100 * (profileNs / realNs - 1) : 0; }
    bool ownLineCoversAll() const { return ownLineSteps == steps && steps > 0; }
    double ownLineErrorPct() const { return realNs > 0 ? 100 * (ownLineNs / realNs - 1) : 0; }
};

// Adds one real run's steps to `rows` (kept in order as the buckets are), each bucket predicted at its mean bytes
// and mean longest sequence by `profile` (HardwareProfile::attentionNs, as CalibratedCompute costs a layer), and by
// `ownLine` (the run's own costs as lines) where the run fitted them. Within a bucket the profile's cost is one line
// (its steps are on one side of the run's cache, which is the profile's when it was calibrated on this machine) but for
// a GPU's longest sequence, whose bound is taken at the mean.
void addAttentionBySize(std::vector<AttentionSizeRow>& rows, const std::vector<StepSizeBucket>& run,
                        const real::HardwareProfile& profile, const real::HardwareProfile* ownLine);

} // namespace coh::core
