#pragma once
// Paged decode attention and device-to-device copies on a GPU (docs/real-backend.md#cuda), the CUDA half of the real
// backend. The kernel is the CPU one's twin (core/real/paged_attention.h): the same pool layout
// [block][kvHead][token][dim] and block tables, grouped-query heads, an online softmax; K and V are stored in fp16
// and every sum is kept in fp32. One warp serves one (sequence, query head). Times are CUDA events'. Every CUDA call
// is checked: a failure throws GpuError naming the call and the runtime's message.
//
// This header is C++17 (nvcc compiles its implementation) and free of CUDA types, so the rest of core calls it in
// any build; a build without CUDA throws GpuError from every function (cuda_attention_none.cpp).
#include "core/gpu/kv_rows.h"

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <vector>

namespace coh::core {

class GpuError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};
// An allocation the device had no room for. The device stays usable: the runtime's last error is cleared, so the next
// call's check does not report it again.
class GpuOutOfMemory : public GpuError {
  public:
    using GpuError::GpuError;
};

struct GpuKvShape {
    std::uint32_t queryHeads = 32;
    std::uint32_t kvHeads = 8;
    std::uint32_t headDim = 128; // at most kGpuMaxHeadDim
    std::uint32_t blockTokens = 16;
    std::size_t blockElements() const { return std::size_t{blockTokens} * kvHeads * headDim; }
};
constexpr std::uint32_t kGpuMaxHeadDim = 256; // eight elements per lane of a warp

// A batch of sequences, each a block table into the pools and a context length.
struct GpuAttentionBatch {
    std::vector<std::uint32_t> tables;       // every sequence's block table, one after another
    std::vector<std::uint32_t> tableOffsets; // where each sequence's table starts in `tables`
    std::vector<std::uint32_t> contexts;     // each sequence's cached tokens
};

struct GpuAttentionRun {
    std::vector<float> out; // [sequences][queryHeads][headDim]
    double medianMs = 0;    // of the timed runs (CUDA events around each launch)
    double kvBytes = 0;     // K and V bytes one run reads (fp16)
};

// K and V pools on one device, uploaded once (converted to fp16), that decode steps attend over.
class GpuPagedAttention {
  public:
    // Throws std::invalid_argument when the shape or the pools do not fit together, GpuError when CUDA fails (or the
    // build has none).
    GpuPagedAttention(int device, const GpuKvShape& shape, const std::vector<float>& kPool,
                      const std::vector<float>& vPool);
    ~GpuPagedAttention();
    GpuPagedAttention(const GpuPagedAttention&) = delete;
    GpuPagedAttention& operator=(const GpuPagedAttention&) = delete;

    // Runs the batch once for its output, then `timedRuns` more, each timed. `q` is [sequences][queryHeads][headDim]
    // in fp32. Throws std::invalid_argument when q or a table does not fit (as the CPU kernel does).
    GpuAttentionRun run(const std::vector<float>& q, const GpuAttentionBatch& batch, float scale, int timedRuns);
    // A decode step as the real-cuda backend runs it: the batch `launches` times (one per layer it runs) between two
    // CUDA events, `out` the last launch's, `medianMs` the time of all of them. Its buffers are kept for the next
    // step, so a step allocates nothing once the batches stop growing.
    GpuAttentionRun step(const std::vector<float>& q, const GpuAttentionBatch& batch, float scale, int launches);
    // Lands a step's writes (kv_rows.h) in the pools, each block's rows and stamp, in one launch; a block is named by
    // one write at most. A write's landed rows come from the `landedBytes` fp16 bytes at `landed` (host memory,
    // uploaded first), the rest are computed. Throws std::invalid_argument for a write past the pool, its block's rows
    // or the landed bytes, or for two writes of one block (they would race on its stamp).
    void write(const std::vector<KvRowWrite>& writes, const std::byte* landed, std::size_t landedBytes);
    // Every block's stamp as the device holds it; each starts freed.
    std::vector<BlockStamp> stamps();
    // Each listed block's checksum (kv_rows.h) over the rows its stamp counts, as the device holds them now, in one
    // launch. Throws std::invalid_argument for a block past the pool.
    std::vector<std::uint32_t> checksums(const std::vector<std::uint32_t>& blocks);
    // XORs the first byte of `block`'s K rows with `mask`, its stamp left as it was (fault injection).
    void flipByte(std::uint32_t block, unsigned char mask);
    // Makes the pools `blocks` blocks long: every block's rows and stamp kept, the new ones freed and holding
    // grownBlockValue (kv_rows.h). K and V grow one after the other, so the device holds at most half the old pools
    // more than the grown ones. Throws std::invalid_argument for fewer blocks than the pools have, GpuOutOfMemory when
    // the device has no room (the pools then keep their blocks).
    void grow(std::uint32_t blocks);

  private:
    struct Device;
    Device* m_device = nullptr; // CUDA's buffers, behind a pointer so this header stays free of CUDA types
};

// The median time of `timedRuns` device-to-device copies of `bytes` on `device` (cudaMemcpyAsync, timed with CUDA
// events), in ms.
double gpuDeviceCopyMs(int device, std::size_t bytes, int timedRuns);

} // namespace coh::core
