#include "core/store/attention_by_size.h"

namespace coh::core {

double predictedLayerNs(const real::HardwareProfile& profile, double bytes, double longestBytes)
{
    return profile.attentionNs(bytes, longestBytes);
}

void addAttentionBySize(std::vector<AttentionSizeRow>& rows, const std::vector<StepSizeBucket>& run,
                        const real::HardwareProfile& profile, const real::HardwareProfile* ownLine)
{
    for (const StepSizeBucket& b : run) {
        if (b.steps == 0)
            continue;
        auto it = rows.begin();
        while (it != rows.end() &&
               (it->fromBytes < b.fromBytes || (it->fromBytes == b.fromBytes && it->inCache && !b.inCache)))
            ++it;
        if (it == rows.end() || it->fromBytes != b.fromBytes || it->inCache != b.inCache)
            it = rows.insert(it, AttentionSizeRow{b.fromBytes, b.inCache});
        const auto steps = static_cast<double>(b.steps);
        it->steps += b.steps;
        it->bytes += b.bytes;
        it->realNs += b.ns;
        it->profileNs += steps * predictedLayerNs(profile, b.meanBytes(), b.meanLongestBytes());
        if (ownLine) {
            it->ownLineNs += steps * predictedLayerNs(*ownLine, b.meanBytes(), b.meanLongestBytes());
            it->ownLineSteps += b.steps;
        }
    }
}

} // namespace coh::core
