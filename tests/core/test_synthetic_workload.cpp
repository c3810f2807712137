// Synthetic workloads: arrival processes, length distributions, seeds and spec errors.
#include "core/base/input_error.h"
#include "core/workload/length_sampler.h"
#include "core/workload/synthetic_generator.h"
#include "core/workload/workload_builder.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <string>
#include <vector>

using namespace coh::core;

namespace {

LengthDistribution fixedLength(double value)
{
    LengthDistribution d;
    d.kind = LengthKind::Fixed;
    d.value = value;
    return d;
}

SyntheticWorkload spec(ArrivalProcess arrival, double rate, std::uint32_t requests)
{
    SyntheticWorkload s;
    s.arrival = arrival;
    s.ratePerSec = rate;
    s.requests = requests;
    s.prompt = fixedLength(100);
    s.output = fixedLength(10);
    return s;
}

// Mean and coefficient of variation of the gaps between consecutive arrivals, in ns.
std::pair<double, double> gapStats(const Workload& w)
{
    std::vector<double> gaps;
    for (std::size_t i = 1; i < w.requests.size(); ++i)
        gaps.push_back(double(w.requests[i].arrival - w.requests[i - 1].arrival));
    const double mean = std::accumulate(gaps.begin(), gaps.end(), 0.0) / double(gaps.size());
    double sq = 0;
    for (double g : gaps)
        sq += (g - mean) * (g - mean);
    return {mean, std::sqrt(sq / double(gaps.size() - 1)) / mean};
}

std::vector<std::uint32_t> draw(const LengthDistribution& d, std::size_t n, std::uint64_t seed = 7)
{
    const LengthSampler sampler(d, "/workload/prompt");
    boost::random::mt19937_64 rng(seed);
    std::vector<std::uint32_t> out(n);
    for (auto& x : out)
        x = sampler.sample(rng);
    return out;
}

template <class F> InputProblem expectInputError(F&& f)
{
    try {
        f();
    } catch (const InputError& e) {
        EXPECT_FALSE(e.problems().empty());
        return e.problems().front();
    }
    ADD_FAILURE() << "no InputError";
    return {};
}

} // namespace

TEST(SyntheticWorkload, FirstRequestArrivesAtZeroAndArrivalsAreSorted)
{
    for (ArrivalProcess p : {ArrivalProcess::Poisson, ArrivalProcess::Gamma, ArrivalProcess::Constant}) {
        const Workload w = generateSyntheticWorkload(spec(p, 10, 500), 3);
        ASSERT_EQ(w.requests.size(), 500u);
        EXPECT_EQ(w.requests.front().arrival, 0);
        EXPECT_TRUE(std::is_sorted(w.requests.begin(), w.requests.end(),
                                   [](const Request& a, const Request& b) { return a.arrival < b.arrival; }));
        EXPECT_TRUE(w.prefixHashes.empty());
    }
}

TEST(SyntheticWorkload, ConstantArrivalsAreExactlyOneOverRateApart)
{
    const Workload w = generateSyntheticWorkload(spec(ArrivalProcess::Constant, 4.0, 1000), 1);
    for (std::size_t i = 0; i < w.requests.size(); ++i)
        ASSERT_EQ(w.requests[i].arrival, SimTime(i) * 250'000'000) << i;

    // 1/3 s is not a whole number of ns: each time rounds on its own, so there is no drift.
    const Workload third = generateSyntheticWorkload(spec(ArrivalProcess::Constant, 3.0, 3001), 1);
    EXPECT_EQ(third.requests[1].arrival, 333'333'333);
    EXPECT_EQ(third.requests[2].arrival, 666'666'667);
    EXPECT_EQ(third.requests[3000].arrival, 1000 * kSecond);
}

