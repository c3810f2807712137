#pragma once
// `cohsim bench attention`: the CPU paged decode attention's achieved bandwidth (the K and V bytes it reads over its
// time) against a plain copy of as many bytes, side by side in one run, over context lengths
// (docs/real-backend.md#attention).
#include "core/real/paged_attention.h"

#include <cstdint>
#include <vector>

namespace coh::core::real {

struct AttentionBenchOptions {
    PagedKvShape shape; // Llama-3-8B's attention: 32 query heads, 8 KV heads of 128
    std::vector<std::uint32_t> contexts{128, 512, 2048, 8192, 32768};
    std::uint32_t sequences = 1; // per decode step
    int rounds = 7;              // per context, each an attention step then a copy of its KV bytes
    // 0: K and V of exactly the step's size, per context. Else one pool of this many bytes (K and V together) that
    // every context's block tables take their blocks from in turn, wrapping: how real-cpu's decode steps read.
    std::size_t poolBytes = 0;
    std::size_t elementBytes = 2; // of K and V: 2 (fp16, as a model's cache holds them) or 4 (fp32)
    // Every round reads the same blocks, after one untimed pass over them, and the copies run after all the rounds:
    // how a run's decode steps read a sequence's blocks step after step (its own blocks, still in the caches while
    // they fit). Off: each round reads the blocks after the last round's, as consecutive steps of a pool's
    // sequences in turn do, out of memory.
    bool warm = false;
    // Before each timed round (and each copy beside it), off the clock, the bench's thread reads this many bytes of
    // other memory (CacheDisplacer): what a run's copies and other instances' steps pass through the caches between
    // one instance's steps (docs/real-backend.md#a-step-after-the-machines-other-traffic). Several: each round takes
    // them in turn, a row per context and amount, so they are compared side by side. Empty: nothing in between.
    std::vector<std::size_t> betweenBytes;
};

struct AttentionBenchRow {
    std::uint32_t context = 0;
    double kvBytes = 0;           // K and V read by one step
    double attentionNs = 0;       // median
    double copyNs = 0;            // median: memcpy of kvBytes
    std::size_t betweenBytes = 0; // other memory read before each round (AttentionBenchOptions::betweenBytes)
    double attentionGBps() const { return kvBytes / attentionNs; }
    double copyGBps() const { return kvBytes / copyNs; }
    double nsPerToken() const { return attentionNs / context; }
};

std::vector<AttentionBenchRow> runAttentionBench(const AttentionBenchOptions& options);

} // namespace coh::core::real
