#include "core/real/attention_bench.h"

#include "core/real/bench_clock.h"
#include "core/real/cache_displacer.h"
#include "core/real/node_workers.h" // fillBlocks

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <numeric>
#include <optional>
#include <random>
#include <stdexcept>
#include <type_traits>

namespace coh::core::real {

namespace {

template <class T> std::vector<AttentionBenchRow> benchOver(const AttentionBenchOptions& options)
{
    const PagedKvShape& shape = options.shape;
    std::vector<AttentionBenchRow> rows;
    std::mt19937 rng(1);
    std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
    const auto fill = [&](auto& v) {
        for (auto& x : v)
            x = fromFloat<std::remove_reference_t<decltype(x)>>(uniform(rng));
    };
    // With a pool: one of poolBytes (K and V together) for every context, as real-cpu's decode steps read theirs.
    const std::size_t blockBytes = 2 * shape.blockFloats() * sizeof(T);
    const auto fixedBlocks = static_cast<std::uint32_t>(options.poolBytes / blockBytes);
    // Pools made as a run's are (fillBlocks: the same values, huge pages asked for first), so a profile measures the
    // memory a run's steps read.
    std::vector<T> k, v;
    if (options.poolBytes > 0)
        fillBlocks(k, v, 0, std::max(1u, fixedBlocks), shape.blockFloats());
    std::uint32_t cursor = 0;
    // One memory, as much of it read as each amount asks.
    const std::vector<std::size_t> amounts =
        options.betweenBytes.empty() ? std::vector<std::size_t>{0} : options.betweenBytes;
    const std::size_t most = *std::max_element(amounts.begin(), amounts.end());
    std::optional<CacheDisplacer> between;
    if (most > 0)
        between.emplace(most);
    for (const std::uint32_t context : options.contexts) {
        const std::uint32_t perSequence = (context + shape.blockTokens - 1) / shape.blockTokens;
        const std::uint32_t wanted = perSequence * options.sequences;
        if (options.poolBytes == 0)
            fillBlocks(k, v, 0, wanted, shape.blockFloats());
        const auto blocks = static_cast<std::uint32_t>(k.size() / shape.blockFloats());
        // Scattered block tables, as a paged pool hands them out; a pool smaller than the step is wrapped.
        std::vector<std::uint32_t> order(blocks);
        std::iota(order.begin(), order.end(), 0u);
        std::shuffle(order.begin(), order.end(), rng);
        std::vector<std::uint32_t> tables(wanted);
        std::vector<PagedSequence> seqs;
        std::vector<float> q(std::size_t{options.sequences} * shape.queryHeads * shape.headDim);
        fill(q);
        std::vector<float> out(q.size());
        const float scale = 1.0f / std::sqrt(static_cast<float>(shape.headDim));

        const std::size_t used = std::size_t{context} * shape.kvHeads * shape.headDim * options.sequences;
        std::vector<T> copy(std::min(2 * used, k.size() + v.size()));
        std::vector<std::vector<double>> attentionNs(amounts.size()), copyNs(amounts.size());
        const auto takeBlocks = [&] {
            for (auto& b : tables) {
                b = order[cursor % blocks];
                cursor = (cursor + 1) % blocks;
            }
            seqs.clear();
            for (std::uint32_t s = 0; s < options.sequences; ++s)
                seqs.push_back(
                    {std::span<const std::uint32_t>(tables).subspan(std::size_t{s} * perSequence, perSequence),
                     context});
        };
        const auto attend = [&](std::size_t amount) {
            if (between)
                between->here(amounts[amount]);
            const auto start = BenchClock::now();
            pagedDecodeAttention(shape, std::span<const T>(k), std::span<const T>(v), q, seqs, scale, out);
            attentionNs[amount].push_back(std::max(1.0, nsSince(start)));
        };
        // As many bytes copied, from the same memory (wrapped when the pool is smaller).
        const auto copyOnce = [&](std::size_t amount) {
            if (between)
                between->here(amounts[amount]);
            const auto start = BenchClock::now();
            for (std::size_t left = 2 * used; left > 0;) {
                const std::size_t half = std::min(left, copy.size()) / 2, rest = std::min(left, copy.size()) - half;
                std::memcpy(copy.data(), k.data(), half * sizeof(T));
                std::memcpy(copy.data() + half, v.data(), rest * sizeof(T));
                left -= half + rest;
            }
            copyNs[amount].push_back(std::max(1.0, nsSince(start)));
        };
        const int rounds = std::max(1, options.rounds);
        if (options.warm) {
            takeBlocks();
            attend(0); // untimed: brings the blocks in
            attentionNs[0].clear();
            for (int round = 0; round < rounds; ++round)
                for (std::size_t a = 0; a < amounts.size(); ++a)
                    attend(a);
            for (int round = 0; round < rounds; ++round)
                for (std::size_t a = 0; a < amounts.size(); ++a)
                    copyOnce(a);
        } else {
            for (int round = 0; round < rounds; ++round)
                for (std::size_t a = 0; a < amounts.size(); ++a) {
                    // Each round reads the blocks after the last round's, as consecutive decode steps do.
                    takeBlocks();
                    attend(a);
                    copyOnce(a);
                }
        }
        for (std::size_t a = 0; a < amounts.size(); ++a)
            rows.push_back({context, shape.kvBytes(std::uint64_t{context} * options.sequences, sizeof(T)),
                            median(attentionNs[a]), median(copyNs[a]), amounts[a]});
    }
    return rows;
}

} // namespace

std::vector<AttentionBenchRow> runAttentionBench(const AttentionBenchOptions& options)
{
    if (options.elementBytes == sizeof(Half))
        return benchOver<Half>(options);
    if (options.elementBytes == sizeof(float))
        return benchOver<float>(options);
    throw std::invalid_argument("attention bench: K and V elements are of 2 (fp16) or 4 (fp32) bytes");
}

} // namespace coh::core::real
