// The CUDA paged decode attention and device copies (cuda_attention.h).
#include "core/gpu/cuda_attention.h"

#include "core/gpu/cuda_support.cuh"

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>

namespace coh::core {

namespace {

using cuda::DeviceBuffer;
using cuda::DeviceEvent;

constexpr int kLanes = 32;
constexpr int kPerLane = kGpuMaxHeadDim / kLanes;
constexpr int kWarpsPerBlock = 4;

struct KernelShape {
    std::uint32_t queryHeads, kvHeads, headDim, blockTokens, group;
};

// One warp per (sequence, query head): each lane holds up to eight of the head's dimensions of the query and of the
// running output; each token's score is the warp's sum, and the softmax is kept online (running maximum and sum).
__global__ void pagedDecodeAttentionKernel(const __half* __restrict__ k, const __half* __restrict__ v,
                                           const float* __restrict__ q, const std::uint32_t* __restrict__ tables,
                                           const std::uint32_t* __restrict__ tableOffsets,
                                           const std::uint32_t* __restrict__ contexts, float* __restrict__ out,
                                           KernelShape shape, float scale, std::uint32_t sequences)
{
    const std::uint32_t warp = (blockIdx.x * blockDim.x + threadIdx.x) / kLanes;
    const std::uint32_t lane = threadIdx.x % kLanes;
    if (warp >= sequences * shape.queryHeads)
        return;
    const std::uint32_t s = warp / shape.queryHeads;
    const std::uint32_t h = warp % shape.queryHeads;
    const std::uint32_t kvHead = h / shape.group;
    const std::size_t head = (std::size_t{s} * shape.queryHeads + h) * shape.headDim;

    float qv[kPerLane], acc[kPerLane];
#pragma unroll
    for (int i = 0; i < kPerLane; ++i) {
        const std::uint32_t d = lane + kLanes * i;
        qv[i] = d < shape.headDim ? q[head + d] : 0.0f;
        acc[i] = 0.0f;
    }
    float running = -INFINITY, sum = 0.0f;
    const std::uint32_t n = contexts[s];
    const std::uint32_t* table = tables + tableOffsets[s];
    for (std::uint32_t t = 0; t < n; ++t) {
        const std::size_t row = (std::size_t{table[t / shape.blockTokens]} * shape.kvHeads * shape.blockTokens +
                                 std::size_t{kvHead} * shape.blockTokens + t % shape.blockTokens) *
                                shape.headDim;
        float dot = 0.0f;
#pragma unroll
        for (int i = 0; i < kPerLane; ++i) {
            const std::uint32_t d = lane + kLanes * i;
            if (d < shape.headDim)
                dot += qv[i] * __half2float(k[row + d]);
        }
#pragma unroll
        for (int offset = kLanes / 2; offset > 0; offset /= 2)
            dot += __shfl_xor_sync(0xffffffffu, dot, offset);
        const float score = dot * scale;
        const float top = fmaxf(running, score);
        const float rescale = expf(running - top); // 0 on the first token (running is -inf)
        const float p = expf(score - top);
        sum = sum * rescale + p;
#pragma unroll
        for (int i = 0; i < kPerLane; ++i) {
            const std::uint32_t d = lane + kLanes * i;
            if (d < shape.headDim)
                acc[i] = acc[i] * rescale + p * __half2float(v[row + d]);
        }
        running = top;
    }
#pragma unroll
    for (int i = 0; i < kPerLane; ++i) {
        const std::uint32_t d = lane + kLanes * i;
        if (d < shape.headDim)
            out[head + d] = n > 0 ? acc[i] / sum : 0.0f;
    }
}

// Adds up rows [fromRow, toRow) of `block` (kv_rows.h's checksum) with the thread block's threads, each taking units in
// turn (units of kv_rows.h), into `*sum` (shared, zeroed by the caller before a barrier). Returns after a barrier, the
// sum complete.
__device__ void addBlockRows(const __half* __restrict__ k, const __half* __restrict__ v, const KernelShape& shape,
                             std::uint32_t block, std::uint32_t fromRow, std::uint32_t toRow, std::uint32_t* sum)
{
    // Rows past the block (a stamp's count gone wrong) are not the block's to sum.
    toRow = toRow < shape.blockTokens ? toRow : shape.blockTokens;
    fromRow = fromRow < toRow ? fromRow : toRow;
    const std::uint32_t rowBytes = shape.headDim * static_cast<std::uint32_t>(sizeof(__half));
    const std::uint32_t rowUnits = kvRowUnits(rowBytes);
    const std::uint32_t headUnits = (toRow - fromRow) * rowUnits;
    const std::uint32_t units = 2 * shape.kvHeads * headUnits;
    std::uint32_t mine = 0;
    for (std::uint32_t e = threadIdx.x; e < units; e += blockDim.x) {
        const bool isV = e >= shape.kvHeads * headUnits;
        const std::uint32_t inPool = isV ? e - shape.kvHeads * headUnits : e;
        const std::uint32_t head = inPool / headUnits;
        const std::uint32_t row = fromRow + inPool % headUnits / rowUnits;
        const std::uint32_t unit = inPool % rowUnits;
        const std::size_t at = ((std::size_t{block} * shape.kvHeads + head) * shape.blockTokens + row) * shape.headDim;
        const auto* bytes = reinterpret_cast<const unsigned char*>((isV ? v : k) + at);
        mine += kvUnitSum(kvUnitPlace(isV, head, row, unit, shape.kvHeads, shape.blockTokens, rowUnits),
                          kvRowUnit(bytes, rowBytes, unit));
    }
    atomicAdd(sum, mine);
    __syncthreads();
}

// One thread block per write: its rows' K and V values (kv_rows.h), converted to fp16, and then its block's stamp,
// sealed as sealSource says over what the rows hold.
__global__ void writeKvRowsKernel(__half* __restrict__ k, __half* __restrict__ v, BlockStamp* __restrict__ stamps,
                                  const KvRowWrite* __restrict__ writes, const __half* __restrict__ landed,
                                  KernelShape shape)
{
    const KvRowWrite w = writes[blockIdx.x];
    __shared__ BlockStamp before;
    __shared__ std::uint32_t added, cut;
    if (threadIdx.x == 0) {
        before = stamps[w.block];
        added = 0;
        cut = 0;
    }
    if (w.sequence == kFreeBlock) {
        if (threadIdx.x == 0)
            stamps[w.block] = BlockStamp{kFreeBlock, 0, before.version + 1, 0};
        return;
    }
    const std::uint32_t rowElements = shape.kvHeads * shape.headDim;
    const std::uint32_t elements = (w.toRow - w.fromRow) * rowElements;
    for (std::uint32_t e = threadIdx.x; e < elements; e += blockDim.x) {
        const std::uint32_t row = w.fromRow + e / rowElements;
        const std::uint32_t head = e % rowElements / shape.headDim;
        const std::uint32_t dim = e % shape.headDim;
        const std::size_t at =
            ((std::size_t{w.block} * shape.kvHeads + head) * shape.blockTokens + row) * shape.headDim + dim;
        if (row - w.fromRow < w.landedRows) { // taken as it landed: K [head][row][dim], then V
            const std::size_t from = w.landedAt / sizeof(__half) +
                                     (std::size_t{head} * w.landedRows + (row - w.fromRow)) * shape.headDim + dim;
            k[at] = landed[from];
            v[at] = landed[from + std::size_t{shape.kvHeads} * w.landedRows * shape.headDim];
            continue;
        }
        k[at] = __float2half_rn(kvRowValue(w.sequence, w.firstToken + row, head, dim, false));
        v[at] = __float2half_rn(kvRowValue(w.sequence, w.firstToken + row, head, dim, true));
    }
    // Every thread's rows are written (and `before` read) before any is summed.
    __syncthreads();
    const SealSource seal = sealSource(before, w);
    addBlockRows(k, v, shape, w.block, seal.cutFrom, seal.cutTo, &cut);
    addBlockRows(k, v, shape, w.block, seal.addFrom, seal.addTo, &added);
    if (threadIdx.x == 0)
        stamps[w.block] = BlockStamp{w.sequence, w.toRow, before.version + 1, seal.kept - cut + added};
}

// One thread block per listed block: its rows as its stamp counts them, summed as the pool holds them now.
__global__ void blockChecksumsKernel(const __half* __restrict__ k, const __half* __restrict__ v,
                                     const BlockStamp* __restrict__ stamps, const std::uint32_t* __restrict__ blocks,
                                     std::uint32_t* __restrict__ sums, KernelShape shape)
{
    __shared__ std::uint32_t sum;
    if (threadIdx.x == 0)
        sum = 0;
    __syncthreads();
    const std::uint32_t block = blocks[blockIdx.x];
    addBlockRows(k, v, shape, block, 0, stamps[block].tokens, &sum);
    if (threadIdx.x == 0)
        sums[blockIdx.x] = sum;
}

// One thread per element of the blocks a K (isV false) or V pool grew by, from element `from` on: what
// grownBlockValue (kv_rows.h) says, which the CPU's pool holds too.
__global__ void fillGrownBlocksKernel(__half* __restrict__ pool, std::size_t from, std::size_t to,
                                      std::uint32_t blockElements, bool isV)
{
    const std::size_t at = from + blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
    if (at >= to)
        return;
    pool[at] = __float2half(grownBlockValue(static_cast<std::uint32_t>(at / blockElements),
                                            static_cast<std::uint32_t>(at % blockElements), isV));
}

void validateShape(const GpuKvShape& shape, const std::vector<float>& kPool, const std::vector<float>& vPool)
{
    if (shape.kvHeads == 0 || shape.queryHeads % shape.kvHeads != 0 || shape.headDim == 0 ||
        shape.headDim > kGpuMaxHeadDim || shape.blockTokens == 0)
        throw std::invalid_argument("GPU paged attention: query heads must be a positive multiple of the KV heads and "
                                    "the head dimension at most 256");
    if (kPool.size() != vPool.size() || kPool.size() % shape.blockElements() != 0)
        throw std::invalid_argument("GPU paged attention: the K and V pools must be the same whole number of blocks");
}

void validateBatch(const GpuKvShape& shape, std::size_t poolElements, const std::vector<float>& q,
                   const GpuAttentionBatch& batch)
{
    const std::size_t sequences = batch.contexts.size();
    if (batch.tableOffsets.size() != sequences || q.size() < sequences * shape.queryHeads * shape.headDim)
        throw std::invalid_argument("GPU paged attention: q or the tables do not match the sequences");
    for (std::size_t s = 0; s < sequences; ++s) {
        const std::size_t blocks = (std::size_t{batch.contexts[s]} + shape.blockTokens - 1) / shape.blockTokens;
        if (batch.tableOffsets[s] + blocks > batch.tables.size())
            throw std::invalid_argument("GPU paged attention: a block table is shorter than its context");
        for (std::size_t b = 0; b < blocks; ++b)
            if ((std::size_t{batch.tables[batch.tableOffsets[s] + b]} + 1) * shape.blockElements() > poolElements)
                throw std::invalid_argument("GPU paged attention: a block table names a block past the pool");
    }
}

std::vector<__half> toHalf(const std::vector<float>& values)
{
    std::vector<__half> halves(values.size());
    std::transform(values.begin(), values.end(), halves.begin(), [](float x) { return __float2half(x); });
    return halves;
}

double median(std::vector<double> values)
{
    std::sort(values.begin(), values.end());
    return values.empty() ? 0.0 : values[values.size() / 2];
}

// A buffer that grows to what a step needs and is kept for the next.
template <class T> void fit(std::unique_ptr<DeviceBuffer<T>>& buffer, std::size_t count)
{
    if (!buffer || buffer->count() < count)
        buffer = std::make_unique<DeviceBuffer<T>>(count);
}

template <class T> void uploadInto(std::unique_ptr<DeviceBuffer<T>>& buffer, const std::vector<T>& host)
{
    fit(buffer, host.size());
    buffer->upload(host);
}

} // namespace

struct GpuPagedAttention::Device {
    int index;
    GpuKvShape shape;
    std::size_t poolElements;
    DeviceBuffer<__half> k, v;
    std::uint32_t blocks;
    DeviceBuffer<BlockStamp> stamps;
    // step()'s and write()'s buffers, kept between steps
    std::unique_ptr<DeviceBuffer<float>> q, out;
    std::unique_ptr<DeviceBuffer<std::uint32_t>> tables, offsets, contexts;
    std::unique_ptr<DeviceBuffer<KvRowWrite>> writes;
    std::unique_ptr<DeviceBuffer<__half>> landed; // write()'s landed rows
    std::unique_ptr<DeviceBuffer<std::uint32_t>> sumBlocks, sums;
};

namespace {

void launchAttention(const __half* k, const __half* v, const GpuKvShape& shape, const float* q,
                     const std::uint32_t* tables, const std::uint32_t* offsets, const std::uint32_t* contexts,
                     float* out, float scale, std::uint32_t sequences)
{
    const KernelShape ks{shape.queryHeads, shape.kvHeads, shape.headDim, shape.blockTokens,
                         shape.queryHeads / shape.kvHeads};
    const std::uint32_t warps = sequences * shape.queryHeads;
    const std::uint32_t blocks = std::max(1u, (warps + kWarpsPerBlock - 1) / kWarpsPerBlock);
    pagedDecodeAttentionKernel<<<blocks, kWarpsPerBlock * kLanes>>>(k, v, q, tables, offsets, contexts, out, ks, scale,
                                                                    sequences);
    COH_CUDA(cudaGetLastError());
}

double kvBytesOf(const GpuKvShape& shape, const GpuAttentionBatch& batch)
{
    double tokens = 0;
    for (const std::uint32_t c : batch.contexts)
        tokens += c;
    return tokens * 2.0 * shape.kvHeads * shape.headDim * sizeof(__half);
}

} // namespace

GpuPagedAttention::GpuPagedAttention(int device, const GpuKvShape& shape, const std::vector<float>& kPool,
                                     const std::vector<float>& vPool)
{
    validateShape(shape, kPool, vPool);
    COH_CUDA(cudaSetDevice(device));
    // CUDA loads kernels lazily, at their first launch: load it now, so no step's time includes loading it.
    // The others too, so that none loads when memory is tightest (the first growth of a pool).
    cudaFuncAttributes attributes{};
    COH_CUDA(cudaFuncGetAttributes(&attributes, pagedDecodeAttentionKernel));
    COH_CUDA(cudaFuncGetAttributes(&attributes, writeKvRowsKernel));
    COH_CUDA(cudaFuncGetAttributes(&attributes, blockChecksumsKernel));
    COH_CUDA(cudaFuncGetAttributes(&attributes, fillGrownBlocksKernel));
    const auto blocks = static_cast<std::uint32_t>(kPool.size() / shape.blockElements());
    auto* d = new Device{device,
                         shape,
                         kPool.size(),
                         DeviceBuffer<__half>(kPool.size()),
                         DeviceBuffer<__half>(vPool.size()),
                         blocks,
                         DeviceBuffer<BlockStamp>(blocks),
                         {},
                         {},
                         {},
                         {},
                         {},
                         {},
                         {},
                         {}};
    try {
        d->k.upload(toHalf(kPool));
        d->v.upload(toHalf(vPool));
        d->stamps.upload(std::vector<BlockStamp>(blocks));
    } catch (...) {
        delete d;
        throw;
    }
    m_device = d;
}

GpuPagedAttention::~GpuPagedAttention()
{
    // Its buffers, stream and events belong to its device: free them there (unchecked: a destructor does not throw).
    if (m_device)
        cudaSetDevice(m_device->index);
    delete m_device;
}

GpuAttentionRun GpuPagedAttention::run(const std::vector<float>& q, const GpuAttentionBatch& batch, float scale,
                                       int timedRuns)
{
    const GpuKvShape& shape = m_device->shape;
    validateBatch(shape, m_device->poolElements, q, batch);
    COH_CUDA(cudaSetDevice(m_device->index));
    const auto sequences = static_cast<std::uint32_t>(batch.contexts.size());
    const std::size_t outFloats = std::size_t{sequences} * shape.queryHeads * shape.headDim;
    DeviceBuffer<float> dq(q.size()), dout(outFloats);
    dq.upload(q);
    DeviceBuffer<std::uint32_t> tables(batch.tables.size()), offsets(sequences), contexts(sequences);
    tables.upload(batch.tables);
    offsets.upload(batch.tableOffsets);
    contexts.upload(batch.contexts);
    const auto launch = [&] {
        launchAttention(m_device->k.get(), m_device->v.get(), shape, dq.get(), tables.get(), offsets.get(),
                        contexts.get(), dout.get(), scale, sequences);
    };

    GpuAttentionRun run;
    launch();
    COH_CUDA(cudaDeviceSynchronize());
    run.out.resize(outFloats);
    COH_CUDA(cudaMemcpy(run.out.data(), dout.get(), outFloats * sizeof(float), cudaMemcpyDeviceToHost));

    std::vector<double> ms;
    DeviceEvent start, stop;
    for (int r = 0; r < timedRuns; ++r) {
        COH_CUDA(cudaEventRecord(start.get()));
        launch();
        COH_CUDA(cudaEventRecord(stop.get()));
        COH_CUDA(cudaEventSynchronize(stop.get()));
        float elapsed = 0;
        COH_CUDA(cudaEventElapsedTime(&elapsed, start.get(), stop.get()));
        ms.push_back(elapsed);
    }
    run.medianMs = median(ms);
    run.kvBytes = kvBytesOf(shape, batch);
    return run;
}

GpuAttentionRun GpuPagedAttention::step(const std::vector<float>& q, const GpuAttentionBatch& batch, float scale,
                                        int launches)
{
    Device& d = *m_device;
    validateBatch(d.shape, d.poolElements, q, batch);
    COH_CUDA(cudaSetDevice(d.index));
    const auto sequences = static_cast<std::uint32_t>(batch.contexts.size());
    const std::size_t outFloats = std::size_t{sequences} * d.shape.queryHeads * d.shape.headDim;
    uploadInto(d.q, q);
    uploadInto(d.tables, batch.tables);
    uploadInto(d.offsets, batch.tableOffsets);
    uploadInto(d.contexts, batch.contexts);
    fit(d.out, outFloats);

    GpuAttentionRun run;
    DeviceEvent start, stop;
    COH_CUDA(cudaEventRecord(start.get()));
    for (int l = 0; l < std::max(1, launches); ++l)
        launchAttention(d.k.get(), d.v.get(), d.shape, d.q->get(), d.tables->get(), d.offsets->get(), d.contexts->get(),
                        d.out->get(), scale, sequences);
    COH_CUDA(cudaEventRecord(stop.get()));
    COH_CUDA(cudaEventSynchronize(stop.get()));
    float elapsed = 0;
    COH_CUDA(cudaEventElapsedTime(&elapsed, start.get(), stop.get()));
    run.medianMs = elapsed;
    run.out.resize(outFloats);
    COH_CUDA(cudaMemcpy(run.out.data(), d.out->get(), outFloats * sizeof(float), cudaMemcpyDeviceToHost));
    run.kvBytes = kvBytesOf(d.shape, batch);
    return run;
}

void GpuPagedAttention::write(const std::vector<KvRowWrite>& writes, const std::byte* landed, std::size_t landedBytes)
{
    Device& d = *m_device;
    for (const KvRowWrite& w : writes) {
        if (!writeFits(w, d.blocks, d.shape.blockTokens))
            throw std::invalid_argument("GPU paged attention: a write past the pool or its block's rows");
        if (!landedFits(w, landedBytes, d.shape.kvHeads, d.shape.headDim, sizeof(__half)))
            throw std::invalid_argument("GPU paged attention: a write's landed rows past the bytes given");
    }
    if (writes.empty())
        return;
    // One thread block per write: two writes of one block would race on its stamp, which the CPU lands in order.
    std::vector<std::uint32_t> named;
    for (const KvRowWrite& w : writes)
        named.push_back(w.block);
    std::sort(named.begin(), named.end());
    if (std::adjacent_find(named.begin(), named.end()) != named.end())
        throw std::invalid_argument("GPU paged attention: two writes of one block in one launch");
    COH_CUDA(cudaSetDevice(d.index));
    uploadInto(d.writes, writes);
    const std::size_t landedHalves = landedBytes / sizeof(__half);
    fit(d.landed, landedHalves);
    if (landedHalves > 0)
        COH_CUDA(cudaMemcpy(d.landed->get(), landed, landedHalves * sizeof(__half), cudaMemcpyHostToDevice));
    const KernelShape ks{d.shape.queryHeads, d.shape.kvHeads, d.shape.headDim, d.shape.blockTokens,
                         d.shape.queryHeads / d.shape.kvHeads};
    writeKvRowsKernel<<<static_cast<unsigned>(writes.size()), 256>>>(d.k.get(), d.v.get(), d.stamps.get(),
                                                                     d.writes->get(), d.landed->get(), ks);
    COH_CUDA(cudaGetLastError());
    COH_CUDA(cudaDeviceSynchronize());
}

std::vector<BlockStamp> GpuPagedAttention::stamps()
{
    Device& d = *m_device;
    COH_CUDA(cudaSetDevice(d.index));
    std::vector<BlockStamp> out(d.blocks);
    COH_CUDA(cudaMemcpy(out.data(), d.stamps.get(), out.size() * sizeof(BlockStamp), cudaMemcpyDeviceToHost));
    return out;
}

std::vector<std::uint32_t> GpuPagedAttention::checksums(const std::vector<std::uint32_t>& blocks)
{
    Device& d = *m_device;
    for (const std::uint32_t block : blocks)
        if (block >= d.blocks)
            throw std::invalid_argument("GPU paged attention: a checksum of a block past the pool");
    std::vector<std::uint32_t> out(blocks.size());
    if (blocks.empty())
        return out;
    COH_CUDA(cudaSetDevice(d.index));
    uploadInto(d.sumBlocks, blocks);
    fit(d.sums, blocks.size());
    const KernelShape ks{d.shape.queryHeads, d.shape.kvHeads, d.shape.headDim, d.shape.blockTokens,
                         d.shape.queryHeads / d.shape.kvHeads};
    blockChecksumsKernel<<<static_cast<unsigned>(blocks.size()), 256>>>(d.k.get(), d.v.get(), d.stamps.get(),
                                                                        d.sumBlocks->get(), d.sums->get(), ks);
    COH_CUDA(cudaGetLastError());
    COH_CUDA(cudaMemcpy(out.data(), d.sums->get(), out.size() * sizeof(std::uint32_t), cudaMemcpyDeviceToHost));
    return out;
}

void GpuPagedAttention::flipByte(std::uint32_t block, unsigned char mask)
{
    Device& d = *m_device;
    if (block >= d.blocks)
        throw std::invalid_argument("GPU paged attention: a flipped byte past the pool");
    COH_CUDA(cudaSetDevice(d.index));
    auto* at = reinterpret_cast<unsigned char*>(d.k.get() + std::size_t{block} * d.shape.blockElements());
    unsigned char byte = 0;
    COH_CUDA(cudaMemcpy(&byte, at, 1, cudaMemcpyDeviceToHost));
    byte ^= mask;
    COH_CUDA(cudaMemcpy(at, &byte, 1, cudaMemcpyHostToDevice));
}

void GpuPagedAttention::grow(std::uint32_t blocks)
{
    Device& d = *m_device;
    if (blocks < d.blocks)
        throw std::invalid_argument("GPU paged attention: a pool grows, it does not shrink");
    if (blocks == d.blocks)
        return;
    COH_CUDA(cudaSetDevice(d.index));
    const std::size_t blockElements = d.shape.blockElements();
    const std::size_t elements = std::size_t{blocks} * blockElements;
    // The stamps' buffer first (16 bytes a block), so that only V's can fail once K has grown. Then K, then V, each
    // copied into its larger buffer and the old one freed before the next: the device holds at most half the old pool
    // more than the grown one (what real::largestPoolBytes leaves room for). One that fails leaves the pool at its
    // blocks; a K already larger only holds more than it reads, and a later growth reuses it.
    DeviceBuffer<BlockStamp> stamps(blocks);
    const auto enlarge = [&](DeviceBuffer<__half>& pool, bool isV) {
        if (pool.count() >= elements)
            return;
        DeviceBuffer<__half> larger(elements);
        COH_CUDA(cudaMemcpy(larger.get(), pool.get(), d.poolElements * sizeof(__half), cudaMemcpyDeviceToDevice));
        constexpr unsigned kThreads = 256;
        const std::size_t grown = elements - d.poolElements;
        fillGrownBlocksKernel<<<static_cast<unsigned>((grown + kThreads - 1) / kThreads), kThreads>>>(
            larger.get(), d.poolElements, elements, static_cast<std::uint32_t>(blockElements), isV);
        COH_CUDA(cudaGetLastError());
        COH_CUDA(cudaDeviceSynchronize());
        pool.swap(larger);
    };
    enlarge(d.k, false);
    enlarge(d.v, true);
    COH_CUDA(
        cudaMemcpy(stamps.get(), d.stamps.get(), std::size_t{d.blocks} * sizeof(BlockStamp), cudaMemcpyDeviceToDevice));
    const std::vector<BlockStamp> freed(blocks - d.blocks);
    COH_CUDA(
        cudaMemcpy(stamps.get() + d.blocks, freed.data(), freed.size() * sizeof(BlockStamp), cudaMemcpyHostToDevice));
    d.stamps.swap(stamps);
    d.blocks = blocks;
    d.poolElements = elements;
}

double gpuDeviceCopyMs(int device, std::size_t bytes, int timedRuns)
{
    COH_CUDA(cudaSetDevice(device));
    DeviceBuffer<unsigned char> src(bytes), dst(bytes);
    COH_CUDA(cudaMemset(src.get(), 0x5a, std::max<std::size_t>(1, bytes)));
    DeviceEvent start, stop;
    COH_CUDA(cudaMemcpyAsync(dst.get(), src.get(), bytes, cudaMemcpyDeviceToDevice)); // warm up
    std::vector<double> ms;
    for (int r = 0; r < timedRuns; ++r) {
        COH_CUDA(cudaEventRecord(start.get()));
        COH_CUDA(cudaMemcpyAsync(dst.get(), src.get(), bytes, cudaMemcpyDeviceToDevice));
        COH_CUDA(cudaEventRecord(stop.get()));
        COH_CUDA(cudaEventSynchronize(stop.get()));
        float elapsed = 0;
        COH_CUDA(cudaEventElapsedTime(&elapsed, start.get(), stop.get()));
        ms.push_back(elapsed);
    }
    return median(ms);
}

} // namespace coh::core
