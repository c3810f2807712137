// Build without CUDA: there is never a GPU to use.
#include "core/gpu/cuda_devices.h"

namespace coh::core {

GpuInventory probeGpus()
{
    GpuInventory inventory;
    inventory.reason = "built without CUDA (configure with -DCOH_ENABLE_CUDA=AUTO or ON where nvcc is installed)";
    return inventory;
}

} // namespace coh::core
