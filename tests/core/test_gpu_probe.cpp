// The GPU probe answers on every machine: devices with sane properties where there is a GPU, and an
// explanation (never a crash) where there is none. GPU-only checks skip cleanly without one.
#include "core/gpu/cuda_devices.h"

#include <gtest/gtest.h>

namespace coh::core {
namespace {

TEST(GpuProbe, EitherListsDevicesOrSaysWhyNot)
{
    const GpuInventory inv = probeGpus();
#ifdef COH_HAVE_CUDA
    EXPECT_TRUE(inv.cudaBuild);
#else
    EXPECT_FALSE(inv.cudaBuild);
#endif
    if (inv.devices.empty())
        EXPECT_FALSE(inv.reason.empty());
    else
        EXPECT_TRUE(inv.reason.empty());
}

TEST(GpuProbe, DevicesHaveMemoryAndMultiprocessors)
{
    const GpuInventory inv = probeGpus();
    if (inv.devices.empty())
        GTEST_SKIP() << "no GPU here: " << inv.reason;
    for (const auto& d : inv.devices) {
        EXPECT_FALSE(d.name.empty());
        EXPECT_GT(d.memoryBytes, 1ull << 30);
        EXPECT_GT(d.multiprocessors, 0);
        EXPECT_GT(d.memoryBandwidthBytesPerSec, 1e10);
    }
}

} // namespace
} // namespace coh::core
