#pragma once
// Draws prompt or output lengths (tokens, always >= 1) from one LengthDistribution of a synthetic workload.
#include "core/scenario/workload_spec.h"

#include <boost/random/mersenne_twister.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace coh::core {

class LengthSampler {
  public:
    // Largest zipf support (max - min + 1) we build a CDF table for (80 MB of doubles).
    static constexpr std::uint64_t kMaxZipfSupport = 10'000'000;

    // Validates the distribution; `field` is its JSON pointer (e.g. "/workload/prompt") for InputError.
    LengthSampler(const LengthDistribution& dist, std::string field);

    std::uint32_t sample(boost::random::mt19937_64& rng) const;

  private:
    void validate() const;
    void buildZipfTable();
    std::uint32_t clampLength(double x) const;

    LengthDistribution m_dist;
    std::string m_field;
    std::vector<double> m_zipfCdf; // unnormalised cumulative weights of k = 1..n
};

} // namespace coh::core
