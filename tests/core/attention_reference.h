#pragma once
// The float64 reference the CPU and the CUDA paged attention are checked against.
#include "core/real/paged_attention.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

namespace coh::test {

using core::real::PagedKvShape;
using core::real::PagedSequence;

// Softmax attention computed the plain way, in double: every score, then the maximum, then the weighted sum.
inline std::vector<double> reference(const PagedKvShape& shape, const std::vector<float>& k,
                                     const std::vector<float>& v, const std::vector<float>& q,
                                     const std::vector<PagedSequence>& seqs, double scale)
{
    const std::size_t dim = shape.headDim;
    std::vector<double> out(seqs.size() * shape.queryHeads * dim, 0.0);
    for (std::size_t s = 0; s < seqs.size(); ++s)
        for (std::uint32_t h = 0; h < shape.queryHeads; ++h) {
            const std::uint32_t kvHead = h / shape.group();
            const auto at = [&](std::uint32_t t) {
                const std::uint32_t block = seqs[s].blocks[t / shape.blockTokens];
                return std::size_t{block} * shape.blockFloats() +
                       (std::size_t{kvHead} * shape.blockTokens + t % shape.blockTokens) * dim;
            };
            const std::uint32_t n = seqs[s].contextTokens;
            if (n == 0)
                continue;
            std::vector<double> score(n);
            for (std::uint32_t t = 0; t < n; ++t) {
                double dot = 0;
                for (std::size_t d = 0; d < dim; ++d)
                    dot += double(q[(s * shape.queryHeads + h) * dim + d]) * double(k[at(t) + d]);
                score[t] = dot * scale;
            }
            const double m = *std::max_element(score.begin(), score.end());
            double sum = 0;
            for (auto& x : score)
                sum += (x = std::exp(x - m));
            for (std::uint32_t t = 0; t < n; ++t)
                for (std::size_t d = 0; d < dim; ++d)
                    out[(s * shape.queryHeads + h) * dim + d] += score[t] / sum * double(v[at(t) + d]);
        }
    return out;
}

// Checks `out` against the reference per sequence and head: relative L2 error under `relL2` and no element off by
// `maxAbs` or more; a sequence with no context must give exact zeros.
inline void expectMatchesReference(const std::vector<float>& out, const std::vector<double>& want,
                                   const PagedKvShape& shape, const std::vector<std::uint32_t>& contexts, double relL2,
                                   double maxAbs)
{
    ASSERT_EQ(out.size(), want.size());
    const std::size_t dim = shape.headDim;
    for (std::size_t s = 0; s < contexts.size(); ++s)
        for (std::uint32_t h = 0; h < shape.queryHeads; ++h) {
            double err = 0, norm = 0, worst = 0;
            for (std::size_t d = 0; d < dim; ++d) {
                const std::size_t i = (s * shape.queryHeads + h) * dim + d;
                err += (out[i] - want[i]) * (out[i] - want[i]);
                norm += want[i] * want[i];
                worst = std::max(worst, std::abs(out[i] - want[i]));
            }
            SCOPED_TRACE(testing::Message() << "sequence " << s << ", head " << h);
            if (contexts[s] == 0) {
                EXPECT_EQ(norm, 0.0);
                EXPECT_EQ(err, 0.0);
                continue;
            }
            EXPECT_LT(std::sqrt(err / norm), relL2);
            EXPECT_LT(worst, maxAbs);
        }
}

} // namespace coh::test
