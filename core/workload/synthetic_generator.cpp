#include "core/workload/synthetic_generator.h"

#include "core/base/input_error.h"
#include "core/scenario/input_limits.h"
#include "core/workload/length_sampler.h"

#include <boost/random/exponential_distribution.hpp>
#include <boost/random/gamma_distribution.hpp>
#include <boost/random/mersenne_twister.hpp>

#include <fmt/format.h>

#include <cmath>

namespace coh::core {

namespace {

std::uint64_t splitmix64(std::uint64_t& state)
{
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

void validate(const SyntheticWorkload& spec)
{
    if (spec.requests == 0)
        throw InputError("", "/workload/requests", "a synthetic workload of 0 requests runs nothing",
                         "give at least 1 request");
    if (!std::isfinite(spec.ratePerSec) || spec.ratePerSec <= 0)
        throw InputError("", "/workload/arrival/rate",
                         fmt::format("an arrival rate of {} is not positive", spec.ratePerSec),
                         "give the rate in requests per second, above 0 (e.g. 4.0)");
    if (spec.arrival == ArrivalProcess::Gamma && (!std::isfinite(spec.cv) || spec.cv <= 0))
        throw InputError("", "/workload/arrival/cv",
                         fmt::format("a gamma coefficient of variation of {} is not positive", spec.cv),
                         "give cv above 0 (1 is Poisson, above 1 is bursty)");
    // The gamma's shape is 1/cv^2: beyond these it is 0 or infinite in a double, and its gaps are not numbers.
    if (spec.arrival == ArrivalProcess::Gamma && (spec.cv < kMinArrivalCv || spec.cv > kMaxArrivalCv))
        throw InputError("", "/workload/arrival/cv",
                         fmt::format("a gamma coefficient of variation of {} is outside {:g} to {:g}", spec.cv,
                                     kMinArrivalCv, kMaxArrivalCv),
                         "give cv within that range (1 is Poisson, above 1 is bursty; \"constant\" has no spread)");
}

[[noreturn]] void throwPastTheClock(const SyntheticWorkload& spec, std::uint32_t request, double t)
{
    throw InputError("", "/workload/arrival/rate",
                     fmt::format("at {:g} requests per second, request {} of {} would arrive {}, beyond the 64-bit "
                                 "nanosecond clock (about 292 years)",
                                 spec.ratePerSec, request + 1, spec.requests,
                                 std::isfinite(t) ? fmt::format("after {:.3g} s", t * 1e-9) : "never"),
                     "give a higher rate (requests per second), or fewer requests");
}

// Arrival times in ns. The first request arrives at t = 0 (as in trace replay), each later one a gap after
// the previous. Gaps accumulate in double ns and each time is rounded on its own, so rounding never drifts.
std::vector<SimTime> arrivalTimes(const SyntheticWorkload& spec, std::uint64_t seed)
{
    std::vector<SimTime> times(spec.requests);
    const double meanGapNs = 1e9 / spec.ratePerSec;
    // A rate so low that its mean gap is no number of nanoseconds: the second request never arrives (and the
    // distributions below must not be built on it).
    if (!std::isfinite(meanGapNs) && spec.requests > 1)
        throwPastTheClock(spec, 1, meanGapNs);
    if (spec.arrival == ArrivalProcess::Constant) {
        for (std::uint32_t i = 0; i < spec.requests; ++i) {
            const double t = i == 0 ? 0.0 : double(i) * meanGapNs;
            if (!(t < kClockLimitNs))
                throwPastTheClock(spec, i, t);
            times[i] = std::llround(t);
        }
        return times;
    }

    boost::random::mt19937_64 rng(seed);
    // Poisson: exponential gaps of mean 1/rate. Gamma: shape k = 1/cv^2 and scale 1/(rate k) keep the mean
    // at 1/rate while the coefficient of variation is cv.
    const double shape = spec.arrival == ArrivalProcess::Gamma ? 1.0 / (spec.cv * spec.cv) : 1.0;
    boost::random::exponential_distribution<double> exponential(1.0 / meanGapNs);
    boost::random::gamma_distribution<double> gamma(shape, meanGapNs / shape);
    double t = 0;
    for (std::uint32_t i = 0; i < spec.requests; ++i) {
        if (i > 0)
            t += spec.arrival == ArrivalProcess::Poisson ? exponential(rng) : gamma(rng);
        if (!(t < kClockLimitNs))
            throwPastTheClock(spec, i, t);
        times[i] = std::llround(t);
    }
    return times;
}

} // namespace

SyntheticSeeds SyntheticSeeds::fromScenarioSeed(std::uint64_t seed)
{
    std::uint64_t state = seed;
    SyntheticSeeds seeds;
    seeds.arrivals = splitmix64(state);
    seeds.prompts = splitmix64(state);
    seeds.outputs = splitmix64(state);
    return seeds;
}

Workload generateSyntheticWorkload(const SyntheticWorkload& spec, std::uint64_t seed)
{
    validate(spec);
    const LengthSampler promptSampler(spec.prompt, "/workload/prompt");
    const LengthSampler outputSampler(spec.output, "/workload/output");
    const SyntheticSeeds seeds = SyntheticSeeds::fromScenarioSeed(seed);

    const std::vector<SimTime> times = arrivalTimes(spec, seeds.arrivals);
    boost::random::mt19937_64 promptRng(seeds.prompts);
    boost::random::mt19937_64 outputRng(seeds.outputs);

    Workload workload;
    workload.requests.resize(spec.requests);
    for (std::uint32_t i = 0; i < spec.requests; ++i) {
        Request& r = workload.requests[i];
        r.arrival = times[i];
        r.promptTokens = promptSampler.sample(promptRng);
        r.outputTokens = outputSampler.sample(outputRng);
    }
    return workload;
}

} // namespace coh::core
