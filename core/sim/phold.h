#pragma once
// PHOLD: the standard synthetic load for discrete-event kernels, run here exactly as other engines run it
// (ROSS, SST, OMNeT++ comparisons) so our events/s figures compare. Each of N logical processes (LPs)
// starts with `eventsPerLp` events; an event at an LP sends one successor to a uniformly drawn LP with
// probability `remoteProbability`, else to itself, after lookahead + Exp(meanDelay - lookahead).
#include "core/sim/simulator.h"

#include <chrono>
#include <cmath>
#include <cstdint>
#include <vector>

namespace coh::core {

// 1.0 PHOLD model time is one simulated second (1e9 ns), so delays keep ~9 significant digits.
inline constexpr SimTime kPholdTimeUnit = kSecond;

struct PholdConfig {
    std::uint32_t lps = 1024;
    std::uint32_t eventsPerLp = 16;
    double remoteProbability = 0.1;
    double lookahead = 0.1; // model time units
    double meanDelay = 1.0; // mean of the whole delay, lookahead included
    double endTime = 100.0; // events at or past it are dropped, not scheduled
    std::uint64_t seed = 1;
};

// What one PHOLD run produced; `seconds` is the event loop alone (set-up excluded).
struct PholdResult {
    std::uint64_t committed = 0;
    std::size_t initialPending = 0;
    std::size_t finalPending = 0;
    std::uint64_t digest = 0;
    double seconds = 0.0;
    double eventsPerSecond() const { return seconds > 0.0 ? static_cast<double>(committed) / seconds : 0.0; }
};

// The PHOLD model as a Simulator handler: `Phold model(sim, cfg); model.start(); sim.run(model, model.end());`
class Phold {
  public:
    // Throws InputError (field named as in the config struct) when the parameters make no sense.
    Phold(Simulator& sim, const PholdConfig& config);

    // Schedules the initial `eventsPerLp` events per LP, times drawn from the delay distribution.
    void start();

    SimTime end() const { return m_end; }
    const PholdConfig& config() const { return m_config; }
    std::uint64_t handledAt(std::uint32_t lp) const { return m_lps[lp].handled; }
    // Events whose successor went to a uniformly drawn LP (itself included): remoteProbability of all.
    std::uint64_t remoteSends() const { return m_remoteSends; }

    // Hash of every LP's RNG state, handled count and last event time: equal digests mean equal runs.
    std::uint64_t digest() const;

    // Renewal-theory expectation of committed events before `end`: 16·N·(end/mean + (var - mean²)/2mean²).
    double expectedCommitted() const;

    // The hot path: inline so Simulator::run<Phold> compiles to one loop with no call.
    void operator()(const Event& ev)
    {
        Lp& lp = m_lps[ev.target];
        ++lp.handled;
        lp.last = ev.time;
        std::uint32_t dest = ev.target;
        if (lp.rng.uniform() <= m_config.remoteProbability) {
            dest = lp.rng.below(m_config.lps);
            ++m_remoteSends;
        }
        const SimTime when = ev.time + delay(lp.rng);
        if (when < m_end)
            m_sim.scheduleAt(when, 0, dest);
    }

  private:
    // xoshiro256** (Blackman & Vigna): four xor/shift/rotate steps, so the RNG is not what we measure.
    struct Rng {
        std::uint64_t s[4];

        static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
        std::uint64_t next()
        {
            const std::uint64_t result = rotl(s[1] * 5, 7) * 9;
            const std::uint64_t t = s[1] << 17;
            s[2] ^= s[0];
            s[3] ^= s[1];
            s[1] ^= s[2];
            s[0] ^= s[3];
            s[2] ^= t;
            s[3] = rotl(s[3], 45);
            return result;
        }
        // [0, 1) from the top 53 bits.
        double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
        // [0, n) by multiply-shift on 32 bits (Lemire); the bias is below n / 2^32.
        std::uint32_t below(std::uint32_t n) { return static_cast<std::uint32_t>(((next() >> 32) * n) >> 32); }
    };

    struct Lp {
        Rng rng;
        std::uint64_t handled = 0;
        SimTime last = 0;
    };

    SimTime delay(Rng& rng) const
    {
        // -log(1-u) with u in [0,1) never takes log(0).
        const double tail = -std::log(1.0 - rng.uniform()) * m_expScale;
        return m_lookahead + static_cast<SimTime>(tail);
    }

    Simulator& m_sim;
    PholdConfig m_config;
    SimTime m_end = 0;
    SimTime m_lookahead = 0;
    double m_expScale = 0.0; // (mean - lookahead) in ns
    std::vector<Lp> m_lps;
    std::uint64_t m_remoteSends = 0;
};

// Times Simulator::run alone (set-up excluded) for a started `model` (Phold itself, or a model wrapping
// `phold`) up to the PHOLD end time, and reads the counts and digest off `phold`.
template <class Model> PholdResult timePholdLoop(Simulator& sim, Model& model, const Phold& phold)
{
    PholdResult result;
    result.initialPending = sim.pending();
    const auto begin = std::chrono::steady_clock::now();
    sim.run(model, phold.end());
    const auto finish = std::chrono::steady_clock::now();
    result.seconds = std::chrono::duration<double>(finish - begin).count();
    result.committed = sim.eventsExecuted();
    result.finalPending = sim.pending();
    result.digest = phold.digest();
    return result;
}

// Builds a fresh simulator and model, then times Simulator::run alone. For `cohsim bench` and tests.
PholdResult runPhold(const PholdConfig& config);

} // namespace coh::core
