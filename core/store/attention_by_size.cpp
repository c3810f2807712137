#include "core/store/attention_by_size.h"

namespace coh::core {

void addAttentionBySize(std::vector<AttentionSizeRow>& rows, const std::vector<StepSizeBucket>& run,
                        const real::HardwareProfile& profile, const real::HardwareProfile* ownLine)
{
    for (const StepSizeBucket& b : run) {
        if (b.steps == 0)
            continue;
        AttentionSizeRow& row = stepSizeEntry(rows, b.fromBytes, b.inCache);
        const auto steps = static_cast<double>(b.steps);
        row.steps += b.steps;
        row.bytes += b.bytes;
        row.realNs += b.ns;
        row.profileNs += steps * profile.attentionNs(b.meanBytes(), b.meanLongestBytes());
        if (ownLine) {
            row.ownLineNs += steps * ownLine->attentionNs(b.meanBytes(), b.meanLongestBytes());
            row.ownLineSteps += b.steps;
        }
    }
}

} // namespace coh::core
