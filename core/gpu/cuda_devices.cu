// CUDA build: ask the runtime. Any error from it (no driver, no device, driver too old) means "no GPU".
#include "core/gpu/cuda_devices.h"

#include <cuda_runtime.h>

namespace coh::core {

namespace {

GpuInventory probeNow()
{
    GpuInventory inventory;
    inventory.cudaBuild = true;
    int count = 0;
    if (const cudaError_t err = cudaGetDeviceCount(&count); err != cudaSuccess) {
        (void)cudaGetLastError();
        inventory.reason = std::string("CUDA runtime: ") + cudaGetErrorString(err);
        return inventory;
    }
    if (count == 0) {
        inventory.reason = "CUDA runtime reports no devices";
        return inventory;
    }
    for (int i = 0; i < count; ++i) {
        cudaDeviceProp prop{};
        if (cudaGetDeviceProperties(&prop, i) != cudaSuccess)
            continue;
        GpuDevice d;
        d.index = i;
        d.name = prop.name;
        d.memoryBytes = prop.totalGlobalMem;
        d.multiprocessors = prop.multiProcessorCount;
        d.computeMajor = prop.major;
        d.computeMinor = prop.minor;
        int clockKHz = 0, busWidth = 0;
        cudaDeviceGetAttribute(&clockKHz, cudaDevAttrMemoryClockRate, i);
        cudaDeviceGetAttribute(&busWidth, cudaDevAttrGlobalMemoryBusWidth, i);
        // Double data rate: two transfers per clock.
        d.memoryBandwidthBytesPerSec = 2.0 * clockKHz * 1e3 * (busWidth / 8.0);
        inventory.devices.push_back(d);
    }
    // The probe's unchecked failures (a device's properties, an attribute) must not read as the next launch's error.
    (void)cudaGetLastError();
    return inventory;
}

} // namespace

GpuInventory probeGpus()
{
    // The devices a process sees do not change while it runs: the runtime is asked once, however many callers ask.
    static const GpuInventory inventory = probeNow();
    return inventory;
}

} // namespace coh::core
