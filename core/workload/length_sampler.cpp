#include "core/workload/length_sampler.h"

#include "core/base/input_error.h"

#include <boost/random/normal_distribution.hpp>
#include <boost/random/uniform_01.hpp>
#include <boost/random/uniform_int_distribution.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace coh::core {

LengthSampler::LengthSampler(const LengthDistribution& dist, std::string field)
    : m_dist(dist)
    , m_field(std::move(field))
{
    validate();
    if (m_dist.kind == LengthKind::Zipf)
        buildZipfTable();
}

void LengthSampler::validate() const
{
    auto fail = [this](const char* key, std::string message, std::string fix) {
        throw InputError("", m_field + "/" + key, std::move(message), std::move(fix));
    };
    switch (m_dist.kind) {
    case LengthKind::Fixed:
        if (!std::isfinite(m_dist.value) || m_dist.value < 1)
            fail("value", fmt::format("a fixed length of {} tokens is not allowed", m_dist.value),
                 "give a length of at least 1 token");
        if (m_dist.value > double(UINT32_MAX))
            fail("value", fmt::format("a fixed length of {} tokens is too large", m_dist.value),
                 "give a length below 4294967296 tokens");
        return;
    case LengthKind::Lognormal:
        if (!std::isfinite(m_dist.median) || m_dist.median <= 0)
            fail("median", fmt::format("a lognormal median of {} is not positive", m_dist.median),
                 "give a median length above 0 tokens");
        if (!std::isfinite(m_dist.sigma) || m_dist.sigma < 0)
            fail("sigma", fmt::format("a lognormal sigma of {} is negative", m_dist.sigma),
                 "give sigma (the spread of ln length) as 0 or more, e.g. 0.8");
        break;
    case LengthKind::Zipf:
        if (!std::isfinite(m_dist.exponent) || m_dist.exponent < 0)
            fail("exponent", fmt::format("a zipf exponent of {} is negative", m_dist.exponent),
                 "give an exponent of 0 or more (1 is classic zipf)");
        break;
    case LengthKind::Uniform:
        break;
    }
    if (m_dist.min > m_dist.max)
        fail("min", fmt::format("min ({}) is larger than max ({})", m_dist.min, m_dist.max), "make min at most max");
    if (m_dist.min < 1)
        fail("min", "min is 0 tokens, but every prompt and output has at least one token",
             "give a min of at least 1 token");
    if (m_dist.kind == LengthKind::Zipf) {
        const std::uint64_t support = std::uint64_t(m_dist.max) - m_dist.min + 1;
        if (support > kMaxZipfSupport)
            fail("max", fmt::format("the zipf support max - min + 1 = {} is too large", support),
                 fmt::format("keep max - min + 1 at most {}", kMaxZipfSupport));
    }
}

void LengthSampler::buildZipfTable()
{
    const std::uint64_t n = std::uint64_t(m_dist.max) - m_dist.min + 1;
    m_zipfCdf.resize(n);
    double total = 0;
    for (std::uint64_t k = 1; k <= n; ++k) {
        total += std::pow(double(k), -m_dist.exponent);
        m_zipfCdf[k - 1] = total;
    }
}

std::uint32_t LengthSampler::clampLength(double x) const
{
    return static_cast<std::uint32_t>(std::clamp(std::round(x), double(m_dist.min), double(m_dist.max)));
}

std::uint32_t LengthSampler::sample(boost::random::mt19937_64& rng) const
{
    switch (m_dist.kind) {
    case LengthKind::Fixed:
        return static_cast<std::uint32_t>(std::round(m_dist.value));
    case LengthKind::Uniform: {
        boost::random::uniform_int_distribution<std::uint32_t> uniform(m_dist.min, m_dist.max);
        return uniform(rng);
    }
    case LengthKind::Lognormal: {
        // exp(N(ln median, sigma)) rather than boost's lognormal, so the parameters read as in the docs.
        boost::random::normal_distribution<double> normal(std::log(m_dist.median), m_dist.sigma);
        return clampLength(std::exp(normal(rng)));
    }
    case LengthKind::Zipf: {
        const double u = boost::random::uniform_01<double>()(rng) * m_zipfCdf.back();
        const auto it = std::upper_bound(m_zipfCdf.begin(), m_zipfCdf.end(), u);
        const auto k = std::min<std::size_t>(std::size_t(it - m_zipfCdf.begin()), m_zipfCdf.size() - 1) + 1;
        return m_dist.min + static_cast<std::uint32_t>(k) - 1;
    }
    }
    return 1;
}

} // namespace coh::core
