#include "core/store/attention_by_size.h"

namespace coh::core {

double predictedLayerNs(const real::HardwareProfile& profile, double bytes)
{
    return profile.attentionNs(bytes, 0);
}

void addAttentionBySize(std::vector<AttentionSizeRow>& rows, const std::vector<StepSizeBucket>& run,
                        const real::HardwareProfile& profile, const real::HardwareProfile* ownCosts)
{
    for (const StepSizeBucket& b : run) {
        if (b.steps == 0)
            continue;
        auto it = rows.begin();
        while (it != rows.end() && it->fromBytes < b.fromBytes)
            ++it;
        if (it == rows.end() || it->fromBytes != b.fromBytes)
            it = rows.insert(it, AttentionSizeRow{b.fromBytes});
        const auto steps = static_cast<double>(b.steps);
        it->steps += b.steps;
        it->bytes += b.bytes;
        it->realNs += b.ns;
        // The profile's cost is one line on each side of its cache, so a bucket's steps cost what their mean costs,
        // times their number: exactly where they all fall on one side (a cache of a power of two bytes falls at
        // most on a bucket's first size), else the mean's side takes them all.
        it->profileNs += steps * predictedLayerNs(profile, b.meanBytes());
        if (ownCosts) {
            it->ownCostNs += steps * predictedLayerNs(*ownCosts, b.meanBytes());
            it->ownCostSteps += b.steps;
        }
    }
}

} // namespace coh::core
