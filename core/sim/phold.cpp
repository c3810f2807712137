#include "core/sim/phold.h"

#include "core/base/input_error.h"
#include "core/sim/splitmix64.h"

#include <string>

namespace coh::core {

namespace {

std::uint64_t mixInto(std::uint64_t hash, std::uint64_t value)
{
    std::uint64_t state = hash ^ value;
    return splitmix64(state);
}

void require(bool ok, const char* field, const std::string& message, const std::string& fix)
{
    if (!ok)
        throw InputError("", std::string("phold/") + field, message, fix);
}

void validate(const PholdConfig& c)
{
    require(c.lps >= 1, "lps", "PHOLD needs at least one logical process", "set lps to 1 or more");
    require(c.eventsPerLp >= 1, "eventsPerLp", "each LP needs at least one initial event",
            "set eventsPerLp to 1 or more (16 is the usual PHOLD population)");
    require(c.remoteProbability >= 0.0 && c.remoteProbability <= 1.0, "remoteProbability",
            "the remote probability must lie in [0, 1]", "use e.g. 0.1");
    require(std::isfinite(c.lookahead) && c.lookahead >= 0.0, "lookahead", "the lookahead must be finite and >= 0",
            "use e.g. 0.1");
    require(std::isfinite(c.meanDelay) && c.meanDelay > 0.0 && c.meanDelay >= c.lookahead, "meanDelay",
            "the mean delay must be positive and at least the lookahead", "use e.g. 1.0 with lookahead 0.1");
    // The end time is converted to int64 nanoseconds, so it must stay well inside 2^63 ns (~292 years).
    require(std::isfinite(c.endTime) && c.endTime > 0.0 && c.endTime < 1e9, "endTime",
            "the end time must be positive and below 1e9 model time units", "use e.g. 100");
}

} // namespace

Phold::Phold(Simulator& sim, const PholdConfig& config)
    : m_sim(sim)
    , m_config(config)
{
    validate(m_config);
    m_end = static_cast<SimTime>(m_config.endTime * static_cast<double>(kPholdTimeUnit));
    m_lookahead = static_cast<SimTime>(m_config.lookahead * static_cast<double>(kPholdTimeUnit));
    m_expScale = (m_config.meanDelay - m_config.lookahead) * static_cast<double>(kPholdTimeUnit);

    // Each LP gets its own stream, seeded from (seed, LP index) through splitmix64 as xoshiro's authors advise,
    // so an LP's draws depend only on how many events it has handled, never on interleaving with other LPs.
    m_lps.resize(m_config.lps);
    std::uint64_t base = m_config.seed;
    const std::uint64_t seedHash = splitmix64(base);
    for (std::uint32_t i = 0; i < m_config.lps; ++i) {
        std::uint64_t state = seedHash ^ (static_cast<std::uint64_t>(i) * 0xD1B54A32D192ED03ull);
        for (std::uint64_t& word : m_lps[i].rng.s)
            word = splitmix64(state);
    }
}

void Phold::start()
{
    for (std::uint32_t i = 0; i < m_config.lps; ++i) {
        Lp& lp = m_lps[i];
        for (std::uint32_t k = 0; k < m_config.eventsPerLp; ++k) {
            const SimTime when = m_sim.now() + delay(lp.rng);
            if (when < m_end)
                m_sim.scheduleAt(when, 0, i);
        }
    }
}

std::uint64_t Phold::digest() const
{
    std::uint64_t hash = m_config.seed;
    for (const Lp& lp : m_lps) {
        for (std::uint64_t word : lp.rng.s)
            hash = mixInto(hash, word);
        hash = mixInto(hash, lp.handled);
        hash = mixInto(hash, static_cast<std::uint64_t>(lp.last));
    }
    return hash;
}

double Phold::expectedCommitted() const
{
    // Every LP's population stays constant (one successor per event), so each of the N·16 event chains is a
    // renewal process whose inter-event time has mean m and variance (m - L)². Its renewal function is
    // t/m + (var - m²)/(2m²) for t well past m; the truncation at the end time is what makes it exact.
    const double m = m_config.meanDelay;
    const double spread = m_config.meanDelay - m_config.lookahead;
    const double perChain = m_config.endTime / m + (spread * spread - m * m) / (2.0 * m * m);
    const double chains = static_cast<double>(m_config.lps) * static_cast<double>(m_config.eventsPerLp);
    return chains * (perChain > 0.0 ? perChain : 0.0);
}

PholdResult runPhold(const PholdConfig& config)
{
    Simulator sim;
    Phold model(sim, config);
    // One successor per event at most, so the queue never grows past its initial size.
    sim.reserve(static_cast<std::size_t>(config.lps) * config.eventsPerLp);
    model.start();
    return timePholdLoop(sim, model, model);
}

} // namespace coh::core
