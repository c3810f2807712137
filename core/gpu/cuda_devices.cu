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
        // In words first: "driver version is insufficient" is what a machine with no NVIDIA driver at all gets, and
        // reads as if a driver upgrade were due.
        const std::string said = std::string(" (CUDA runtime: ") + cudaGetErrorString(err) + ")";
        inventory.reason = err == cudaErrorInsufficientDriver ? "no NVIDIA driver here, or one older than this build's "
                                                                "CUDA runtime" +
                                                                    said
                           : err == cudaErrorNoDevice ? "no NVIDIA GPU here" + said
                                                      : "the CUDA runtime cannot list GPUs here" + said;
        return inventory;
    }
    if (count == 0) {
        inventory.reason = "no NVIDIA GPU here (the CUDA runtime lists none)";
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
