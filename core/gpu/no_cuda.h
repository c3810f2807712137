#pragma once
// A build without CUDA: what every GPU entry point throws (the *_none.cpp stand-ins); callers check probeGpus() first.
#include "core/gpu/cuda_attention.h" // GpuError

namespace coh::core {

[[noreturn]] inline void throwNoCuda()
{
    throw GpuError("this build has no CUDA backend (configure with -DCOH_ENABLE_CUDA=AUTO or ON where nvcc is "
                   "installed)");
}

} // namespace coh::core
