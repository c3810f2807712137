// The PHOLD model: deterministic, matches its renewal-theory event count, keeps LPs independent.
#include "core/sim/phold.h"

#include "core/base/input_error.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>

namespace coh::core {
namespace {

PholdConfig smallConfig()
{
    PholdConfig config;
    config.lps = 64;
    config.endTime = 200.0;
    config.seed = 7;
    return config;
}

TEST(Phold, SameSeedGivesIdenticalRun)
{
    const PholdResult a = runPhold(smallConfig());
    const PholdResult b = runPhold(smallConfig());
    EXPECT_GT(a.committed, 0u);
    EXPECT_EQ(a.committed, b.committed);
    EXPECT_EQ(a.digest, b.digest);

    PholdConfig other = smallConfig();
    other.seed = 8;
    const PholdResult c = runPhold(other);
    EXPECT_NE(a.digest, c.digest);
}

TEST(Phold, CommittedMatchesAnalyticExpectation)
{
    Simulator sim;
    Phold model(sim, smallConfig());
    model.start();
    EXPECT_EQ(sim.pending(), 64u * 16u);
    sim.run(model, model.end());

    // 16 chains per LP, each a renewal process with mean gap 1.0: ~16·N·end events (minus a small edge term).
    const double expected = model.expectedCommitted();
    EXPECT_NEAR(expected, 16.0 * 64 * 200.0, 0.01 * 16.0 * 64 * 200.0);
    const auto committed = static_cast<double>(sim.eventsExecuted());
    EXPECT_NEAR(committed, expected, 0.02 * expected);

    // Successors at or past the end are dropped, so nothing is left and nothing ran late.
    EXPECT_EQ(sim.pending(), 0u);
    EXPECT_LT(sim.now(), model.end());

    // Remote sends keep the per-LP population at 16 on average, so every LP handles about 16·end events.
    std::uint64_t total = 0;
    for (std::uint32_t lp = 0; lp < 64; ++lp) {
        const auto handled = static_cast<double>(model.handledAt(lp));
        EXPECT_NEAR(handled, 16.0 * 200.0, 0.35 * 16.0 * 200.0) << "LP " << lp;
        total += model.handledAt(lp);
    }
    EXPECT_EQ(total, sim.eventsExecuted());

    // One event in ten sends its successor to a random LP.
    const double remoteShare = static_cast<double>(model.remoteSends()) / committed;
    EXPECT_NEAR(remoteShare, 0.1, 0.005);
}

TEST(Phold, LocalOnlyLpsDependOnlyOnTheirOwnStream)
{
    // With no remote sends an LP's history is a function of its seed and index alone, not of N.
    PholdConfig small = smallConfig();
    small.remoteProbability = 0.0;
    small.lps = 4;
    PholdConfig large = small;
    large.lps = 32;

    Simulator simSmall;
    Phold modelSmall(simSmall, small);
    modelSmall.start();
    simSmall.run(modelSmall, modelSmall.end());

    Simulator simLarge;
    Phold modelLarge(simLarge, large);
    modelLarge.start();
    simLarge.run(modelLarge, modelLarge.end());

    for (std::uint32_t lp = 0; lp < small.lps; ++lp)
        EXPECT_EQ(modelSmall.handledAt(lp), modelLarge.handledAt(lp)) << "LP " << lp;
    // And streams differ between LPs.
    EXPECT_NE(modelSmall.handledAt(0), modelSmall.handledAt(1));
}

TEST(Phold, EndTimeLimitsTheRun)
{
    PholdConfig shortRun = smallConfig();
    shortRun.endTime = 50.0;
    const PholdResult a = runPhold(shortRun);
    const PholdResult b = runPhold(smallConfig());
    EXPECT_NEAR(static_cast<double>(b.committed) / static_cast<double>(a.committed), 200.0 / 50.0, 0.2);
    EXPECT_EQ(a.initialPending, 64u * 16u);
    EXPECT_EQ(a.finalPending, 0u);
    EXPECT_GE(a.seconds, 0.0);
}

TEST(Phold, RejectsBadParametersNamingTheField)
{
    auto fieldOf = [](PholdConfig config) -> std::string {
        try {
            Simulator sim;
            Phold model(sim, config);
        } catch (const InputError& e) {
            return e.problems().empty() ? std::string() : e.problems().front().field;
        }
        return "no error";
    };
    PholdConfig c = smallConfig();
    c.lps = 0;
    EXPECT_EQ(fieldOf(c), "phold/lps");
    c = smallConfig();
    c.remoteProbability = 1.5;
    EXPECT_EQ(fieldOf(c), "phold/remoteProbability");
    c = smallConfig();
    c.meanDelay = 0.05; // below the lookahead
    EXPECT_EQ(fieldOf(c), "phold/meanDelay");
    c = smallConfig();
    c.endTime = -1.0;
    EXPECT_EQ(fieldOf(c), "phold/endTime");
    EXPECT_EQ(fieldOf(smallConfig()), "no error");
}

} // namespace
} // namespace coh::core
