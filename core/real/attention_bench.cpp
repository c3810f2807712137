#include "core/real/attention_bench.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <numeric>
#include <random>

namespace coh::core::real {

namespace {
using Clock = std::chrono::steady_clock;

double nsSince(Clock::time_point start)
{
    return std::max(
        1.0, static_cast<double>(std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - start).count()));
}

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}
} // namespace

std::vector<AttentionBenchRow> runAttentionBench(const AttentionBenchOptions& options)
{
    const PagedKvShape& shape = options.shape;
    std::vector<AttentionBenchRow> rows;
    std::mt19937 rng(1);
    std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
    for (const std::uint32_t context : options.contexts) {
        const std::uint32_t perSequence = (context + shape.blockTokens - 1) / shape.blockTokens;
        const std::uint32_t blocks = perSequence * options.sequences;
        std::vector<float> k(std::size_t{blocks} * shape.blockFloats()), v(k.size());
        for (auto& x : k)
            x = uniform(rng);
        for (auto& x : v)
            x = uniform(rng);
        // Scattered block tables, as a paged pool hands them out.
        std::vector<std::uint32_t> pool(blocks);
        std::iota(pool.begin(), pool.end(), 0u);
        std::shuffle(pool.begin(), pool.end(), rng);
        std::vector<PagedSequence> seqs;
        for (std::uint32_t s = 0; s < options.sequences; ++s)
            seqs.push_back(
                {std::span<const std::uint32_t>(pool).subspan(std::size_t{s} * perSequence, perSequence), context});
        std::vector<float> q(std::size_t{options.sequences} * shape.queryHeads * shape.headDim);
        for (auto& x : q)
            x = uniform(rng);
        std::vector<float> out(q.size());
        const float scale = 1.0f / std::sqrt(static_cast<float>(shape.headDim));

        const std::size_t used = std::size_t{context} * shape.kvHeads * shape.headDim * options.sequences;
        std::vector<float> copy(2 * used);
        std::vector<double> attentionNs, copyNs;
        for (int round = 0; round < std::max(1, options.rounds); ++round) {
            auto start = Clock::now();
            pagedDecodeAttention(shape, k, v, q, seqs, scale, out);
            attentionNs.push_back(nsSince(start));
            start = Clock::now();
            std::memcpy(copy.data(), k.data(), used * sizeof(float));
            std::memcpy(copy.data() + used, v.data(), used * sizeof(float));
            copyNs.push_back(nsSince(start));
        }
        rows.push_back({context, static_cast<double>(2 * used * sizeof(float)), median(attentionNs), median(copyNs)});
    }
    return rows;
}

} // namespace coh::core::real
