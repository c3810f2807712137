#pragma once
// Runs that cannot hang a test: a scheduler that livelocks (offloading and fetching the same sequences while none
// decodes, or routing requests back and forth between failures) is cancelled and fails the test.
#include "core/serving/serving_engine.h"

#include <atomic>
#include <cstdint>
#include <random>

namespace coh::test {

using namespace coh::core;

// Cancels a run that passes `maxEvents`.
class EventBudget final : public ProgressListener {
  public:
    explicit EventBudget(std::uint64_t maxEvents)
        : m_max(maxEvents)
    {
    }
    void onProgress(const RunProgress& progress) override
    {
        if (progress.events > m_max)
            cancel = true;
    }
    std::atomic<bool> cancel{false};

  private:
    std::uint64_t m_max;
};

inline RunResult runBounded(const Scenario& s, const Workload& w, std::uint64_t maxEvents = 2'000'000)
{
    EventBudget budget(maxEvents);
    RunOptions options;
    options.progress = &budget;
    options.progressIntervalSeconds = 0;
    options.cancel = &budget.cancel;
    return runScenario(s, w, options);
}

// 2 to `maxCount` requests, `maxGapMs` ms apart at most, of 5..254 prompt tokens and sequences of at most 320 tokens
// (20 blocks of 16): the random small workloads the scheduler stress tests run.
inline Workload randomSmallWorkload(std::mt19937_64& rng, int maxCount, int maxGapMs)
{
    Workload w;
    const int count = 2 + static_cast<int>(rng() % static_cast<unsigned>(maxCount - 1));
    SimTime at = 0;
    for (int i = 0; i < count; ++i) {
        at += static_cast<SimTime>(rng() % static_cast<unsigned>(maxGapMs)) * kMillisecond;
        const auto prompt = static_cast<std::uint32_t>(5 + rng() % 250);
        const auto output = static_cast<std::uint32_t>(1 + rng() % (320 - prompt));
        w.requests.push_back({at, prompt, output, 0, 0});
    }
    return w;
}

} // namespace coh::test
