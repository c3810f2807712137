// Moving a hardware profile's costs (real::withCostsScaled), as compare-real does to see how far the simulator's
// figures move with them (docs/real-backend.md#how-far-the-simulator-moves-with-its-costs).
#include "core/base/input_error.h"
#include "core/real/calibration.h"
#include "core/store/sim_vs_real.h"

#include <gtest/gtest.h>

#include <array>
#include <stdexcept>
#include <vector>

namespace coh::test {
namespace {

using core::real::HardwareProfile;

TEST(Calibration, MovingAProfilesCostsMakesEveryCopyAndStepThatManyTimesAsLong)
{
    HardwareProfile p;
    p.copy = {.latencyNs = 200, .bytesPerNs = 8, .descriptorNs = 300};
    p.hostCopy = {.latencyNs = 2000, .bytesPerNs = 20, .descriptorNs = 500};
    p.descriptorBytes = 65536;
    p.attentionStepNs = 10000;
    p.attentionBytesPerNs = 5;
    p.attentionWarmBytes = 1 << 20;
    p.attentionWarmStepNs = 1000;
    p.attentionWarmBytesPerNs = 7;
    const HardwareProfile slower = core::real::withCostsScaled(p, 1.05);
    for (const double bytes : {64.0, 1e6, 6.4e7}) {
        EXPECT_NEAR(slower.copy.ns(bytes), 1.05 * p.copy.ns(bytes), 1e-6 * p.copy.ns(bytes));
        // A step out of memory and one still in the core's cache, each on its own line.
        EXPECT_NEAR(slower.attentionNs(bytes, bytes), 1.05 * p.attentionNs(bytes, bytes), 1e-6 * p.attentionNs(bytes));
    }
    EXPECT_TRUE(slower.readsWarm(5e5));
    EXPECT_NEAR(slower.warmAttentionNs(5e5), 1.05 * p.warmAttentionNs(5e5), 1e-6);
    // Descriptors included: a copy in pieces takes 5% longer too, on either path.
    EXPECT_NEAR(slower.effectiveCopyBytesPerNs(), p.effectiveCopyBytesPerNs() / 1.05, 1e-9);
    EXPECT_NEAR(slower.hostCopy.ns(1e6), 1.05 * p.hostCopy.ns(1e6), 1e-6);
    EXPECT_NEAR(slower.effectiveHostCopyBytesPerNs(), p.effectiveHostCopyBytesPerNs() / 1.05, 1e-9);
    // What is not a cost is the same.
    EXPECT_EQ(slower.attentionWarmBytes, p.attentionWarmBytes);
    EXPECT_EQ(slower.descriptorBytes, p.descriptorBytes);
    const HardwareProfile faster = core::real::withCostsScaled(p, 0.95);
    EXPECT_NEAR(faster.attentionNs(6.4e7), 0.95 * p.attentionNs(6.4e7), 1e-3);
    // Where a step lasts as long as its longest sequence alone (real-cuda), that sequence's time moves too.
    HardwareProfile sideBySide = p;
    sideBySide.attentionWarmBytesPerNs = 0;
    sideBySide.attentionSequenceBytesPerNs = 0.5;
    const double alone = sideBySide.attentionNs(6.4e7, 6.4e7);
    ASSERT_GT(alone, sideBySide.attentionNs(6.4e7)); // the lone sequence sets it
    EXPECT_NEAR(core::real::withCostsScaled(sideBySide, 1.05).attentionNs(6.4e7, 6.4e7), 1.05 * alone, 1e-6 * alone);
    EXPECT_EQ(core::real::withCostsScaled(HardwareProfile{}, 1.05).hostCopy.measured(), false); // none measured
    // compare-real's factors: half and all of the sensitivity, either way; none for 0.
    const std::vector<double> factors = core::movedCostFactors(0.1);
    ASSERT_EQ(factors.size(), 4u);
    for (std::size_t i = 0; i < factors.size(); ++i)
        EXPECT_DOUBLE_EQ(factors[i], (std::array{0.9, 0.95, 1.05, 1.1})[i]);
    EXPECT_TRUE(core::movedCostFactors(0).empty());
    EXPECT_THROW(core::movedCostFactors(0.6), core::InputError);
    EXPECT_THROW(core::movedCostFactors(-0.01), core::InputError);
}

} // namespace
} // namespace coh::test
