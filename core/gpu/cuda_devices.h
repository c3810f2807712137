#pragma once
// What GPUs this machine has, through the CUDA runtime when the build has it. On a machine without a
// GPU (or without a driver, or a build without CUDA) the list is empty and `reason` says why, so callers
// and tests can skip cleanly.
#include <cstdint>
#include <string>
#include <vector>

namespace coh::core {

struct GpuDevice {
    int index = 0;
    std::string name;
    std::uint64_t memoryBytes = 0;
    int multiprocessors = 0;
    int computeMajor = 0, computeMinor = 0;
    double memoryBandwidthBytesPerSec = 0; // peak, from memory clock and bus width
};

struct GpuInventory {
    bool cudaBuild = false; // the binary was built with the CUDA backend
    std::vector<GpuDevice> devices;
    std::string reason; // why there are none, when there are none
};

// Asked of the runtime once per process.
GpuInventory probeGpus();

} // namespace coh::core
