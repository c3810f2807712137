#pragma once
// The copy bench and calibration on real-cuda (docs/real-backend.md#real-cuda): the same rows as real-cpu's
// (copy_bench.h), measured on two GPU partitions as a real-cuda run makes them (GpuNodes), against one device copy of
// the whole region in place of memcpy.
#include "core/real/copy_bench.h"
#include "core/scenario/topology.h"

#include <vector>

namespace coh::core::real {

// `plainNs`: the region as one cudaMemcpyAsync; `copyNs`: the run's copy (in descriptors when asked) between CUDA
// events; `messageNs`: that copy as the sender waits for it (the device check included). The two nodes are of the
// kinds given, so a CPU socket's is pinned host memory (hostMemoryOnGpus): the host path. Throws GpuError where there
// is no GPU.
std::vector<CopyBenchRow> runGpuCopyBench(const CopyBenchOptions& options, NodeKind sender = NodeKind::Gpu,
                                          NodeKind receiver = NodeKind::Gpu);

} // namespace coh::core::real