TEST(SyntheticWorkload, PoissonMeanGapIsOneOverRate)
{
    const Workload w = generateSyntheticWorkload(spec(ArrivalProcess::Poisson, 5.0, 20'001), 11);
    const auto [mean, cv] = gapStats(w);
    EXPECT_NEAR(mean, 200e6, 200e6 * 0.03);
    EXPECT_NEAR(cv, 1.0, 0.03); // exponential gaps have CV 1
}

TEST(SyntheticWorkload, GammaKeepsTheMeanAndHitsTheCv)
{
    for (double targetCv : {0.5, 2.0}) {
        SyntheticWorkload s = spec(ArrivalProcess::Gamma, 8.0, 20'001);
        s.cv = targetCv;
        const auto [mean, cv] = gapStats(generateSyntheticWorkload(s, 5));
        EXPECT_NEAR(mean, 125e6, 125e6 * 0.05) << "cv " << targetCv;
        EXPECT_NEAR(cv, targetCv, targetCv * 0.05) << "cv " << targetCv;
    }
}

TEST(LengthSampler, FixedReturnsTheValue)
{
    for (std::uint32_t x : draw(fixedLength(512), 100))
        ASSERT_EQ(x, 512u);
}

TEST(LengthSampler, UniformCoversTheInclusiveBoundsEvenly)
{
    LengthDistribution d;
    d.kind = LengthKind::Uniform;
    d.min = 3;
    d.max = 7;
    std::map<std::uint32_t, int> counts;
    for (std::uint32_t x : draw(d, 20'000))
        ++counts[x];
    ASSERT_EQ(counts.size(), 5u);
    EXPECT_EQ(counts.begin()->first, 3u);
    EXPECT_EQ(counts.rbegin()->first, 7u);
    for (const auto& [value, n] : counts)
        EXPECT_NEAR(n, 4000, 200) << value;
}

TEST(LengthSampler, LognormalHasTheMedianAndStaysInBounds)
{
    LengthDistribution d;
    d.kind = LengthKind::Lognormal;
    d.median = 1024;
    d.sigma = 0.8;
    d.min = 256; // 1.7 sigma below the median: about 4% of draws are clamped up to it
    d.max = 4096;
    std::vector<std::uint32_t> xs = draw(d, 20'001);
    EXPECT_NEAR(double(std::count(xs.begin(), xs.end(), 256u)), 20'001 * 0.0416, 20'001 * 0.006);
    EXPECT_NEAR(double(std::count(xs.begin(), xs.end(), 4096u)), 20'001 * 0.0416, 20'001 * 0.006);
    EXPECT_EQ(*std::min_element(xs.begin(), xs.end()), 256u);
    EXPECT_EQ(*std::max_element(xs.begin(), xs.end()), 4096u);
    std::nth_element(xs.begin(), xs.begin() + 10'000, xs.end());
    EXPECT_NEAR(double(xs[10'000]), 1024.0, 1024.0 * 0.03);

    d.sigma = 0; // no spread: every length is the median
    for (std::uint32_t x : draw(d, 10))
        ASSERT_EQ(x, 1024u);
}

TEST(LengthSampler, ZipfRatioOfFirstTwoValuesIsTwoToTheExponent)
{
    LengthDistribution d;
    d.kind = LengthKind::Zipf;
    d.exponent = 1.2;
    d.min = 10;
    d.max = 1009;
    std::map<std::uint32_t, int> counts;
    for (std::uint32_t x : draw(d, 100'000))
        ++counts[x];
    EXPECT_EQ(counts.begin()->first, 10u); // value = min + k - 1
    EXPECT_LE(counts.rbegin()->first, 1009u);
    EXPECT_NEAR(double(counts[10]) / counts[11], std::pow(2.0, 1.2), std::pow(2.0, 1.2) * 0.04);
    EXPECT_NEAR(double(counts[10]) / counts[12], std::pow(3.0, 1.2), std::pow(3.0, 1.2) * 0.05);
}

TEST(LengthSampler, ZipfWithExponentZeroIsUniform)
{
    LengthDistribution d;
    d.kind = LengthKind::Zipf;
    d.exponent = 0;
    d.min = 1;
    d.max = 4;
    std::map<std::uint32_t, int> counts;
    for (std::uint32_t x : draw(d, 20'000))
        ++counts[x];
    ASSERT_EQ(counts.size(), 4u);
    for (const auto& [value, n] : counts)
        EXPECT_NEAR(n, 5000, 250) << value;
}

TEST(SyntheticWorkload, SameSeedSameRequestsOtherSeedOthers)
{
    SyntheticWorkload s = spec(ArrivalProcess::Poisson, 4, 200);
    s.prompt.kind = LengthKind::Lognormal;
    s.prompt.median = 1000;
    s.prompt.sigma = 1;
    s.prompt.max = 100'000;
    s.output.kind = LengthKind::Uniform;
    s.output.min = 1;
    s.output.max = 1000;
    const auto fields = [](const Workload& w) {
        std::vector<std::tuple<SimTime, std::uint32_t, std::uint32_t>> v;
        for (const Request& r : w.requests)
            v.emplace_back(r.arrival, r.promptTokens, r.outputTokens);
        return v;
    };
    const auto a = fields(generateSyntheticWorkload(s, 42));
    EXPECT_EQ(a, fields(generateSyntheticWorkload(s, 42)));
    const auto b = fields(generateSyntheticWorkload(s, 43));
    int sameArrivals = 0, samePrompts = 0;
    for (std::size_t i = 1; i < a.size(); ++i) {
        sameArrivals += std::get<0>(a[i]) == std::get<0>(b[i]);
        samePrompts += std::get<1>(a[i]) == std::get<1>(b[i]);
    }
    EXPECT_EQ(sameArrivals, 0);
    EXPECT_LT(samePrompts, 10);
}

TEST(SyntheticWorkload, StreamsAreIndependent)
{
    SyntheticWorkload s = spec(ArrivalProcess::Gamma, 4, 300);
    s.cv = 3;
    s.prompt.kind = LengthKind::Uniform;
    s.prompt.min = 1;
    s.prompt.max = 4096;
    const Workload before = generateSyntheticWorkload(s, 9);
    s.output.kind = LengthKind::Zipf; // a different output distribution draws differently...
    s.output.min = 1;
    s.output.max = 2000;
    const Workload after = generateSyntheticWorkload(s, 9);
    for (std::size_t i = 0; i < before.requests.size(); ++i) {
        // ...but leaves arrivals and prompts as they were.
        ASSERT_EQ(before.requests[i].arrival, after.requests[i].arrival) << i;
        ASSERT_EQ(before.requests[i].promptTokens, after.requests[i].promptTokens) << i;
    }
    const SyntheticSeeds seeds = SyntheticSeeds::fromScenarioSeed(9);
    EXPECT_NE(seeds.arrivals, seeds.prompts);
    EXPECT_NE(seeds.prompts, seeds.outputs);
}

TEST(SyntheticWorkload, PinnedDrawsForSeed42)
{
    // Boost.Random gives the same numbers on every compiler and standard library; these values pin that
    // (and the splitmix64 stream derivation). A change here changes every stored synthetic run.
    SyntheticWorkload s = spec(ArrivalProcess::Poisson, 2, 3);
    s.prompt.kind = LengthKind::Uniform;
    s.prompt.min = 1;
    s.prompt.max = 10'000;
    const Workload w = generateSyntheticWorkload(s, 42);
    EXPECT_EQ(SyntheticSeeds::fromScenarioSeed(42).arrivals, 13679457532755275413ULL);
    EXPECT_EQ(w.requests[1].arrival, 16326993);
    EXPECT_EQ(w.requests[2].arrival, 1674227881);
    EXPECT_EQ(w.requests[0].promptTokens, 6274u);
    EXPECT_EQ(w.requests[1].promptTokens, 8324u);
}

TEST(SyntheticWorkload, BuildWorkloadDispatchesSynthetic)
{
    WorkloadSpec ws;
    ws.kind = WorkloadKind::Synthetic;
    ws.synthetic = spec(ArrivalProcess::Constant, 2, 5);
    const Workload w = buildWorkload(ws, 1);
    ASSERT_EQ(w.requests.size(), 5u);
    EXPECT_EQ(w.requests[4].arrival, 2 * kSecond);
    EXPECT_EQ(w.requests[4].promptTokens, 100u);
    EXPECT_EQ(w.requests[4].outputTokens, 10u);
}

TEST(SyntheticWorkload, BadSpecsNameTheField)
{
    EXPECT_EQ(expectInputError([] { generateSyntheticWorkload(spec(ArrivalProcess::Poisson, 0, 10), 1); }).field,
              "/workload/arrival/rate");
    EXPECT_EQ(expectInputError([] { generateSyntheticWorkload(spec(ArrivalProcess::Poisson, -1, 10), 1); }).field,
              "/workload/arrival/rate");
    EXPECT_EQ(expectInputError([] { generateSyntheticWorkload(spec(ArrivalProcess::Poisson, 1, 0), 1); }).field,
              "/workload/requests");
    SyntheticWorkload gamma = spec(ArrivalProcess::Gamma, 1, 10);
    gamma.cv = 0;
    EXPECT_EQ(expectInputError([&] { generateSyntheticWorkload(gamma, 1); }).field, "/workload/arrival/cv");

    SyntheticWorkload s = spec(ArrivalProcess::Poisson, 1, 10);
    s.output = fixedLength(0);
    EXPECT_EQ(expectInputError([&] { generateSyntheticWorkload(s, 1); }).field, "/workload/output/value");
}

TEST(LengthSampler, BadDistributionsNameTheFieldAndFix)
{
    LengthDistribution zipf;
    zipf.kind = LengthKind::Zipf;
    zipf.min = 1;
    zipf.max = 20'000'000;
    InputProblem p = expectInputError([&] { LengthSampler(zipf, "/workload/prompt"); });
    EXPECT_EQ(p.field, "/workload/prompt/max");
    EXPECT_NE(p.message.find("20000000"), std::string::npos) << p.message;
    EXPECT_NE(p.fix.find("10000000"), std::string::npos) << p.fix;
    zipf.max = 10'000'000; // exactly the limit is fine
    EXPECT_NO_THROW(LengthSampler(zipf, "/workload/prompt"));

    LengthDistribution uniform;
    uniform.kind = LengthKind::Uniform;
    uniform.min = 9;
    uniform.max = 3;
    EXPECT_EQ(expectInputError([&] { LengthSampler(uniform, "/workload/output"); }).field, "/workload/output/min");
    uniform.min = 0;
    EXPECT_EQ(expectInputError([&] { LengthSampler(uniform, "/workload/output"); }).field, "/workload/output/min");

    LengthDistribution lognormal;
    lognormal.kind = LengthKind::Lognormal;
    lognormal.median = 0;
    lognormal.max = 100;
    EXPECT_EQ(expectInputError([&] { LengthSampler(lognormal, "/workload/prompt"); }).field, "/workload/prompt/median");
    lognormal.median = 10;
    lognormal.sigma = -1;
    EXPECT_EQ(expectInputError([&] { LengthSampler(lognormal, "/workload/prompt"); }).field, "/workload/prompt/sigma");
}
